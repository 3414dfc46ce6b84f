"""The report's reference parts after the story: the rows a tier died in, every row with its verdict, how the
ceilings were computed, and the environment the run was measured in (host, versions, core map, plan)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.explain.model import Verdict
from vtlab.report.document import Table
from vtlab.report.labels import fmt, row_label
from vtlab.results.record import PlanRecord, RunRecord

EVERY_ROW_COLUMNS = (("row", "row"), ("rps", "req/s ± 95%"), ("p99", "p99 ms (all)"), ("errors", "errors (by status)"),
                     ("ceiling", "ceiling req/s"), ("limit", "limit"), ("attained", "attained"),
                     ("bottleneck", "bottleneck"), ("evidence", "evidence"), ("valid", "valid"), ("flags", "flags"),
                     ("restated", "restated ceilings"), ("missing", "ceilings not computed"))

FAILED_COLUMNS = (("row", "row"), ("tier", "tier that died"), ("how", "how it ended"), ("log", "its log's last line"))

CEILINGS = (
    "Closed model: users ÷ service time. Platform threads: Tomcat max threads ÷ service time. "
    "Held connections: pool ÷ service time; released: pool ÷ (service time − downstream delay). "
    "CPU: (cores − the fixed CPU every tier burns at any load) ÷ the marginal CPU per request, both fitted "
    "over the same scenario's rows at lower load (all tiers' CPU when they share cores).",
    "A ceiling in the last column of Every row restates that row's own measurement, so reaching it says "
    "nothing: the lowest-load row's users ÷ its own p50 (Little's law), cores ÷ its own CPU per request "
    "(the utilisation law: no lower-load rows to predict from), the pool scaled by its own connections "
    "out. The others are predictions from other rows or the design.")


def failed(verdicts: Sequence[Verdict], threads: int) -> Table | None:
    """The rows a tier died in, in a table of their own; None where none did."""
    lines = failed_rows(verdicts, threads)
    return Table(FAILED_COLUMNS, tuple(lines), "failed-rows") if lines else None


def failed_rows(failed: Sequence[Verdict], threads: int) -> list[dict[str, str]]:
    """The rows a tier died in, for their own table: which tier, how, and the last thing it logged."""
    return [{"row": row_label(v.row, threads), "tier": v.failure.tier, "how": v.failure.how,
             "log": (v.failure.log.strip().splitlines() or [""])[-1][:200]} for v in failed if v.failure]


def every_row(verdicts: Sequence[Verdict], threads: int) -> Table:
    lines = tuple({"row": row_label(a.row, threads), "rps": _row_rps(a), "p99": _p99_text(a),
                   "errors": _errors_text(a), "ceiling": fmt(a.ceiling_rps, 1), "limit": a.limit,
                   "attained": f"{fmt(a.attained * 100)}%", "bottleneck": a.bottleneck,
                   "evidence": a.evidence, "valid": "yes" if a.valid else "NO", "flags": ";".join(a.flags),
                   "restated": ", ".join(a.ceilings.restated), "missing": "; ".join(a.ceilings.missing)}
                  for a in verdicts)
    return Table(EVERY_ROW_COLUMNS, lines, "rows", tuple("valid" if a.valid else "invalid" for a in verdicts))


def _row_rps(a: Verdict) -> str:
    ci = a.measured.throughput_ci95_rps
    return fmt(a.measured.throughput_rps, 1) + ("" if math.isnan(ci) else f" ± {fmt(ci, 1)}")


def _p99_text(a: Verdict) -> str:
    """The successful responses' p99, and beside it every response's when requests failed (a failed request
    that answered fast hides in the first; one that timed out shows in the second)."""
    m = a.measured
    both = m.error_rate > 0 and not math.isnan(m.p99_all_ms)
    return fmt(m.p99_ms) + (f" ({fmt(m.p99_all_ms)})" if both else "")


def _errors_text(a: Verdict) -> str:
    m = a.measured
    return f"{m.error_rate * 100:.2f}%" + (f" ({m.errors_by_status})" if m.errors_by_status else "")


def ceiling_notes(verdicts: Sequence[Verdict]) -> tuple[str, ...]:
    """How the ceilings were computed, then each service time they were computed from."""
    inputs = sorted({(a.row.conn_mode, a.row.path_mode, round(a.service_time_ms, 1), a.service_time_source)
                     for a in verdicts})
    return (*CEILINGS, *(f"service time for {conn} / {path}: {ms} ms ({source})" for conn, path, ms, source in inputs))


def _plan_lines(plan: PlanRecord | None, upgraded: Sequence[str]) -> dict[str, str]:
    """The plan as the run was asked for it: its profile and phases, how many rows, and the flags that
    changed the profile (none: the profile as it stands)."""
    if plan is None:
        return {"plan": "not recorded"}
    phases = [("ramp", plan.ramp_s), ("warm-up", plan.warmup_s), ("hold", plan.hold_s)]
    # a run from before the cool-down was a setting recorded none: say what it recorded, not the stand-in
    if "plan.cooldown_s" not in upgraded:
        phases.append(("cool-down", plan.cooldown_s))
    jitter = (f" + a uniform 0–{plan.stub_jitter_ms:,} ms (mean {plan.stub_delay_ms + plan.stub_jitter_ms / 2:,g} ms)"
              if plan.stub_jitter_ms else " (fixed)")
    return {"plan": f"profile {plan.profile}, {plan.model} model, {len(plan.rows)} rows; "
                    + " · ".join(f"{name} {seconds} s" for name, seconds in phases),
            "downstream (the stub)": f"{plan.stub_delay_ms:,} ms{jitter}",
            "plan flags": ", ".join(f"{key}={value}" for key, value in sorted(plan.overrides.items()))
            or "none: the profile as it stands"}


def moved_points(plan: PlanRecord | None) -> list[str]:
    """The sentence that says where this machine's calibration moved a profile's point, and why; none where no
    point moved."""
    moved = [m for m in (plan.sizing.get("moved") or []) if isinstance(m, dict)] if plan is not None else []
    if not moved:
        return []
    return ["This machine's calibration moved the profile's " + "; and ".join(
        f"{m['nominal']:,}-user point to {m['chosen']:,} users: {m['why']}" for m in moved) + "."]


def environment(run: RunRecord) -> tuple[tuple[str, str], ...]:
    lines = {**{f"host {k}": v for k, v in run.host.items()}, **{f"version {k}": v for k, v in run.versions.items()},
             "core map": run.core_map, **_plan_lines(run.plan, run.upgraded)}
    return tuple((str(key), str(value)) for key, value in lines.items())
