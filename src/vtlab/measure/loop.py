"""Run a plan on a target: every row not yet in the run's CSV measured in turn and appended, the run's metadata
written beside it. The one row loop, after hyperfine's benchmark loop over its Executor: what differs between
vtlab's own service, the user's service and a cluster lives in their targets (measure/target.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from vtlab.core import dimensions
from vtlab.core.arms import point_key
from vtlab.measure import neighbours
from vtlab.measure.progress import Progress
from vtlab.measure.csvrow import failed_row, now
from vtlab.measure.target import (OnThisMachine, Reporter, Revives, RowRefused, SetsUpLate, ShowsItsRows,
                                  TakesTurns, Target, Turn)
from vtlab.plan import blockturns
from vtlab.plan.planner import Plan, estimated_row_s
from vtlab.results import table
from vtlab.rig import procs

# The first row of a run also warms the tiers every later row finds warm (the stub's JIT, PostgreSQL's
# buffers): with the profile's warm-up alone it was the one row whose hold still climbed (pools:
# 318 -> 354 req/s between the halves; pinning: 399 -> 462).
FIRST_ROW_EXTRA_WARMUP_S = 30
# A dead tier fails its row and the run goes on with fresh tiers; this many failures in a row point at
# the machine or the setup, where going on would only fail every row.
MAX_CONSECUTIVE_FAILURES = 3


@dataclass(frozen=True)
class Outcome:
    csv: Path
    failed_rows: int  # rows of this invocation a dead tier ended


class Session:
    """A run's rows measured one at a time on a target, each appended to the run's CSV as it ends and the run's
    metadata written beside them: the fixed plan's loop (run) and a search choosing its rows as it goes (vtlab
    capacity) alike. Open it, measure rows, close it: the target is closed however the session ends."""

    def __init__(self, target: Target, plan: Plan, run_dir: Path):
        self.target, self.plan, self.run_dir = target, plan, run_dir
        self.failed = self.consecutive = 0

    def open(self) -> set[tuple[str, ...]]:
        """The target prepared and set up, the metadata written; the keys of the rows already measured (a resumed
        run's)."""
        target, plan, run_dir = self.target, self.plan, self.run_dir
        watching = neighbours.Watch() if isinstance(target, OnThisMachine) else None
        target.prepare(plan, run_dir)
        self.csv_path = run_dir / table.CSV_NAME
        self.writer = table.CsvWriter(self.csv_path)  # sets a torn last line aside
        done = table.done_keys(self.csv_path)
        self.described = target.describe()
        self.meta = {**self.described, "plan": plan.describe(), "started": now()}
        if watching is not None:
            self.meta["host_before_run"] = neighbours.before_run(watching, target.own_pids()).record()
        table.write_metadata(run_dir, self.meta)
        if isinstance(target, SetsUpLate):
            target.set_up()
        return done

    def show(self, rows: int) -> Reporter:
        """The live line, counting down `rows`."""
        self.progress = _reporter(self.target, self.plan, rows)
        return self.progress

    def measure(self, turn: Turn) -> dict[str, object] | None:
        """One row measured and appended; None where a tier died in it (its failed row appended, the tier revived
        where the target can, the run stopped after MAX_CONSECUTIVE_FAILURES in a row)."""
        target = self.target
        self.progress.begin(turn)
        try:
            values = target.measure(turn, self.progress)
        except procs.TierDied as died:
            self.writer.append(failed_row(turn.row, died))
            self._failed(died, 1)
            return None
        self.consecutive = 0
        self.writer.append(values)
        self.progress.end(values)
        self._learned()
        return values

    def measure_point(self, point: list[Turn]) -> None:
        """A paired point's blocks measured in turns (target.TakesTurns) and appended in their order; where a tier died
        in it, every block of the point is a failed row (none was kept) and the run goes on as after a failed row."""
        target = self.target
        assert isinstance(target, TakesTurns)
        try:
            rows = target.measure_point(point, self.progress)
        except procs.TierDied as died:
            for turn in point:
                self.writer.append(failed_row(turn.row, died))
            self._failed(died, len(point))
            return
        self.consecutive = 0
        for values in rows:
            self.writer.append(values)
            self.progress.end(values)
        self._learned()

    def _failed(self, died: procs.TierDied, rows: int) -> None:
        self.progress.failed(died)
        self.failed, self.consecutive = self.failed + rows, self.consecutive + 1
        if isinstance(self.target, Revives):
            if self.consecutive >= MAX_CONSECUTIVE_FAILURES:
                _stop(died, self.consecutive)
            self.target.revive(died)

    def _learned(self) -> None:
        learned = self.target.describe()  # what the row taught the target: its runtime, its meters' source
        if learned != self.described:
            self.described = learned
            self.meta.update(learned)
            table.write_metadata(self.run_dir, self.meta)

    def finish(self) -> Outcome:
        self.meta["finished"] = now()
        table.write_metadata(self.run_dir, self.meta)
        return Outcome(self.csv_path, self.failed)

    def close(self) -> None:
        self.target.close()


def run(target: Target, plan: Plan, run_dir: Path) -> Outcome:
    """Measure every row of `plan` not yet in run_dir's CSV on `target`; returns the CSV path and how many rows
    failed. The target is closed however the run ends."""
    session = Session(target, plan, run_dir)
    try:
        done = session.open()
        todo = [(position, row) for position, row in enumerate(plan.rows) if dimensions.key(row) not in done]
        progress = session.show(len(todo))
        if len(todo) < len(plan.rows):
            progress.resumed(len(plan.rows) - len(todo), len(plan.rows))
        todo_turns = [Turn(row, position, index, warmup_for(plan, first_of_its_arm(plan, todo, index)))
                      for index, (position, row) in enumerate(todo)]
        for point in points(todo_turns, plan, isinstance(target, TakesTurns)):
            if len(point) > 1:
                session.measure_point(point)
            else:
                session.measure(point[0])
        return session.finish()
    finally:
        session.close()


def points(todo: list[Turn], plan: Plan, takes_turns: bool) -> list[list[Turn]]:
    """The turns as the loop measures them: a paired point's blocks together where the target takes them in turns and
    the plan allows it (turns.fits), every other row alone."""
    if not (takes_turns and blockturns.fits(plan)):
        return [[turn] for turn in todo]
    grouped: list[list[Turn]] = []
    for turn in todo:
        if grouped and point_key(grouped[-1][0].row) == point_key(turn.row):
            grouped[-1].append(turn)
        else:
            grouped.append([turn])
    return grouped


def _reporter(target: Target, plan: Plan, rows: int) -> Reporter:
    if isinstance(target, ShowsItsRows):
        return target.reporter(rows)
    if isinstance(target, TakesTurns) and blockturns.fits(plan):  # a block in turns: its settle, hold and drain
        return Progress(rows, blockturns.bound_s(plan) / len(plan.rows))
    return Progress(rows, estimated_row_s(plan), warmup_for(plan, 0) - plan.warmup_s)


def _stop(died: procs.TierDied, consecutive: int) -> None:
    if isinstance(died, RowRefused):
        raise died.reason  # the target's own reason says more than a count (the user's service: exit 3)
    raise RuntimeError(f"{consecutive} rows in a row failed (the last: the {died.tier} {died.how}); "
                       "stopping: something is wrong with the machine or the setup, not one row") from died


def first_of_its_arm(plan: Plan, todo: list[tuple[int, dimensions.Row]], index: int) -> int:
    """The index a row's warm-up is bounded as (warmup_for): 0 for a paired plan's first row of each arm, whose JVM
    has run its pre-warm alone, as the run's first row's has; else its own. Seen on a slower machine (2026-12-02, aa1,
    aa2: `--aa virtual --conc 1000`): the arm whose first turn came second hit the 45 s bound with its compiler at
    130% of a core, and its pair was left out, while the first arm's, with the extra, settled at 60 s."""
    if plan.arms is None or index == 0:
        return index
    arm = plan.arm(todo[index][1])
    return 0 if all(plan.arm(row) != arm for _, row in todo[:index]) else index


def warmup_for(plan: Plan, index: int) -> int:
    """Unrecorded warm-up of the index-th row measured by this invocation (a resumed run restarts the
    stub, so its first row is a first row too): its upper bound when the row's warm-up ends once settled. The
    first row's extra is at most the plan's warm-up again: a plan that asks for short phases (a test, a first
    look) keeps its first row short too."""
    return plan.warmup_s + (min(FIRST_ROW_EXTRA_WARMUP_S, plan.warmup_s) if index == 0 else 0)


def default_run_dir(root: Path) -> Path:
    return root / dt.datetime.now().strftime("%Y%m%d-%H%M%S")
