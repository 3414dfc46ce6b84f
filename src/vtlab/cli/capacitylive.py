"""`vtlab capacity` on the live tiers: the search's points measured into a run folder of its own (every point a row
of it, reported as any run), capacity.json and the terminal's summary beside the report. capacity.json is written
after every point, marked incomplete until the search finishes: a search cut short (Ctrl-C, a signal, a tier that
failed) keeps every point and each bracket as it stood, with what cut it short."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from vtlab.capacity import search as searching
from vtlab.capacity import summary
from vtlab.cli import capacitypoints, flags, report, targetflags
from vtlab.core import cores
from vtlab.core.settings import RESULTS
from vtlab.measure import loop
from vtlab.plan import planner
from vtlab.results import capacityfile, table
from vtlab.rig import doctor, procs


def search(args: argparse.Namespace, target, the_plan: planner.Plan, modes: tuple[str, ...], start: int,
           settings: searching.Settings) -> int:
    """The search on the live tiers into a run folder of its own (every point a row of it, reported as any run),
    capacity.json and the terminal's summary beside the report."""
    run_dir = args.out or loop.default_run_dir(RESULTS)
    problem = ((f"--out: {run_dir} already holds a matrix.csv; give a new folder"
                if (run_dir / table.CSV_NAME).exists() else None)
               or table.why_not_writable(run_dir)
               or (targetflags.startup_problem(target) if target is not None else None))
    if problem:
        return flags.usage_error(problem)
    # each mode's JVM is sized for the most load the staircase may climb to, from its start
    peak = max(the_plan.peak_users(capacitypoints.with_load(row, args.model, args.max_load, 1))
               for row in the_plan.rows)
    the_plan = replace(the_plan, search_peak_users=peak, in_turn=args.in_turn)
    mapping = args.cpus or cores.automatic(cores.available())
    doctor.raise_open_files_limit(doctor.open_files_needed(peak, the_plan.downstream_http))
    procs.install_signal_handlers()
    measured = targetflags.measured(target, args.keep, mapping, [], False)
    points = capacitypoints.LivePoints(the_plan, measured, run_dir,
                                       max(1, round(settings.budget_s / planner.estimated_row_s(the_plan))))
    try:
        found = searched(run_dir, modes, start, points, settings, args.in_turn)
    finally:
        try:
            points.close()
        finally:
            procs.stop_all()
    report.report_and_headline(run_dir, [])
    print("\n".join(summary.lines(found)))
    print(f"capacity: {run_dir / capacityfile.NAME}")
    return 0


def searched(run_dir: Path, modes: tuple[str, ...], start: int, measure: searching.Measure,
             settings: searching.Settings, in_turn: bool = False) -> capacityfile.CapacityRun:
    """The search (every mode's at once, their points in turn, where `in_turn`), capacity.json rewritten after every
    point (incomplete) and once more where an exception cuts a point short (the exception named; then it goes on), the
    finished search's last (complete)."""
    how = searching.search_paired if in_turn else searching.search
    try:
        found = how(modes, start, measure, settings, on_point=lambda so_far: capacityfile.write(run_dir, so_far))
    except BaseException:
        if (run_dir / capacityfile.NAME).exists():
            print(f"capacity: {run_dir / capacityfile.NAME} is incomplete: the search was cut short, each bracket as "
                  "it stood", file=sys.stderr)
        raise
    capacityfile.write(run_dir, found)
    return found
