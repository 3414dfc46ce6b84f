"""`vtlab calibrate`: what a request costs each tier on this machine, measured once on the real tiers and cached.

A short staircase of each thread mode at the calibration points (vtlab's own service, far below every wall: steps of
one warm JVM, each settled), run through `vtlab run` itself into a folder of its own. Its first step's CPU per
request by tier is the upper bound the smoke's points are sized with; each tier's CPU fixed and marginal apart over
the steps (explain.costs' fit) sizes the profiles' points (plan.sizing). A cached calibration of this machine is read
instead unless --recalibrate."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import math
import sys
import tempfile
from pathlib import Path

from vtlab.cli import run
from vtlab.core import cores
from vtlab.explain import analyze, costs, validity
from vtlab.plan import calibration
from vtlab.results import record, table
from vtlab.results import rows as measured_rows
from vtlab.results.rows import MeasuredRow


def add(sub) -> None:
    calibrate = sub.add_parser("calibrate", help="measure this machine's CPU per request of each tier (cached)")
    calibrate.add_argument("--recalibrate", action="store_true", help="measure again even where a calibration of "
                           "this machine is cached")
    calibrate.add_argument("--bound", action="store_true", help="only the upper bound a point below a wall is sized "
                           "with (each mode's first step after a fixed warm-up, under 2 minutes): what the live smoke "
                           "needs; a whole calibration cached serves as well")
    calibrate.add_argument("--out", type=Path, help="the calibration's run folder (default: a new temporary one)")
    calibrate.set_defaults(func=cmd_calibrate)


def cmd_calibrate(args: argparse.Namespace) -> int:
    found = ensure(recalibrate=args.recalibrate, out=args.out, bound=args.bound)
    if found is None:
        return 1
    print(f"vtlab calibrate: {found.summary()}")
    bound_alone = not any(cost.splits for cost in found.modes.values())
    print(f"vtlab calibrate: cached at {calibration.path_for(found.cores, bound=bound_alone)}")
    return 0


def ensure(recalibrate: bool = False, out: Path | None = None, bound: bool = False) -> calibration.Calibration | None:
    """This machine's calibration (`bound`: its upper bound, of a whole calibration or of the first steps alone):
    the cached one, else measured now (None, with the reason printed, where the calibration rows were not measured or
    not usable)."""
    count = len(cores.available())
    if not recalibrate:
        cached = calibration.load_bound(count) if bound else calibration.load(count)
        if cached is not None:
            print(f"vtlab calibrate: this machine's calibration, cached: {cached.summary()}", file=sys.stderr)
            return cached
    run_dir = out or Path(tempfile.mkdtemp(prefix="vtlab-calibration-")) / "run"
    point = calibration.CALIBRATION_POINT
    users = point["users"][:1] if bound else point["users"]
    phases = (["--warmup-until", "fixed", "--warmup", str(calibration.BOUND_WARMUP_S), "--hold",
               str(calibration.BOUND_HOLD_S)] if bound else
              ["--warmup", str(point["warmup_s"]), "--hold", str(point["hold_s"])])
    argv = ["run", "--modes", "platform,virtual", "--conc", ",".join(map(str, users)), "--stub-delay",
            str(point["stub_delay_ms"]), "--stub-jitter", str(point["stub_jitter_ms"]), "--ramp", str(point["ramp_s"]),
            *phases, "--conn-mode", "released", "--reps", "1", "--prewarm", "off", "--out", str(run_dir)]
    print(f"vtlab calibrate: measuring this machine's CPU per request: vtlab {' '.join(argv)}", file=sys.stderr)
    code = _run(argv)
    if code != 0:
        print(f"vtlab calibrate: the calibration run failed (exit {code}); see {run_dir}", file=sys.stderr)
        return None
    try:
        measured = of_rows(measured_rows.read(run_dir / table.CSV_NAME), count, str(run_dir), record.read(run_dir),
                           bound=bound)
    except ValueError as err:
        print(f"vtlab calibrate: {err}; see {run_dir}", file=sys.stderr)
        return None
    calibration.save(measured, bound=bound)
    return measured


# What a bound alone is measured through (calibration.BOUND_WARMUP_S): a hold too short to be steady and the JIT
# still compiling, as it is meant to be (their notes, host-speed: and jit-busy:, never invalidate). Neither biases
# the mean CPU a request low.
BOUND_TOLERATED = (*validity.FOREIGN_CPU, *validity.UNSTEADY, validity.JIT_NOT_SETTLED)


def _run(argv: list[str]) -> int:
    """`vtlab run` with `argv`, in this process: its own parser, so the flags are checked as the user's are."""
    args = run.parser().parse_args(argv)
    return args.func(args)


