"""`vtlab run`: measure the plan on this machine, vtlab's own service or the user's, then report it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vtlab.cli import flags, targetflags
from vtlab.cli.doctor import examine, largest_row
from vtlab.cli.report import keep_aa_floor, report_and_headline
from vtlab.core import cores, dimensions
from vtlab.core.settings import RESULTS
from vtlab.plan import planner
from vtlab.results import record, table
from vtlab.rig import doctor, procs
from vtlab.targets import userservice


def parser() -> argparse.ArgumentParser:
    """`vtlab run`'s own parser, for a command that runs it in this process with the flags checked as the user's
    are (a calibration's steps, advise's tries)."""
    made = argparse.ArgumentParser(prog="vtlab")
    add(made.add_subparsers(dest="command", required=True))
    return made


def add(sub) -> None:
    run = sub.add_parser("run", help="measure the matrix (does any missing setup first)",
                         description="Measure platform vs virtual threads; one CSV row per scenario.")
    flags.add_plan_flags(run)
    run.add_argument("--cpus", type=flags.core_map, help="core map override, e.g. 'app=0-3 pg=4 stub=5 load=6-7'")
    run.add_argument("--out", type=Path, help="run folder (default results/<timestamp>)")
    run.add_argument("--resume", action="store_true", help="skip rows already in the run folder's CSV "
                     "(the latest run when --out is not given)")
    run.add_argument("--keep", action="store_true", help="leave PostgreSQL and the stub up after the last row")
    run.add_argument("--dry-run", action="store_true", help="print the rows and exit")
    run.add_argument("--k6-dashboard", action="store_true",
                     help="export k6's own web dashboard of each row, linked from the report (off by default: it costs "
                          "k6 about 12%% more CPU per request; see docs/running.md)")
    run.add_argument("--profiles", type=flags.profile_kinds, default=(), metavar="KINDS",
                     help="profile each row's service during the hold with async-profiler and keep the flame graphs "
                          "under profiles/: any of cpu,alloc,lock,wall (off by default; see docs/costs-and-profiles.md "
                          "for what each costs)")
    run.add_argument("--verbose", action="store_true",
                     help="print the whole report as the run ends (by default: its answer and the rows set apart, "
                          "report.md beside them)")
    targetflags.add(run, flags.bounded_int(1, 65_535, "a TCP port"))
    targetflags.add_versus(run)
    run.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from vtlab.measure import loop

    try:
        target = targetflags.target(args)
        the_plan = flags.plan_of(args, target, calibrated=True, on_this_machine=True)
    except ValueError as err:
        return flags.usage_error(str(err))
    if args.k6_dashboard and the_plan.runners > 1:
        return flags.usage_error(f"--k6-dashboard with --runners {the_plan.runners}: each runner's dashboard would "
                                 "show only its share of the load; drop one of them")
    if the_plan.arms is not None and target is not None and not target.started_by_vtlab:
        return flags.usage_error("--paired with --url: the paired design runs both arms on JVMs vtlab starts, up "
                                 "together; give the service's jar with --service")
    if the_plan.arms is not None and target is not None and target.port:
        return flags.usage_error(f"--port {target.port} with --paired: both arms' JVMs are up together and cannot "
                                 "share a port; leave --port out (vtlab picks a free one for each)")
    if args.profiles and target is not None and not target.started_by_vtlab:
        return flags.usage_error("--profiles with --url: async-profiler attaches to a JVM vtlab starts; give the "
                                 "service's jar with --service")
    run_dir, problem = _resolved_run_dir(args, target)
    if problem:
        return flags.usage_error(problem)
    try:
        the_plan = _as_resumed(args, target, run_dir, the_plan)
    except ValueError as err:
        return flags.usage_error(str(err))
    run_dir = run_dir or loop.default_run_dir(RESULTS)
    problem = None if args.dry_run else table.why_not_writable(run_dir)
    if problem:
        return flags.usage_error(f"--out: {problem}; give a writable folder")
    mapping = args.cpus or cores.automatic(cores.available())
    if target is not None and not args.dry_run:
        problem = targetflags.startup_problem(target)
        if problem:
            return flags.usage_error(problem)

    print(_first_line(the_plan, target, mapping, run_dir))
    if args.dry_run:
        for row in the_plan.rows:
            print("  " + dimensions.label(row))
        return 0
    doctor.raise_open_files_limit(doctor.open_files_needed(largest_row(the_plan), the_plan.downstream_http))
    findings = examine(the_plan)  # before any tier starts: its ports are still free
    for finding in doctor.warnings(findings):
        print(f"vtlab: doctor: {finding.line().lstrip()}", file=sys.stderr)
    procs.install_signal_handlers()
    try:
        measured = targetflags.measured(target, args.keep, mapping, doctor.record(findings), args.k6_dashboard,
                                        args.profiles)
        outcome = loop.run(measured, the_plan, run_dir)
    finally:
        procs.stop_all()
    report_and_headline(outcome.csv.parent, [], args.verbose)
    if the_plan.arms is not None and the_plan.arms.aa and target is None:  # vtlab's own service: a user's jar's A/A
        keep_aa_floor(outcome.csv.parent)                                 # is its own, not the machine's floor
    if outcome.failed_rows:
        print(f"vtlab: {outcome.failed_rows} row(s) failed: a tier died (see the report's failed rows); "
              "--resume measures them again", file=sys.stderr)
        return 1
    return 0


def _as_resumed(args: argparse.Namespace, target: userservice.Target | None, run_dir: Path | None,
                plan: planner.Plan) -> planner.Plan:
    """The plan a run resumes with (`plan` itself for a new run): in the design it began with where no flag chose one
    (a run of before the default paired, one mode after the other: its rows would not pair with new ones), a paired
    one's blocks in the order the run began them. ValueError where the flags ask for the other design."""
    if not args.resume:
        return plan
    if not args.paired and not args.sequential and _other_design(run_dir, plan):
        args.paired, args.sequential = plan.arms is None, plan.arms is not None
        plan = flags.plan_of(args, target, calibrated=True, on_this_machine=True)
    differs = _other_design(run_dir, plan)
    if differs:
        raise ValueError(f"--resume: {run_dir} {differs}")
    seed = _recorded_seed(run_dir) if plan.arms is not None else None
    if seed is None:
        return plan
    return flags.plan_of(args, target, calibrated=True, pair_seed=seed, on_this_machine=True)


