"""`vtlab calibrate`: what a request costs each tier on this machine, measured once on the real tiers and cached.

A short row of each thread mode at the calibration point (vtlab's own service, far below every wall), run through
`vtlab run` itself into a folder of its own; its CPU per request by tier is what sizes the points of the smoke (and
the profiles, later). A cached calibration of this machine is read instead unless --recalibrate."""

from __future__ import annotations

import argparse
import datetime
import math
import sys
import tempfile
from pathlib import Path

from vtlab.cli import run
from vtlab.core import cores
from vtlab.plan import calibration
from vtlab.results import table


def add(sub) -> None:
    calibrate = sub.add_parser("calibrate", help="measure this machine's CPU per request of each tier (cached)")
    calibrate.add_argument("--recalibrate", action="store_true", help="measure again even where a calibration of "
                           "this machine is cached")
    calibrate.add_argument("--out", type=Path, help="the calibration's run folder (default: a new temporary one)")
    calibrate.set_defaults(func=cmd_calibrate)


def cmd_calibrate(args: argparse.Namespace) -> int:
    found = ensure(recalibrate=args.recalibrate, out=args.out)
    if found is None:
        return 1
    print(f"vtlab calibrate: {found.summary()}")
    print(f"vtlab calibrate: cached at {calibration.path_for(found.cores)}")
    return 0


def ensure(recalibrate: bool = False, out: Path | None = None) -> calibration.Calibration | None:
    """This machine's calibration: the cached one, else measured now (None, with the reason printed, where the
    calibration rows were not measured or not usable)."""
    count = len(cores.available())
    if not recalibrate:
        cached = calibration.load(count)
        if cached is not None:
            print(f"vtlab calibrate: this machine's calibration, cached: {cached.summary()}", file=sys.stderr)
            return cached
    run_dir = out or Path(tempfile.mkdtemp(prefix="vtlab-calibration-")) / "run"
    point = calibration.CALIBRATION_POINT
    argv = ["run", "--modes", "platform,virtual", "--conc", str(point["users"]), "--stub-delay",
            str(point["stub_delay_ms"]), "--ramp", str(point["ramp_s"]), "--warmup", str(point["warmup_s"]),
            "--hold", str(point["hold_s"]), "--conn-mode", "released", "--reps", "1", "--out", str(run_dir)]
    print(f"vtlab calibrate: measuring this machine's CPU per request: vtlab {' '.join(argv)}", file=sys.stderr)
    code = _run(argv)
    if code != 0:
        print(f"vtlab calibrate: the calibration run failed (exit {code}); see {run_dir}", file=sys.stderr)
        return None
    try:
        measured = of_rows(table.read_rows(run_dir / table.CSV_NAME), count, str(run_dir))
    except ValueError as err:
        print(f"vtlab calibrate: {err}; see {run_dir}", file=sys.stderr)
        return None
    calibration.save(measured)
    return measured


def _run(argv: list[str]) -> int:
    """`vtlab run` with `argv`, in this process: its own parser, so the flags are checked as the user's are."""
    parser = argparse.ArgumentParser(prog="vtlab")
    run.add(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def of_rows(rows: list[dict[str, str]], count: int, run_dir: str = "") -> calibration.Calibration:
    """The calibration a run's rows give: each mode's CPU per request by tier. Refused (ValueError) where a mode is
    missing, failed, or a figure is not a positive number."""
    modes: dict[str, calibration.ModeCost] = {}
    for row in rows:
        if row.get("failed_tier"):
            raise ValueError(f"the {row['thread_mode']} calibration row failed: {row.get('failure', '')}")
        cost = calibration.ModeCost(service_ms=_number(row, "app_cpu_ms_per_req"),
                                    generator_ms=_number(row, "load_cpu_ms_per_req"),
                                    stub_ms=_number(row, "stub_cpu_ms_per_req"),
                                    database_ms=_number(row, "pg_cpu_ms_per_req"),
                                    rps=_number(row, "throughput_rps"),
                                    warmup_end=row.get("warmup_end") or "not recorded")
        if not cost.valid():
            raise ValueError(f"the {row['thread_mode']} calibration row measured no usable CPU per request ({cost})")
        modes[row["thread_mode"]] = cost
    if set(modes) != {"platform", "virtual"}:
        raise ValueError(f"the calibration measured {sorted(modes) or 'no mode'}, not platform and virtual")
    return calibration.Calibration(
        machine=calibration.machine_key(count), cores=count, version=calibration.CALIBRATION_VERSION,
        measured_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), modes=modes,
        run_dir=run_dir, quota=cores.quota())


def _number(row: dict[str, str], column: str) -> float:
    try:
        return float(row.get(column) or "nan")
    except ValueError:
        return math.nan