def of_rows(lines: list[dict[str, str]] | list[MeasuredRow], count: int, run_dir: str = "",
            run: record.RunRecord | None = None, bound: bool = False) -> calibration.Calibration:
    """The calibration a run's rows give: each mode's CPU per request by tier at its first step (the upper bound)
    and, but for a `bound` alone, each tier's fixed and marginal cost over its steps. Refused (ValueError) where a
    mode is missing, a step failed or is invalid (its verdict's flags), a mode measured no staircase (a whole
    calibration), or a figure is not a number."""
    rows = measured_rows.all_typed(lines)
    for row in rows:
        if row.failed:
            raise ValueError(f"the {row.thread_mode} calibration step at {row.concurrency} users failed: "
                             f"{row.failure}")
    analysis = analyze.analyse(rows, run or record.from_dict({}))
    # another process's or guest's CPU (validity.FOREIGN_CPU) leaves a step's CPU per request as measured: checked and
    # fitted as the step it is, without those flags; a bound alone tolerates its short hold's noise and its JIT too
    tolerated = BOUND_TOLERATED if bound else validity.FOREIGN_CPU
    priced = [dataclasses.replace(verdict, flags=tuple(flag for flag in verdict.flags if flag not in tolerated))
              for verdict in analysis.verdicts]
    for verdict, step in zip(analysis.verdicts, priced, strict=True):
        if validity.invalidating(step.flags):
            raise ValueError(f"the {verdict.row.thread_mode} calibration step at {verdict.row.concurrency} users is "
                             f"invalid ({';'.join(verdict.flags)}): no cost can be fitted through it")
    # the first step, its JVM cold, is the upper bound; the costs are fitted through the steps after it, on code the
    # first compiled (through it as well, the JIT's per-second work made the service's marginal cost come out below
    # zero: -0.168 ms a request + 577 ms/s, 2026-11-28)
    warm = [verdict for verdict in priced if verdict.measured.jvm_step != 1]
    fitted = {family.thread_mode: family for family in costs.families(warm)}
    modes: dict[str, calibration.ModeCost] = {}
    for mode in dict.fromkeys(row.thread_mode for row in rows):
        modes[mode] = _mode_cost(mode, [row for row in rows if row.thread_mode == mode], fitted.get(mode), bound)
    if set(modes) != {"platform", "virtual"}:
        raise ValueError(f"the calibration measured {sorted(modes) or 'no mode'}, not platform and virtual")
    return calibration.Calibration(
        machine=calibration.machine_key(count), cores=count, version=calibration.CALIBRATION_VERSION,
        measured_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), modes=modes,
        run_dir=run_dir, quota=cores.quota())


def _mode_cost(mode: str, rows: list[MeasuredRow], family: costs.Family | None,
               bound: bool = False) -> calibration.ModeCost:
    """One mode's cost: its first step's CPU per request (the upper bound), its tiers' fits over its steps (none for a
    `bound` alone)."""
    splits = {} if bound else _splits(mode, family)
    first = min(rows, key=lambda row: row.concurrency)
    cost = calibration.ModeCost(service_ms=first.app_cpu_ms_per_req, generator_ms=first.load_cpu_ms_per_req,
                                stub_ms=first.stub_cpu_ms_per_req, database_ms=first.pg_cpu_ms_per_req,
                                rps=first.throughput_rps, warmup_end=first.warmup_end or "not recorded",
                                splits=splits,
                                steps=tuple(_step(row) for row in sorted(rows, key=lambda row: row.concurrency)))
    if not cost.valid():
        raise ValueError(f"the {mode} calibration measured no usable CPU per request ({cost})")
    return cost


def _splits(mode: str, family: costs.Family | None) -> dict[str, calibration.Split]:
    """Each tier's CPU fixed and marginal apart over the mode's warm steps."""
    if family is None:
        raise ValueError(f"the {mode} calibration measured no staircase (steps on one JVM): nothing to fit")
    unfitted = [f"{tier}: {family.fits[key].why}" for tier, key in calibration.TIERS.items()
                if not family.fits[key].determined]
    if unfitted:
        raise ValueError(f"the {mode} calibration's costs were not fitted ({'; '.join(unfitted)})")
    return {tier: _split(family.fits[key]) for tier, key in calibration.TIERS.items()}


def _split(fit: costs.Fit) -> calibration.Split:
    def known(half: float) -> float | None:
        return None if math.isnan(half) else half
    return calibration.Split(fit.marginal, fit.fixed, known(fit.marginal_half), known(fit.fixed_half), fit.why)


def _step(row: MeasuredRow) -> calibration.Step:
    return calibration.Step(row.concurrency, row.throughput_rps, row.warmup_end or "not recorded",
                            None if math.isnan(row.warmup_s) else row.warmup_s)
