"""The search for one thread mode's capacity: a geometric staircase up from the first load until the objective
breaks (down, when the first load already breaks it), then bisection between the last pass and the first load
that did not pass, until the bracket is within the precision, the load cannot be cut finer, or the budget is spent.

Every point comes from one callable, `measure(mode, load) -> PointResult` (live: a row run and read back; in
tests: a simulated service). A point decides only beyond its own noise: one too close to call is measured again
(a bounded number of times, pooled) while its figures' distance from the limit says the repeats left could decide
it, and one still too close stays the bracket's upper edge, said so, never taken for a pass. An invalid point is
measured once more; invalid again, it decides nothing, but the search looks below it (the geometric middle between
the last pass and it, never at or above it again) and says why; the search stops there only where nothing has
passed yet, or where the last pass lies within the precision below it.

Up the staircase, a model may move a step, never decide one: where the passing points' walls predict a capacity
more than a step above the last pass (capacity.prediction.ahead), the next load is most of the way to it rather than
one step; where they predict one within a step, the next load is that wall, not past it (a load beyond the wall
queues through its hold: cap7's ×2 from 1,324 to 2,648 req/s, past a CPU wall its passes put at 1,811-2,179,
stalled twice). Between a pass and an open search's lowest failure, the middle is taken toward what that failure
served where it carried less than it was offered (1,682 of 1,872 req/s: the service carries no more at a higher
rate). Where the edges' figures both lie near the limit (within ×3), the middle is aimed beside the load where a
line through them (log-log) crosses it: a gentle p99 (the third-party app's, 63 ms at 564 req/s to 134 at 933
against 100) leaves a wide band of loads too close to call around the crossing, and geometric middles spent the
budget inside it. Every load is still measured and judged like any other, and only measured loads are the
bracket's edges.

The search reports what it has found after every point (`on_point`, a CapacityRun marked incomplete), and once more
when a point is cut short by an exception (Ctrl-C, a signal, a tier that failed) before the exception goes on: the live
command writes each to capacity.json, so a search that never finishes keeps its bracket as it stood."""

from __future__ import annotations

import contextlib
import math
import signal
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

from vtlab.capacity import prediction
from vtlab.capacity.point import (FAIL, INVALID, PASS, UNSURE, Judgement, PointResult, judge, measures_to_decide,
                                  pooled, wilson)
from vtlab.core.objective import Objective
from vtlab.results.capacityfile import CapacityRun, ModeCapacity, PointRecord
from vtlab.series.holdstats import HOST_WORK, HOST_WORK_SPREAD

Measure = Callable[[str, int], PointResult]
Budget = float | Callable[[], float]  # a mode's seconds, or what its share is as the search goes (search_paired)
OnPoint = Callable[[CapacityRun], None]
Progress = Callable[[ModeCapacity], None]
UNITS = {"open": "req/s", "closed": "users"}
# An aimed load keeps this share of the bracket's width (in log) from either edge (_middle)
AIM_MARGIN = 0.2


@dataclass(frozen=True)
class Settings:
    objective: Objective
    model: str = "open"
    precision: float = 0.05     # the bracket wanted: (high - low) / low
    budget_s: float = 900.0     # for every mode together
    factor: float = 2.0         # the staircase's step
    # measurements more of a point too close to call, while its figures' distance from the limit says the rest could
    # decide it (point.measures_to_decide): a figure on its limit is left the bracket's edge at once
    repeats: int = 3
    max_points: int = 40        # a mode's points at most, whatever they cost (a service that never breaks)
    max_load: int = 0           # the staircase climbs no higher (the live JVM is sized for it); 0: no bound
    # A step up goes this share of the way to the capacity the passing points' walls predict, where that is more than
    # a step above the last pass: short of it, so a model that predicts well gives a pass to step on from; 0: never
    lead: float = 0.8
    host_work_unit: str = ""    # what the points' host speed is read in (measure.hostwork.UNIT), kept in capacity.json


