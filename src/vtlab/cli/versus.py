"""`vtlab compare --service A.jar --vs B.jar`: a before/after measured as one. Both jars run in one thread mode on
warm JVMs up together, each point in interleaved blocks (a paired plan whose arms are the jars: `vtlab run` with
--vs), and the paired ratio B ÷ A answers, gated by --fail-on on throughput; written as compare.md in the run
folder beside its report, and printed."""

from __future__ import annotations

import argparse
from pathlib import Path

from vtlab.cli import run
from vtlab.compare import gate, paired
from vtlab.core.settings import RESULTS
from vtlab.results import record, table
from vtlab.results import rows as measured_rows

NAME = "compare.md"


def check(args: argparse.Namespace, conditions: tuple[gate.Condition, ...] | None) -> str | None:
    """Why the flags cannot measure a before/after (the flag named), or None."""
    if args.vs is None:
        return "--service with compare needs --vs B.jar: the build measured against it (or compare two run folders)"
    if args.base is not None or args.new or args.across:
        return "compare --service A.jar --vs B.jar measures both jars itself; give no run folders (nor --across)"
    if args.aa or args.paired:
        return f"{'--aa' if args.aa else '--paired'} with --vs: a before/after is paired already, jar against jar"
    other = [str(c) for c in conditions or () if c.metric != paired.METRIC]
    if other:
        return (f"--fail-on {', '.join(other)} with --vs: the paired design compares each block's throughput; gate "
                "it with e.g. 'throughput<-5%'")
    return None


def compare(args: argparse.Namespace, conditions: tuple[gate.Condition, ...] | None) -> int:
    """The paired run of both jars, then its points as changes, gated; exit 1 where a condition fails or a gated point
    has no ratio, the run's own code where it could not measure."""
    from vtlab.explain import analyze
    from vtlab.measure import loop

    args.out = args.out or loop.default_run_dir(RESULTS)
    code = run.cmd_run(args)
    if code == 2 or args.dry_run or not (args.out / table.CSV_NAME).exists():
        return code  # refused (a folder holding another run among the reasons), or nothing measured
    analysis = analyze.analyse(measured_rows.read(args.out / table.CSV_NAME), record.read(args.out))
    points = analysis.paired
    found = paired.changes(points, analysis.aa_floor)
    breaches = gate.breaches(conditions, found) if conditions else []
    failed = bool(breaches) or bool(conditions and paired.unknown(found))
    text = "\n".join(paired.lines(points, found, {b.scenario for b in breaches}, bool(conditions))) + "\n"
    path: Path = args.out / NAME
    path.write_text(text)
    print(text)
    print(f"comparison: {path}")
    return 1 if failed else code
