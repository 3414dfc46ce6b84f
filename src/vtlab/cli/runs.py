"""`vtlab runs`: the runs under results/ (or --dir), newest first — date, profile or target, rows, valid rows,
the headline, the folder — printed, and written as DIR/index.html linking every run's report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vtlab.cli import flags
from vtlab.core import settings
from vtlab.report import runsindex
from vtlab.results import listing


def add(sub) -> None:
    command = sub.add_parser("runs", help="list the runs under results/ and write results/index.html linking their "
                                          "reports")
    command.add_argument("--dir", type=Path, metavar="DIR",
                         help="the folder the runs are in (default: results/, or $VTLAB_RESULTS)")
    command.set_defaults(func=cmd_runs)


def cmd_runs(args: argparse.Namespace) -> int:
    folder = args.dir if args.dir is not None else settings.RESULTS
    if args.dir is not None and not args.dir.is_dir():
        return flags.usage_error(f"--dir: {args.dir} is not a folder; give the folder that holds run folders "
                                 "(default: results/)")
    if not folder.is_dir():
        print(f"No runs yet: {folder} does not exist (./vtlab run measures one).")
        return 0
    found = listing.runs(folder)
    print(f"{len(found)} run(s) under {folder}, newest first:" if found else f"No runs under {folder}.")
    for run in found:
        print("\n".join(lines(run, folder)))
    index = folder / runsindex.NAME
    try:
        index.write_text(runsindex.serialise(found, folder))
    except OSError as err:
        print(f"vtlab: could not write {index} ({err.strerror})", file=sys.stderr)
        return 1
    print(f"index: {index}")
    return 0


def lines(run: listing.Run, folder: Path) -> list[str]:
    """A run as the listing prints it: its columns on one line, then its headline, a scenario a line."""
    words = runsindex.cells(run, folder)
    rows = f"{run.rows} row" + ("" if run.rows == 1 else "s")
    valid = f"{words['valid']} valid" if run.valid_rows is not None else words["valid"]
    return ["  ".join([words["date"], words["measured"], f"{rows}, {valid}", str(run.folder)]),
            *(f"    {line}" for line in runsindex.headline(run))]