def search(modes: Sequence[str], start: int, measure: Measure, settings: Settings,
           on_point: OnPoint | None = None) -> CapacityRun:
    """Each mode's capacity in turn; each gets an equal share of the budget left when it starts, so a mode that
    finishes early leaves its rest to the next. `on_point` hears the run so far after every point (incomplete)."""
    found: list[ModeCapacity] = []
    progress = None
    if on_point is not None:
        def progress(so_far: ModeCapacity) -> None:
            on_point(_run(settings, (*found, so_far), complete=False))
    for number, mode in enumerate(modes):
        left = settings.budget_s - sum(m.spent_s for m in found)
        found.append(search_mode(mode, start, measure, settings, left / (len(modes) - number), progress))
        if on_point is not None and number < len(modes) - 1:
            on_point(_run(settings, tuple(found), complete=False))  # a mode done, the next not begun
    return _run(settings, tuple(found), complete=True)


def search_paired(modes: Sequence[str], start: int, measure: Measure, settings: Settings,
                  on_point: OnPoint | None = None) -> CapacityRun:
    """Every mode's search at once, their points taken in turn (one of each mode's a round, in `modes`' order and then
    the other way round, while more than one is searching), so that a machine whose speed moves over the search
    moves every mode's points alike; each mode searching gets an equal share of what the modes done left of the
    budget, as search() hands a mode's rest to the next: a thread-pool wall found in a few points leaves its rest to
    a CPU-bound search still climbing (three paired runs' virtual searches each stopped at half the budget with 17-61%
    brackets, 2026-12-03). `on_point` hears the run so far after every point. A point cut short by an exception is
    told by every mode's search, as far as it got, before the exception goes on."""
    latest: dict[str, ModeCapacity] = {}
    done: dict[str, float] = {}  # each finished mode's spending

    def share() -> float:
        return (settings.budget_s - sum(done.values())) / (len(modes) - len(done))

    def heard(so_far: ModeCapacity) -> None:
        latest[so_far.mode] = so_far
        if on_point is not None:
            on_point(_run(settings, tuple(latest[mode] for mode in modes if mode in latest), False, True))
    walks = {mode: walk_mode(mode, start, settings, share, heard) for mode in modes}
    loads: dict[str, int] = {}
    for mode, walking in walks.items():
        _advance(walking, mode, None, loads, latest, done)
    rounds = 0
    while loads:
        turn = modes if rounds % 2 == 0 else modes[::-1]  # ABBA: neither mode always a point later than the other
        rounds += 1
        for mode in [mode for mode in turn if mode in loads]:
            try:
                result = measure(mode, loads.pop(mode))
            except BaseException as err:
                for other in [other for other in modes if other in loads]:
                    with contextlib.suppress(BaseException):  # each says how far it got; the first error goes on
                        walks[other].throw(err)
                walks[mode].throw(err)
                raise
            _advance(walks[mode], mode, result, loads, latest, done)
    return _run(settings, tuple(latest[mode] for mode in modes), True, True)


def _advance(walking: Walking, mode: str, result: PointResult | None, loads: dict[str, int],
             latest: dict[str, ModeCapacity], done: dict[str, float]) -> None:
    """The walk handed `result` (None: started): its next load into `loads`, or its outcome into `latest` and what it
    spent into `done`."""
    try:
        loads[mode] = next(walking) if result is None else walking.send(result)
    except StopIteration as finished:
        latest[mode] = finished.value
        done[mode] = finished.value.spent_s


def _run(settings: Settings, modes: tuple[ModeCapacity, ...], complete: bool, in_turn: bool = False) -> CapacityRun:
    return CapacityRun(str(settings.objective), settings.model, UNITS[settings.model], settings.precision,
                       settings.budget_s, modes, complete, in_turn, settings.host_work_unit)


