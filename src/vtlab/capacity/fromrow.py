"""A measured row read back as the search's point: the run folder's analysis of it (validity, wall, evidence, its
Little's-law ceilings, how busy its tiers were), its hold's requests for each percentile's interval, and its
failures for the error rate's — what `vtlab report` would say of the row, nothing the search computes on its own."""

from __future__ import annotations

import math
from pathlib import Path

from vtlab.capacity.point import Interval, PointResult
from vtlab.core import dimensions
from vtlab.core.objective import PERCENTILES
from vtlab.explain import analyze, evidence
from vtlab.explain.facts import pool_size
from vtlab.explain.model import LIMITS, Context, Verdict
from vtlab.explain.validity import CEILING_EXCEEDED, FOREIGN_CPU, HOST_SPEED, UNSTEADY, invalidating_beyond
from vtlab.results import record, table
from vtlab.results import rows as measured_rows
from vtlab.results.rows import MeasuredRow
from vtlab.series import percentiles, store
from vtlab.series.holdstats import HOST_WORK, HOST_WORK_SPREAD


def point(run_dir: Path, slug: str, mode: str, load: int, seconds: float, in_turn: bool = False) -> PointResult:
    """The row `slug` of `run_dir` as a point at `load`; `seconds`: what measuring it took (warm-up, hold, the
    JVM's start where it was fresh). A row a tier died in is an invalid point that says which tier. Taken `in_turn`,
    it stands beside the machine's moving (stands_in_turn), its flags kept to be said."""
    rows = measured_rows.read(run_dir / table.CSV_NAME)
    row = next(line for line in reversed(rows) if dimensions.slug(line.dims) == slug)
    if row.failed_tier:
        return PointResult(mode, load, {}, 0, 0, valid=False, flags=(f"failed:{row.failed_tier}",),
                           seconds=seconds)
    analysis = analyze.analyse(rows, record.read(run_dir))
    verdict = next(v for v in reversed(analysis.verdicts) if dimensions.slug(v.row) == slug)
    requests = [r for r in store.read_k6(store.k6_path(run_dir / "series", slug)).requests if r.phase == "hold"]
    figures = {name: Interval(*percentiles.interval(requests, share)) for name, share in PERCENTILES.items()}
    errors = sum(1 for r in requests if not r.ok)
    valid = stands_in_turn(verdict) if in_turn else verdict.valid
    return PointResult(mode, load, figures, errors, len(requests), valid=valid, flags=verdict.flags,
                       throughput_rps=row.throughput_rps, wall=verdict.bottleneck, evidence=verdict.evidence,
                       ceiling_rps=verdict.ceiling_rps, limit=verdict.limit, ceilings=wall_ceilings(verdict),
                       utilisation=utilisation(row, analysis.context),
                       service_time_ms=verdict.service_time_ms, seconds=seconds,
                       extra={"slug": slug, "p99_ms": row.p99_ms, "k6_ms_per_req": row.load_cpu_ms_per_req,
                              HOST_WORK: row.host_work_us, HOST_WORK_SPREAD: row.host_work_spread_pct})


def stands_in_turn(verdict: Verdict) -> bool:
    """Whether the row is valid but for the machine's moving: another's CPU (validity.FOREIGN_CPU), and a hold
    unsteady where the host's speed is what moved it (a host-speed note beside it). The modes' points taken in turn
    on two warm JVMs stand beside it, as a paired run's blocks do: each mode's neighbouring points saw the same
    machine. Alone, a search stopped
    there: the VM's steal flagged a platform point twice and ended its search (cap1, 2026-11-28). A hold unsteady
    for no such reason stays invalid: above capacity a queue grows through it, and an unsteady pass is no pass. So does
    a point the CPU held: the CPU another took is the capacity it lost, which taking turns does not give back (capA,
    2026-11-28: virtual points at 998-1,127 req/s failed with 20-29% of the machine another's, 922 found; capB, the
    next search, under 1% another's: 1,593). Invalid, such a point still passes where its objective held beyond doubt
    (capacity.point.judge: a pass on less CPU than its own)."""
    if verdict.valid or verdict.failed or verdict.bottleneck == "cpu":
        return verdict.valid
    moved = any(flag.startswith(HOST_SPEED) for flag in verdict.flags)
    return not invalidating_beyond(verdict.flags, FOREIGN_CPU + (UNSTEADY if moved else ()))


def wall_ceilings(verdict: Verdict) -> dict[str, float]:
    """Each wall's Little's-law ceiling the row computed (req/s), but the load's own and any the row passed (a
    prediction its throughput proved wrong)."""
    passed = {flag.removeprefix(CEILING_EXCEEDED) for flag in verdict.flags if flag.startswith(CEILING_EXCEEDED)}
    return {name: getattr(verdict.ceilings, attribute) for name, attribute in LIMITS
            if name != "concurrency" and name not in passed and not math.isnan(getattr(verdict.ceilings, attribute))}


def utilisation(row: MeasuredRow, ctx: Context) -> str:
    """How busy the row's tiers were, in the words of the checks that name a wall (explain.evidence): the CPU, the
    request threads and, where the service has one, the connection pool."""
    checks = [evidence.cpu(row, ctx), evidence.thread_pool(row, ctx)]
    if not math.isnan(pool_size(row)):
        checks.append(evidence.connection_pool(row, ctx))
    return "; ".join(seen.text for seen in checks if seen.text)
