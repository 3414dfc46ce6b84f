"""The search for one thread mode's capacity: a geometric staircase up from the first load until the objective
breaks (down, when the first load already breaks it), then bisection between the last pass and the first load
that did not pass, until the bracket is within the precision, the load cannot be cut finer, or the budget is spent.

Every point comes from one callable, `measure(mode, load) -> PointResult` (live: a row run and read back; in
tests: a simulated service). A point decides only beyond its own noise: one too close to call is measured again
(a bounded number of times, pooled), and one still too close stays the bracket's upper edge, said so, never
taken for a pass. An invalid point is measured once more; invalid again, the search stops and says why."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vtlab.capacity import prediction
from vtlab.capacity.point import FAIL, INVALID, PASS, UNSURE, Judgement, PointResult, judge, pooled, wilson
from vtlab.core.objective import Objective
from vtlab.results.capacityfile import CapacityRun, ModeCapacity, PointRecord

Measure = Callable[[str, int], PointResult]
UNITS = {"open": "req/s", "closed": "users"}


@dataclass(frozen=True)
class Settings:
    objective: Objective
    model: str = "open"
    precision: float = 0.05     # the bracket wanted: (high - low) / low
    budget_s: float = 900.0     # for every mode together
    factor: float = 2.0         # the staircase's step
    repeats: int = 2            # measurements more of a point too close to call
    max_points: int = 40        # a mode's points at most, whatever they cost (a service that never breaks)
    max_load: int = 0           # the staircase climbs no higher (the live JVM is sized for it); 0: no bound


def search(modes: Sequence[str], start: int, measure: Measure, settings: Settings) -> CapacityRun:
    """Each mode's capacity in turn; each gets an equal share of the budget left when it starts, so a mode that
    finishes early leaves its rest to the next."""
    found: list[ModeCapacity] = []
    for number, mode in enumerate(modes):
        left = settings.budget_s - sum(m.spent_s for m in found)
        found.append(search_mode(mode, start, measure, settings, left / (len(modes) - number)))
    return CapacityRun(str(settings.objective), settings.model, UNITS[settings.model], settings.precision,
                       settings.budget_s, tuple(found))


class _Walk:
    """One mode's search as it goes: the points measured, the budget spent, the bracket's edges."""

    def __init__(self, mode: str, measure: Measure, settings: Settings, budget_s: float) -> None:
        self.mode, self.measure, self.settings, self.budget_s = mode, measure, settings, budget_s
        self.records: list[PointRecord] = []
        self.spent = self.latest = 0.0
        self.low: tuple[int, PointResult] | None = None                 # the highest load that passed
        self.high: tuple[int, Judgement, PointResult] | None = None     # the lowest that did not
        self.lowest_fail: tuple[int, Judgement, PointResult] | None = None
        self.passed: list[PointResult] = []                             # what the model is fitted to

    def affordable(self) -> bool:
        # the latest point's cost as the next one's price (a point begun is a point paid in full): a mode's later
        # points run on its warm JVM, where the first paid the JVM's start and the JIT's warm-up besides
        return len(self.records) < self.settings.max_points and self.spent + self.latest <= self.budget_s

    def _measured(self, load: int) -> PointResult:
        result = self.measure(self.mode, load)
        self.spent += result.seconds
        self.latest = result.seconds
        return result

    def point(self, load: int) -> tuple[Judgement, PointResult] | None:
        """The load measured and judged: an invalid point once more, one too close to call again (pooled) up to
        the bound while the budget allows. None when the budget holds no further point."""
        if not self.affordable():
            return None
        result = self._measured(load)
        verdict = judge(self.settings.objective, result)
        if verdict.outcome == INVALID and self.affordable():
            self.records.append(record(result, verdict))
            result = self._measured(load)
            verdict = judge(self.settings.objective, result)
        for _ in range(self.settings.repeats):
            if verdict.outcome != UNSURE or not self.affordable():
                break
            again = self._measured(load)
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


def search_mode(mode: str, start: int, measure: Measure, settings: Settings, budget_s: float) -> ModeCapacity:
    """One mode's capacity, its bracket and why the search stopped."""
    walk = _Walk(mode, measure, settings, budget_s)
    load: int | None = max(1, start)
    unit = UNITS[settings.model]
    stop = ""
    while not stop:
        got = walk.point(load)
        if got is None:
            stop = f"budget spent ({walk.spent / 60:.1f} of {budget_s / 60:.1f} min for {mode})"
            break
        verdict, result = got
        if verdict.outcome == INVALID:
            stop = f"{load} {unit} invalid twice ({verdict.why}): stopped, the bracket as it stood"
            break
        walk.settle(load, verdict, result)
        load, stop = next_load(walk.low[0] if walk.low else None, walk.high[0] if walk.high else None, settings,
                               unit)
    return _outcome(walk, stop)


def next_load(low: int | None, high: int | None, settings: Settings, unit: str) -> tuple[int | None, str]:
    """The next load to measure, or why there is none: up the staircase, down it (the first load broke the
    objective), or the bracket's geometric middle."""
    if low is None:
        if high <= 1:
            return None, f"the objective does not hold at 1 {unit}"
        return max(1, math.floor(high / settings.factor)), ""
    if high is None:
        if settings.max_load and low >= settings.max_load:
            return None, f"the objective holds at the most load searched ({settings.max_load} {unit}, --max-load)"
        up = max(low + 1, round(low * settings.factor))
        return (min(up, settings.max_load) if settings.max_load else up), ""
    if (high - low) / low <= settings.precision:
        return None, f"bracket within {settings.precision * 100:g}%"
    middle = round(math.sqrt(low * high))
    if not low < middle < high:
        return None, f"bracket at the load's resolution (1 {unit})"
    return middle, ""


def _outcome(walk: _Walk, stop: str) -> ModeCapacity:
    low = walk.low[0] if walk.low else math.nan
    high = walk.high[0] if walk.high else math.nan
    if walk.high is not None and walk.high[1].outcome == UNSURE:
        stop += f"; {walk.high[0]} too close to call ({walk.high[1].why}): the bracket's upper edge"
    crossed_load, crossed, wall, evidence = math.nan, "", "", ""
    if walk.lowest_fail is not None:
        crossed_load, verdict, result = walk.lowest_fail
        crossed, wall, evidence = verdict.crossed, result.wall, result.evidence
    fit = prediction.little(walk.passed, low, walk.settings.model, walk.settings.objective)
    return ModeCapacity(walk.mode, low, low, high, stop, crossed, wall, evidence, crossed_load, tuple(walk.records),
                        fit, walk.spent, prediction.usl(walk.passed, low, walk.settings.model))


def record(result: PointResult, verdict: Judgement) -> PointRecord:
    """The point as capacity.json keeps it: every objective figure with its interval."""
    figures = {name: list(interval) for name, interval in result.percentiles.items()}
    figures["errors"] = list(wilson(result.errors, result.requests))
    return PointRecord(result.load, verdict.outcome, verdict.why, result.throughput_rps, figures, result.errors,
                       result.requests, result.flags, result.wall, result.evidence, result.seconds, result.measures)