class _Walk:
    """One mode's search as it goes: the points measured, the budget spent, the bracket's edges."""

    def __init__(self, mode: str, settings: Settings, budget_s: Budget) -> None:
        self.mode, self.settings = mode, settings
        self._budget = budget_s if callable(budget_s) else lambda: budget_s
        self.records: list[PointRecord] = []
        self.spent = self.latest = 0.0
        self.low: tuple[int, PointResult] | None = None                 # the highest load that passed
        self.high: tuple[int, Judgement, PointResult] | None = None     # the lowest that did not
        self.lowest_fail: tuple[int, Judgement, PointResult] | None = None
        self.unmeasured: tuple[int, Judgement] | None = None  # the lowest load invalid twice: looked for below it
        self.passed: list[PointResult] = []                             # what the model is fitted to

    def affordable(self) -> bool:
        # the latest point's cost as the next one's price (a point begun is a point paid in full): a mode's later
        # points run on its warm JVM, where the first paid the JVM's start and the JIT's warm-up besides
        return len(self.records) < self.settings.max_points and self.spent + self.latest <= self.budget_s

    @property
    def budget_s(self) -> float:
        """The mode's budget as it stands: fixed, or its share of what the modes done left (search_paired)."""
        return self._budget()

    def _measured(self, load: int) -> Generator[int, PointResult, PointResult]:
        result = yield load
        self.spent += result.seconds
        self.latest = result.seconds
        return result

    def point(self, load: int) -> Generator[int, PointResult, tuple[Judgement, PointResult] | None]:
        """The load measured and judged: an invalid point once more, one too close to call again (pooled) up to
        the bound while the budget allows and its figures say the repeats left could decide it. None when the budget
        holds no further point."""
        if not self.affordable():
            return None
        result = yield from self._measured(load)
        verdict = judge(self.settings.objective, result)
        if verdict.outcome == INVALID and self.affordable():
            self.records.append(record(result, verdict))
            result = yield from self._measured(load)
            verdict = judge(self.settings.objective, result)
        for _ in range(self.settings.repeats):
            if verdict.outcome != UNSURE or not self.affordable():
                break
            if measures_to_decide(self.settings.objective, result) > 1 + self.settings.repeats:
                break  # the repeats left could not decide it: the budget goes to another load
            again = yield from self._measured(load)
            if not again.valid:  # an invalid measurement is never pooled into a valid one
                self.records.append(record(again, judge(self.settings.objective, again)))
                break
            result = pooled(result, again)
            verdict = judge(self.settings.objective, result)
        self.records.append(record(result, verdict))
        return verdict, result

    def settle(self, load: int, verdict: Judgement, result: PointResult) -> None:
        """The bracket's edges after a decided (or still undecided) point."""
        if verdict.outcome == PASS:
            self.passed.append(result)
            if self.low is None or load > self.low[0]:
                self.low = (load, result)
            return
        if self.high is None or load < self.high[0]:
            self.high = (load, verdict, result)
        if verdict.outcome == FAIL and (self.lowest_fail is None or load < self.lowest_fail[0]):
            self.lowest_fail = (load, verdict, result)


def search_mode(mode: str, start: int, measure: Measure, settings: Settings, budget_s: float,
                progress: Progress | None = None) -> ModeCapacity:
    """One mode's capacity, its bracket and why the search stopped; `progress` hears the mode so far after every
    point, and where a point is cut short by an exception, once more before the exception goes on."""
    walking = walk_mode(mode, start, settings, budget_s, progress)
    try:
        load = next(walking)
        while True:
            try:
                result = measure(mode, load)
            except BaseException as err:
                walking.throw(err)  # the walk says how far it got, and raises it again
                raise
            load = walking.send(result)
    except StopIteration as done:
        return done.value


# A mode's search as a generator: it yields each load it wants measured, is sent that load's PointResult, and returns
# the mode's capacity; search_mode measures its loads one after the other, search_paired takes the modes in turn.
Walking = Generator[int, PointResult, ModeCapacity]


def walk_mode(mode: str, start: int, settings: Settings, budget_s: Budget,
              progress: Progress | None = None) -> Walking:
    """One mode's search, its loads asked for one at a time (Walking); `progress` as for search_mode. An exception
    thrown in at a load (the measurement cut short) is told to `progress`, then goes on."""
    walk = _Walk(mode, settings, budget_s)
    try:
        stop = yield from _walked(walk, start, progress)
    except GeneratorExit:  # closed unfinished (its search given up): nothing was cut short that it should tell
        raise
    except BaseException as err:
        if progress is not None:
            progress(_outcome(walk, f"interrupted after {len(walk.records)} point(s): {_interruption(err)}"))
        raise
    return _outcome(walk, stop)


