"""`vtlab report`: analyse a run folder (or a re-cut of its holds) and render its report; the headline printed; an A/A
run's points kept as the machine's floor (plan.aacache) for the paired runs after it."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from vtlab.cli import flags
from vtlab.core import cores, dimensions, settings
from vtlab.core.aafloor import AA
from vtlab.plan import aacache
from vtlab.report.labels import load_of, scenario_label
from vtlab.results import listing, record


def add(sub) -> None:
    report = sub.add_parser("report", help="analyse a run and render report.html / report.md / analysis.csv")
    report.add_argument("run_dir", type=Path, nargs="?",
                        help="a run folder holding matrix.csv (and metadata.json); default: the latest run under "
                             "results/ (see `vtlab runs`)")
    report.add_argument("--compare", type=Path, action="append", default=[], metavar="OTHER",
                        help="another run folder or CSV to overlay (repeatable), e.g. the published figures")
    report.add_argument("--hold-from", type=float, metavar="S",
                        help="re-cut every row's hold from its kept series: start, in seconds since k6 started "
                             "(with --hold-to); writes RUN_DIR/recut-FROM-TO/ and reports it")
    report.add_argument("--hold-to", type=float, metavar="S", help="the re-cut hold's end (see --hold-from)")
    report.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    if args.run_dir is None:
        found = listing.runs(settings.RESULTS) if settings.RESULTS.is_dir() else []
        if not found:
            return flags.usage_error(f"report: no run under {settings.RESULTS} to report on; give RUN_DIR")
        args.run_dir = found[0].folder
        print(f"vtlab: reporting on the latest run: {args.run_dir}")
    if not (args.run_dir / "matrix.csv").exists():
        return flags.usage_error(f"report: {args.run_dir} holds no matrix.csv")
    for other in args.compare:
        if not other.exists():
            return flags.usage_error(f"--compare: {other} does not exist")
    if (args.hold_from is None) != (args.hold_to is None):
        return flags.usage_error("--hold-from and --hold-to go together: the window's start and end, in seconds "
                                 "since k6 started")
    if args.hold_from is not None and not 0 <= args.hold_from < args.hold_to:
        return flags.usage_error(f"--hold-from {args.hold_from:g} / --hold-to {args.hold_to:g}: need 0 <= from < to")
    try:
        run_dir = args.run_dir
        if args.hold_from is not None:
            from vtlab.series import recut

            run_dir = recut.recut(run_dir, (args.hold_from, args.hold_to))
            print(f"vtlab: re-cut every row's hold to {args.hold_from:g}–{args.hold_to:g} s: {run_dir}")
        return report_and_headline(run_dir, args.compare)
    except (ValueError, FileNotFoundError) as err:
        return flags.usage_error(str(err))


def report_and_headline(run_dir: Path, others: list[Path], verbose: bool = True) -> int:
    """The report rendered, and its markdown printed — or, not `verbose`, its answer and flagged rows in a screenful
    (report.terminal): what `run` and `k8s run` end with too."""
    from vtlab.report import render, terminal

    paths = render.render(run_dir, others)
    print()
    markdown = paths["markdown"].read_text()
    print(markdown if verbose else terminal.summary(markdown, paths["analysis"]))
    print(f"report: {paths['html']}\nanalysis: {paths['analysis']}")
    return 0


def keep_aa_floor(run_dir: Path) -> None:
    """An A/A run's points with an interval kept as this machine's A/A floor (core.aafloor), from its report.json, each
    dated when the run ended (or began, where it did not end: a resumed A/A's points replace its earlier ones), and the
    floor as it now is said: every later paired run on this machine is told against it."""
    try:
        told = json.loads((run_dir / "report.json").read_text()).get("paired") or []
        run = record.read(run_dir)
    except (OSError, ValueError, record.MalformedRecord):
        return
    now = datetime.datetime.now(datetime.timezone.utc)
    when = run.finished or run.started or now.isoformat(timespec="seconds")
    found = []
    for point in told:
        counted = sum(1 for pair in point.get("pairs", ()) if not pair.get("left_out"))
        if not point.get("arms", {}).get("aa") or point.get("ratio") is None or counted < 2:
            continue
        row = dimensions.Row(**point["row"])
        found.append(AA(when, str(run_dir),
                        f"{row.thread_mode}, {scenario_label(row)}, {load_of(row)}", float(point["ratio"]),
                        float(point["low"]), float(point["high"]), counted))
    count = len(cores.available())
    try:
        floor = aacache.add(count, found, now)
    except OSError as err:
        print(f"vtlab: this machine's A/A floor not kept ({err})", file=sys.stderr)
        return
    if any(aa in floor.measured for aa in found):
        print(f"vtlab: this machine's A/A floor, kept for its later paired runs: up to ±{floor.share:.1%} over "
              f"{len(floor.measured)} A/A point(s), {floor.held_one} holding 1.00× ({aacache.path_for(count)})")
