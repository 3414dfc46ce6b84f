"""vtlab capacity's points measured live: each a normal row of the run folder (CSV, series, verdict, report), run by
the one row loop's session on the target `vtlab run` would measure, and read back as the search's point.

A mode's points run as the steps of one warm service JVM, in the order the search asks for them (a bisection point
may follow a larger one: the JVM is sized for the search's largest load from its start, and what a larger load left
behind is idle request threads and a grown heap, neither of which serves a request more slowly). A point measured
again (too close to call, or invalid once) is a repetition on the same warm JVM (Plan.family): a fresh one would
spend a warm-up of the JIT, and the next point another, on a second look at one figure."""

from __future__ import annotations

import math
import time
from dataclasses import replace
from pathlib import Path

from vtlab.capacity import fromrow
from vtlab.capacity.point import PointResult
from vtlab.core import dimensions, shapes
from vtlab.core.dimensions import Row
from vtlab.measure import loop
from vtlab.measure.target import Target, Turn
from vtlab.plan import planner

# A later point on its mode's warm JVM whose warm-up cannot settle (the open model's hold begins at a time fixed
# before k6 starts): the JIT was warmed by the points before it, so its warm-up only has to let the new rate's queue
# form — a few of the row's designed waits (STEP_WAITS × Plan.wait_s: 1 s downstream, 10 s; the frontier's 8 s, 24 s),
# and never under STEP_WARMUP_S where nothing of the rig's waits (the user's service). It was a fixed 15 s: 15 waits
# at 1 s, under two at 8 s; a step is a third of a point's cost at 20 s holds, and the points left for bisection
# are what narrows a bracket within the budget.
STEP_WARMUP_S = 10
STEP_WAITS = 3
# A valid point measured again right after itself (too close to call): its JVM has served this very rate up to a few
# seconds ago, so only the queue the pause between the two k6 runs drained must form again. Each repeat
# is what narrows a figure near the limit; at the step's warm-up it cost 44 s for 20 s of hold (captp3's six).
REPEAT_WARMUP_S = 5


def with_load(template: Row, model: str, load: int, rep: int) -> Row:
    """The template row at `load`: users (closed model), or a rate with the users k6 needs to carry it (open)."""
    if model == "open":
        return replace(template, target_rps=load, concurrency=shapes.vus_for("open", 0, load), rep=rep)
    return replace(template, concurrency=load, rep=rep)


def warmup_for(plan: planner.Plan, measured: list[Row], row: Row, previous_valid: bool = True) -> int:
    """The point's unrecorded warm-up: a fresh JVM's (the first point of a mode) or a settling one's (the closed
    model's steady users settle by themselves); a repeat's, of a valid point measured just before it (too close to
    call; not where another mode's point came between, its queue long drained); else a step's — after an invalid one
    too, whose queue may have grown past the rate's own."""
    mine = [done for done in measured if plan.family(done) == plan.family(row)]
    if not mine or plan.settles(row):
        return loop.warmup_for(plan, len(measured))
    if previous_valid and mine[-1] is measured[-1] and replace(mine[-1], rep=row.rep) == row:
        return REPEAT_WARMUP_S
    return max(STEP_WARMUP_S, math.ceil(STEP_WAITS * plan.wait_s(row)))


class LivePoints:
    """`measure(mode, load) -> PointResult` on the live tiers; open on the first point, closed by close()."""

    def __init__(self, plan: planner.Plan, target: Target, run_dir: Path, expected_points: int):
        self.plan, self.run_dir, self.expected = plan, run_dir, expected_points
        self.session = loop.Session(target, plan, run_dir)
        self.templates = {row.thread_mode: row for row in plan.rows}
        self.measured: list[Row] = []
        self.previous_valid = True
        self.opened = False

    def __call__(self, mode: str, load: int) -> PointResult:
        if not self.opened:
            self.session.open()
            self.session.show(self.expected)
            self.opened = True
        template = self.templates[mode]
        rep = 1 + sum(1 for row in self.measured
                      if row.thread_mode == mode and with_load(row, self.plan.model, load, row.rep) == row)
        row = with_load(template, self.plan.model, load, rep)
        index = len(self.measured)
        started = time.monotonic()
        self.session.measure(Turn(row, index, index, warmup_for(self.plan, self.measured, row, self.previous_valid)))
        self.measured.append(row)
        found = fromrow.point(self.run_dir, dimensions.slug(row), mode, load, time.monotonic() - started,
                              self.plan.in_turn)
        self.previous_valid = found.valid
        return found

    def close(self) -> None:
        """The run's metadata finished (where a point was measured) and the target closed."""
        try:
            if self.opened:
                self.session.finish()
        finally:
            self.session.close()