def _walked(walk: _Walk, start: int, progress: Progress | None) -> Generator[int, PointResult, str]:
    """The points measured until the search stops; why it stopped."""
    settings, unit = walk.settings, UNITS[walk.settings.model]
    load: int | None = max(1, start)
    stop = ""
    while not stop:
        got = yield from walk.point(load)
        if got is None:
            return f"budget spent ({walk.spent / 60:.1f} of {walk.budget_s / 60:.1f} min for {walk.mode})"
        verdict, result = got
        if verdict.outcome == INVALID:
            if walk.low is None:
                return f"{load} {unit} invalid twice ({verdict.why}): stopped, the bracket as it stood"
            walk.unmeasured = (load, verdict)  # above the last pass: the search looks below it
        else:
            walk.settle(load, verdict, result)
        if progress is not None:
            # what stands if nothing more is heard: a search killed where it could not say so
            progress(_outcome(walk, f"interrupted after {len(walk.records)} point(s)"))
        predicted = prediction.ahead(walk.passed, settings.model) if walk.high is None else math.nan
        crossing = (prediction.crossing(settings.objective, walk.low[1], walk.high[2])
                    if walk.low is not None and walk.high is not None else math.nan)
        load, stop = next_load(walk.low[0] if walk.low else None, walk.high[0] if walk.high else None, settings,
                               unit, predicted, walk.unmeasured[0] if walk.unmeasured else None, _served(walk),
                               crossing)
    if walk.unmeasured is not None:
        stop += f"; {walk.unmeasured[0]} {unit} invalid twice ({walk.unmeasured[1].why}): nothing decided there"
    return stop


def _served(walk: _Walk) -> float:
    """What the lowest failing load served (req/s), where the next middle is taken below it; nan in a closed search
    (users, not a rate), without one, or where a load invalid twice lies below it (an invalid row's rate may be the
    generator's, not the service's: it moves nothing)."""
    if walk.settings.model != "open" or walk.high is None:
        return math.nan
    if walk.unmeasured is not None and walk.unmeasured[0] < walk.high[0]:
        return math.nan
    return walk.high[2].throughput_rps


def _interruption(err: BaseException) -> str:
    """What cut the search short, in words."""
    if isinstance(err, KeyboardInterrupt):
        return "Ctrl-C"
    # the rig's signal handlers exit with the shell's code for a signal: 128 + its number
    if isinstance(err, SystemExit) and isinstance(err.code, int) and err.code > 128:
        try:
            return f"signal {signal.Signals(err.code - 128).name}"
        except ValueError:
            pass
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def next_load(low: int | None, high: int | None, settings: Settings, unit: str,
              predicted: float = math.nan, unmeasured: int | None = None,
              served: float = math.nan, crossing: float = math.nan) -> tuple[int | None, str]:
    """The next load to measure, or why there is none: up the staircase (a step; most of the way to the `predicted`
    capacity where that lies more than a step above the last pass, never beyond it; the predicted capacity itself
    where that lies within a step, but never closer than twice the precision above the last pass), down it (the
    first load broke the objective), or the bracket's geometric middle; never at or above a load `unmeasured`
    (invalid twice above the last pass): below it, the middle between the last pass and it. A middle is taken
    toward the rate the lowest failure `served` where that lies between the last pass and it, or aimed beside the
    load where the figures put the objective's `crossing` (`_middle`)."""
    if low is None:
        if high <= 1:
            return None, f"the objective does not hold at 1 {unit}"
        return max(1, math.floor(high / settings.factor)), ""
    if unmeasured is not None and (high is None or unmeasured < high):
        if (unmeasured - low) / low <= settings.precision:
            return None, f"the last pass within {settings.precision * 100:g}% of a load that could not be measured"
        middle = round(math.sqrt(low * unmeasured))
        return (middle, "") if low < middle < unmeasured else (None, f"at the load's resolution (1 {unit})")
    if high is None:
        if settings.max_load and low >= settings.max_load:
            return None, f"the objective holds at the most load searched ({settings.max_load} {unit}, --max-load)"
        up = max(low + 1, round(low * settings.factor))
        if settings.lead > 0 and predicted > low * settings.factor:
            up = min(max(up, math.floor(predicted * settings.lead)), math.floor(predicted))
        elif settings.lead > 0 and predicted > low:
            # the wall within a step: measured at it, not past it; a wall within the precision of the last pass (a
            # model that keeps under-predicting) is stepped past by twice the precision, so it cannot creep
            up = max(low + 1, min(up, max(math.floor(predicted), round(low * (1 + 2 * settings.precision)))))
        return (min(up, settings.max_load) if settings.max_load else up), ""
    if (high - low) / low <= settings.precision:
        return None, f"bracket within {settings.precision * 100:g}%"
    middle = _middle(low, high, served, settings.precision, crossing)
    if not low < middle < high:
        return None, f"bracket at the load's resolution (1 {unit})"
    return middle, ""