def _first_line(plan: planner.Plan, target: userservice.Target | None, mapping: dict[str, set[int]],
                run_dir: Path) -> str:
    """The run's first line: its profile, rows and bound, what it measures, how its modes are measured, what sized its
    points, its cores and its folder."""
    minutes, design = flags.bound_and_design(plan)
    jitter = f" + 0–{plan.stub_jitter_ms} ms" if plan.stub_jitter_ms else ""
    measured = (f"stub delay {plan.stub_delay_ms} ms{jitter}" if target is None or target.uses_stub else "")
    if target is not None:
        measured = f"your service ({target.jar or target.url}): {target.call.describe()}" + (
            f", {measured}" if measured else "")
    sized = plan.sized_words()
    return (f"vtlab run: profile {plan.profile}, {len(plan.rows)} rows, at most ~{minutes:.0f} min; {measured}; "
            + (f"{design}; " if design else "") + (f"{sized}; " if sized else "")
            + f"cores {cores.describe_map(mapping)}; results in {run_dir}")


def _resolved_run_dir(args: argparse.Namespace,
                      target: userservice.Target | None) -> tuple[Path | None, str | None]:
    """The run folder the flags name (the latest run's with a bare --resume; None: a new one), or the usage error
    that stops them."""
    run_dir = args.out
    if args.resume and run_dir is None:
        previous = sorted(p for p in RESULTS.glob("*") if (p / "matrix.csv").exists())
        if not previous:
            return None, "--resume: no earlier run under results/ to resume; give --out RUN_DIR"
        run_dir = previous[-1]
    if run_dir is not None and (run_dir / "matrix.csv").exists() and not args.resume:
        return None, f"--out: {run_dir} already holds a matrix.csv; add --resume to continue it"
    problem = table.why_not_appendable(run_dir / table.CSV_NAME) if run_dir is not None else None
    if problem:
        return None, f"--resume: {problem}"
    if args.resume and run_dir is not None and (run_dir / table.METADATA_NAME).exists():
        try:
            problem = _other_target(record.read(run_dir), target)
        except record.MalformedRecord as err:
            return None, f"--resume: {err}"
        if problem:
            return None, f"--resume: {run_dir} measured {problem}; resume it with the same service and call"
    return run_dir, None


def _other_design(run_dir: Path | None, plan: planner.Plan) -> str | None:
    """How a run being resumed measured its modes, where the flags now ask the other way (paired against one mode
    after the other): its rows would not pair with the new ones. None where they agree, or nothing was recorded."""
    if run_dir is None or not (run_dir / table.METADATA_NAME).exists():
        return None
    recorded = record.read(run_dir)
    was_paired = bool(recorded.plan and recorded.plan.paired)
    if was_paired == (plan.arms is not None):
        return None
    return ("measured its modes paired: resume it with --paired and its --blocks" if was_paired else
            "measured each mode in its own stretch of time: resume it with --sequential")


def _recorded_seed(run_dir: Path | None) -> int | None:
    """The order's seed a paired run being resumed recorded (None: none recorded)."""
    if run_dir is None or not (run_dir / table.METADATA_NAME).exists():
        return None
    recorded = record.read(run_dir)
    seed = recorded.plan.paired.get("seed") if recorded.plan else None
    return seed if isinstance(seed, int) else None


def _other_target(recorded: record.RunRecord, target: userservice.Target | None) -> str | None:
    """What a run being resumed measured, when it is not what the flags name now; None when it is the same."""
    if recorded.kubernetes is not None:
        return "on a Kubernetes cluster (`vtlab k8s run --resume`)"
    then = recorded.user_service
    now = record.UserService.of(target.describe()) if target else None
    if then == now:
        return None
    return f"{then.jar or then.url} ({then.call})" if then else "vtlab's own service"
