"""`vtlab report`: analyse a run folder (or a re-cut of its holds) and render its report; the headline printed."""

from __future__ import annotations

import argparse
from pathlib import Path

from vtlab.cli import flags
from vtlab.core import settings
from vtlab.results import listing


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
