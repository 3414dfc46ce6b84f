"""`vtlab compare BASE NEW [NEW…]`: matched rows per metric with the change's interval and a verdict, written as
compare.md, compare.html and compare.json beside each NEW run (or in --out), printed, gated by --fail-on (exit 1).
Capacity runs (each folder holding capacity.json) compare their capacities per thread mode instead. With
`--service A.jar --vs B.jar` it measures both jars itself, as one comparison (cli.versus)."""

from __future__ import annotations

import argparse
from pathlib import Path

from vtlab.cli import flags, targetflags
from vtlab.compare.metrics import METRICS
from vtlab.results import capacityfile


def add(sub) -> None:
    compare = sub.add_parser("compare", help="compare runs: each matched row's change per metric, with significance")
    compare.add_argument("base", type=Path, nargs="?",
                         help="the run folder to compare against (matrix.csv, metadata.json)")
    compare.add_argument("new", type=Path, nargs="*", help="one or more run folders compared with BASE")
    compare.add_argument("--across", metavar="DIMENSION",
                         help="compare within one run (BASE alone): its rows of the first value of a dimension it "
                              "measured against those of each other value, e.g. --across jvm_opts")
    compare.add_argument("--fail-on", metavar="CONDITIONS",
                         help="exit 1 when a significant change crosses one, e.g. 'throughput<-5%%,p99>+10%%' "
                              f"(metrics: {', '.join(m.name for m in METRICS)}; %% of BASE), or for two capacity "
                              "runs 'capacity<-5%%'")
    compare.add_argument("--out", type=Path, metavar="DIR",
                         help="where compare.md / .html / .json go (default: each NEW run's folder); with --vs the "
                              "run folder")
    # A before/after measured here (--service A.jar --vs B.jar): the run's plan and target flags, as vtlab run's
    flags.add_plan_flags(compare)
    targetflags.add(compare, flags.bounded_int(1, 65_535, "a TCP port"))
    targetflags.add_versus(compare)
    compare.add_argument("--dry-run", action="store_true", help="with --vs: print the blocks and exit")
    compare.set_defaults(func=cmd_compare, resume=False, keep=False, k6_dashboard=False, profiles=(), cpus=None)


def cmd_compare(args: argparse.Namespace) -> int:
    from vtlab.compare import gate

    try:
        conditions = gate.parse(args.fail_on) if args.fail_on else None
    except ValueError as err:
        return flags.usage_error(str(err))
    if args.service is not None or args.vs is not None:
        from vtlab.cli import versus
        problem = versus.check(args, conditions)
        return flags.usage_error(problem) if problem else versus.compare(args, conditions)
    measuring = _measuring_flag(args)
    if measuring:  # a run's flag: only a before/after measured here uses it, never silently dropped
        return flags.usage_error(f"compare: {measuring} measures, and goes with --service A.jar --vs B.jar only; two "
                                 "run folders are compared as they were measured")
    if args.base is None or bool(args.new) == bool(args.across):
        return flags.usage_error("compare: give BASE and NEW run folders, or one run folder and --across DIMENSION")
    capacity_runs = bool(args.new) and all((path / capacityfile.NAME).exists() for path in (args.base, *args.new))
    # a condition on what the comparison does not measure would never fail: refused, not silently passed
    unmeasured = [str(c) for c in conditions or () if (c.metric == gate.CAPACITY) != capacity_runs]
    if unmeasured:
        return flags.usage_error(f"--fail-on {', '.join(unmeasured)}: " + (
            "two capacity runs compare their capacity only; gate them with 'capacity<-5%'" if capacity_runs else
            "capacity is gated on two capacity runs (folders holding capacity.json)"))
    if capacity_runs:
        return _compare_capacity(args.base, args.new, conditions, args.out)
    for path in (args.base, *args.new):
        if not (path / "matrix.csv").exists():
            return flags.usage_error(f"compare: {path} holds no matrix.csv")
    try:
        return _compare(args.base, args.new, conditions, args.out, args.across)
    except ValueError as err:
        return flags.usage_error(f"compare: {err}")


def _measuring_flag(args: argparse.Namespace) -> str:
    """The first flag given that measures (the plan's, the target's): "" where none was."""
    given = [(dest, flag) for flag, dest, _, _ in flags.PLAN_FLAGS]
    given += [(dest, f"--{dest.replace('_', '-')}") for dest in ("profile", "paired", "blocks", "aa", "jvm_per_row",
                                                                 "dry_run", *targetflags.TARGET_DESTS)]
    return next((flag for dest, flag in given if getattr(args, dest, None) not in (None, False, [], "", ())), "")


def _compare(base_dir: Path, new_dirs: list[Path], conditions, out: Path | None, across: str | None) -> int:
    from vtlab.compare import compared, gate, page, render, runs

    if across:
        base, *others = runs.split(runs.load(base_dir), across)
    else:
        base, others = runs.load(base_dir), [runs.load(new_dir) for new_dir in new_dirs]
    failed = False
    for number, new in enumerate(others, start=1):
        comparison = compared.compare(base, new)
        breaches = None
        if conditions is not None:
            breaches = gate.breaches(conditions, ((row.label, name, change) for row in comparison.rows
                                                  for name, change in row.changes.items()))
            failed = failed or bool(breaches)
        folder = out or new.path
        folder.mkdir(parents=True, exist_ok=True)
        stem = ("compare" if len(others) == 1 else f"compare-{number}" if across else
                "compare" if out is None else f"compare-{new.path.name}")
        text = render.markdown(comparison, breaches)
        (folder / f"{stem}.md").write_text(text)
        (folder / f"{stem}.json").write_text(render.as_json(comparison, breaches))
        (folder / f"{stem}.html").write_text(page.serialise(comparison, breaches))
        print(text)
        print(f"comparison: {folder / (stem + '.md')}\n")
    return 1 if failed else 0


def _compare_capacity(base_dir: Path, new_dirs: list[Path], conditions, out: Path | None) -> int:
    """Each NEW capacity run against BASE's, per thread mode, written as capacity-compare.md, .json and .html beside
    NEW (or in --out) and printed; exit 1 when a gate condition fails or a gated run did not finish, 2 when the runs
    do not compare."""
    from vtlab.compare import capacity, capacitypage, gate

    try:
        base, news = capacityfile.read(base_dir), [capacityfile.read(new_dir) for new_dir in new_dirs]
    except capacityfile.MalformedCapacity as err:
        return flags.usage_error(f"compare: {err}")
    failed = False
    for new_dir, new in zip(new_dirs, news, strict=True):
        problem = capacity.mismatch(base, new)
        if problem:
            return flags.usage_error(f"compare: {problem}")
        found = capacity.changes(base, new)
        breaches = gate.breaches(conditions, found) if conditions else None
        failed = failed or bool(breaches) or bool(conditions and capacity.unfinished(base, new))
        text = "\n".join(capacity.lines(base, new, found, {b.scenario for b in breaches or ()},
                                         bool(conditions))) + "\n"
        folder = out or new_dir
        folder.mkdir(parents=True, exist_ok=True)
        stem = "capacity-compare" if out is None or len(new_dirs) == 1 else f"capacity-compare-{new_dir.name}"
        (folder / f"{stem}.md").write_text(text)
        (folder / f"{stem}.json").write_text(capacitypage.as_json(base_dir, new_dir, base, new, found, breaches))
        (folder / f"{stem}.html").write_text(capacitypage.serialise(base_dir, new_dir, base, new, found, breaches))
        print(text)
    return 1 if failed else 0