def _middle(low: int, high: int, served: float, precision: float, crossing: float = math.nan) -> int:
    """The geometric middle of the last pass and the lowest failure — of the last pass and the rate that failure
    served, where it carried less than it was offered and more than the precision above the last pass: a rate its
    service could not carry in full bounds the capacity by what it carried. Within the precision of that rate the
    middle is the bracket's again, so a search never creeps toward it.

    Where a `crossing` the edges' figures put (prediction.crossing) lies below that top and the two are further
    apart than two precisions, the load is aimed beside the crossing, not at it (a load whose figure sits on the
    limit is too close to call, and a gentle curve's near loads are the dearest to decide): half a precision below
    it, or above it where the top lies further from that side than the last pass from its own, so that each
    decided point leaves the bracket close to the precision around the crossing. Never within a fifth of the
    bracket (in log) of either edge, so that a crossing misplaced by a curved figure still cuts a fifth of the
    bracket whichever way its point is decided; an aim that rounds onto an edge is the middle's again."""
    top = served if math.isfinite(served) and low * (1 + precision) < served < high else high
    if low < crossing < top and top / low > (1 + precision) ** 2:
        side = math.sqrt(1 + precision)
        below, above = crossing / side, crossing * side
        aimed = below if math.log(below / low) >= math.log(top / above) else above
        margin = (top / low) ** AIM_MARGIN
        load = round(min(max(aimed, low * margin), top / margin))
        if low < load < high:
            return load
    return round(math.sqrt(low * top))


def _outcome(walk: _Walk, stop: str) -> ModeCapacity:
    low = walk.low[0] if walk.low else math.nan
    high = walk.high[0] if walk.high else math.nan
    if walk.high is not None and walk.high[1].outcome == UNSURE:
        stop += f"; {walk.high[0]} too close to call ({walk.high[1].why}): the bracket's upper edge"
    crossed_load, crossed, wall, evidence, utilisation = math.nan, "", "", "", ""
    if walk.lowest_fail is not None:
        crossed_load, verdict, result = walk.lowest_fail
        crossed, wall, evidence, utilisation = verdict.crossed, result.wall, result.evidence, result.utilisation
    fit = prediction.little(walk.passed, low, walk.settings.model, walk.settings.objective)
    return ModeCapacity(walk.mode, low, low, high, stop, crossed, wall, evidence, crossed_load, tuple(walk.records),
                        fit, walk.spent, prediction.usl(walk.passed, low, walk.settings.model), utilisation)


def record(result: PointResult, verdict: Judgement) -> PointRecord:
    """The point as capacity.json keeps it: every objective figure with its interval."""
    figures = {name: list(interval) for name, interval in result.percentiles.items()}
    figures["errors"] = list(wilson(result.errors, result.requests))
    return PointRecord(result.load, verdict.outcome, verdict.why, result.throughput_rps, figures, result.errors,
                       result.requests, result.flags, result.wall, result.evidence, result.seconds, result.measures,
                       result.utilisation, result.extra.get("k6_ms_per_req", math.nan),
                       result.extra.get(HOST_WORK, math.nan), result.extra.get(HOST_WORK_SPREAD, math.nan))
