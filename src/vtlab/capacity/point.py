"""One measured point of the search and its judgement: passed or failed beyond its own uncertainty, too close to
call, or not valid. A point is what a row read back gives (`measure(mode, load)`), so the search runs as well
against a simulated service as against a live one."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from vtlab.core.objective import Condition, Objective
from vtlab.explain.validity import FOREIGN_CPU, UNSTEADY, invalidating
# the host's speed beside a point (capacity.fromrow's extra): its fixed work's median and how far it moved
from vtlab.series.holdstats import HOST_WORK, HOST_WORK_SPREAD

Z_975 = 1.96  # the binomial's two-sided 95%: many requests
# The most multiples of a point's requests measures_to_decide looks through for its error rate (a search repeats a
# point a few times: anything beyond is as good as never)
MAX_MULTIPLE = 64

PASS, FAIL, UNSURE, INVALID = "pass", "fail", "unsure", "invalid"


class Interval(NamedTuple):
    """A figure and its 95% interval; an interval of nan bounds is unknown, and decides nothing."""
    value: float
    low: float
    high: float

    @property
    def known(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)


@dataclass(frozen=True)
class PointResult:
    """What one load measured, as the search needs it: each percentile's value and interval (the row's batches),
    the failed and all requests (the error rate's binomial interval), whether the row is valid and why not, its
    wall and that wall's evidence (the row's verdict), and what Little's law put the ceiling at."""
    mode: str
    load: int
    percentiles: Mapping[str, Interval]        # objective.PERCENTILES' keys -> ms
    errors: int
    requests: int
    valid: bool = True
    flags: tuple[str, ...] = ()
    throughput_rps: float = math.nan
    wall: str = ""
    evidence: str = ""
    ceiling_rps: float = math.nan              # the lowest of the row's Little's-law ceilings
    limit: str = ""                            # which ceiling that is
    # every wall's ceiling the row computed and did not pass (thread-pool, connection-pool, cpu …; not the load's
    # own): what the staircase's model reads where the lowest ceiling is the load itself
    ceilings: Mapping[str, float] = field(default_factory=dict)
    utilisation: str = ""                      # the row's tiers as it read them: host CPU, threads, the pool
    service_time_ms: float = math.nan
    seconds: float = 0.0                       # what the point cost the budget: its warm-up, settling and hold
    measures: int = 1                          # how many measurements are pooled in it
    extra: dict = field(default_factory=dict)  # anything else the live wiring wants kept beside the point


def wilson(errors: int, requests: int) -> Interval:
    """The error rate's 95% Wilson interval: honest at no failure and at a few, where the normal one is not."""
    if requests <= 0:
        return Interval(math.nan, math.nan, math.nan)
    p, z2 = errors / requests, Z_975 ** 2
    centre = (p + z2 / (2 * requests)) / (1 + z2 / requests)
    half = Z_975 / (1 + z2 / requests) * math.sqrt(p * (1 - p) / requests + z2 / (4 * requests ** 2))
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def pooled(first: PointResult, again: PointResult) -> PointResult:
    """Two results of one load as one: their requests and failures summed, each percentile the mean of every
    measurement in them with the mean's interval — each side weighted by the measurements it holds (a third
    measurement pooled into two counts a third, not a half), the sides independent: weighted half-widths add in
    quadrature. The later verdict's wall, evidence and ceilings stand; the cost is both. The host's speed is the later
    measurement's, its spread the widest either saw (_host_moved)."""
    n = first.measures + again.measures
    wa, wb = first.measures / n, again.measures / n
    percentiles = {}
    for name in first.percentiles.keys() & again.percentiles.keys():
        a, b = first.percentiles[name], again.percentiles[name]
        value = wa * a.value + wb * b.value
        half = math.hypot(wa * (a.high - a.value), wb * (b.high - b.value))
        low_half = math.hypot(wa * (a.value - a.low), wb * (b.value - b.low))
        percentiles[name] = Interval(value, value - low_half, value + half)
    return PointResult(
        mode=again.mode, load=again.load, percentiles=percentiles, errors=first.errors + again.errors,
        requests=first.requests + again.requests, valid=first.valid and again.valid,
        flags=tuple(dict.fromkeys(first.flags + again.flags)),
        throughput_rps=(first.throughput_rps * first.measures + again.throughput_rps * again.measures) / n,
        wall=again.wall, evidence=again.evidence, ceiling_rps=again.ceiling_rps, limit=again.limit,
        ceilings=again.ceilings, utilisation=again.utilisation,
        service_time_ms=again.service_time_ms, seconds=first.seconds + again.seconds, measures=n,
        extra={**first.extra, **again.extra, HOST_WORK_SPREAD: _host_moved(first.extra, again.extra)})


def _host_moved(first: Mapping[str, object], again: Mapping[str, object]) -> float:
    """How far the host's speed moved under a point measured twice, in % of its median: the wider of the two holds'
    own spreads, or the two medians' distance apart where that is wider (a steady host in each, a different one
    between them). NaN where neither hold read it."""
    spreads = [float(extra.get(HOST_WORK_SPREAD, math.nan)) for extra in (first, again)]
    medians = [float(extra.get(HOST_WORK, math.nan)) for extra in (first, again)]
    if all(math.isfinite(median) and median > 0 for median in medians):
        spreads.append(abs(medians[0] - medians[1]) / ((medians[0] + medians[1]) / 2) * 100)
    return max((spread for spread in spreads if math.isfinite(spread)), default=math.nan)


def measures_to_decide(objective: Objective, point: PointResult) -> float:
    """How many measurements like the point's would decide it were its figures to stay where they are: the point's
    own count where it is decided, inf where nothing could (a figure on its limit, one not measured). One condition
    over its limit fails the point, so the least any of those needs decides it; otherwise every condition must hold,
    and the most any needs does."""
    over, under = [], []
    for condition in objective.conditions:
        seen = _seen(condition, point)
        if seen is None:
            return math.inf
        if seen[1]:
            return float(point.measures)  # crossed beyond doubt: decided
        if not seen[2]:
            above, needed = _to_decide(condition, point)
            (over if above else under).append(needed)
    return min(over) if over else max(under, default=float(point.measures))


def _to_decide(condition: Condition, point: PointResult) -> tuple[bool, float]:
    """Whether a condition the point straddles has its figure above the limit, and the measurements that would
    decide it. A percentile's interval narrows as √n: (half-width toward the limit ÷ the figure's distance from
    it)² × the measurements so far. The error rate's Wilson interval narrows faster near no failure (as 1/n): the
    fewest multiples of the point's requests, at its rate, whose interval decides it (up to MAX_MULTIPLE)."""
    if condition.is_errors:
        above = point.errors / point.requests > condition.limit
        for multiple in range(1, MAX_MULTIPLE + 1):
            rate = wilson(round(point.errors * multiple), point.requests * multiple)
            if rate.low > condition.limit or rate.high <= condition.limit:
                return above, float(point.measures * multiple)
        return above, math.inf
    figure = point.percentiles[condition.metric]
    distance = abs(figure.value - condition.limit)
    above = figure.value > condition.limit
    half = figure.value - figure.low if above else figure.high - figure.value
    return above, point.measures * (half / distance) ** 2 if distance > 0 else math.inf


class Judgement(NamedTuple):
    outcome: str            # PASS, FAIL, UNSURE or INVALID
    why: str                # the condition that decided it, with its figure and interval
    crossed: str = ""       # a failure's condition in words: "p99 crossed 500 ms"


def judge(objective: Objective, point: PointResult) -> Judgement:
    """A point fails when a condition's whole interval lies above its limit, passes when every condition's whole
    interval lies at or below it, and is too close to call otherwise: a figure inside its own noise decides
    nothing. An invalid point is never judged on its figures — but for one whose only fault is an unsteady hold
    and whose objective broke beyond doubt: above its capacity a queue grows through the hold (measured: platform
    threads offered 400 req/s, p99 10,068 ms against 1,500, throughput too noisy to call steady), so its rate is
    not steady because it is over capacity, and the objective it broke is broken however the rate moved.

    And for one whose only fault is CPU another took (a neighbour, the hypervisor's steal) and whose objective held
    beyond doubt: with less CPU than its own it met the objective, so with its own it meets it too. A failure there
    decides nothing (the CPU taken may be what broke it). Taken in turn, such passes were still invalid (the CPU held
    them: capacity.fromrow), twice each at 678, 564 and 514 req/s, and the virtual search fell back to 491, its p99
    1,146-1,197 ms against 1,500 (capA, 2026-12-03)."""
    if not point.valid:
        invalid = Judgement(INVALID, "not valid: " + (", ".join(point.flags) or "the row says so"))
        faults = set(invalidating(point.flags))
        if point.flags and faults and faults <= set(FOREIGN_CPU):
            seen = _judged(objective, point)
            if seen.outcome != PASS:
                return invalid
            return seen._replace(why=f"{seen.why} (with CPU taken by {', '.join(sorted(faults))}: a pass on less CPU "
                                     "than its own)")
        if not point.flags or faults - set(UNSTEADY):
            return invalid
        seen = _judged(objective, point)
        if seen.outcome != FAIL:
            return invalid
        return seen._replace(why=f"{seen.why} (its hold not steady: {', '.join(invalidating(point.flags))}, as a "
                                 "queue over capacity grows)")
    seen = _judged(objective, point)
    drifted = invalidating(point.flags)  # a valid point's: what it stands beside, measured in turn (fromrow)
    return seen._replace(why=f"{seen.why} (beside the machine's drift: {', '.join(drifted)})") if drifted else seen


def _judged(objective: Objective, point: PointResult) -> Judgement:
    """The point's figures against the objective: FAIL, PASS or UNSURE."""
    unsure, held = [], []
    for condition in objective.conditions:
        seen = _seen(condition, point)
        if seen is None:
            unsure.append(f"{condition.metric} not measured")
            continue
        figure, crossed, within = seen
        if crossed:
            return Judgement(FAIL, f"{condition.metric} {figure} above {condition.limit_text()}",
                             f"{condition.metric} crossed {condition.limit_text()}")
        if not within:
            unsure.append(f"{condition.metric} {figure} straddles {condition.limit_text()}")
        held.append(f"{condition.metric} {figure} within {condition.limit_text()}")
    if unsure:
        return Judgement(UNSURE, "; ".join(unsure))
    return Judgement(PASS, "; ".join(held))


def _seen(condition: Condition, point: PointResult) -> tuple[str, bool, bool] | None:
    """The condition's figure as words, whether it is crossed beyond doubt and whether it holds beyond doubt; None
    when the point has no interval for it."""
    if condition.is_errors:
        rate = wilson(point.errors, point.requests)
        if not rate.known:
            return None
        figure = f"{rate.value * 100:.3g}% ({point.errors} of {point.requests}, 95% {rate.low * 100:.3g}–" \
                 f"{rate.high * 100:.3g}%)"
        if condition.limit == 0:  # no failure allowed: a count, which one failure crosses and none holds
            return figure, point.errors > 0, point.errors == 0
        return figure, rate.low > condition.limit, rate.high <= condition.limit
    interval = point.percentiles.get(condition.metric)
    if interval is None or not interval.known:
        return None
    figure = f"{interval.value:.0f} ms (95% {interval.low:.0f}–{interval.high:.0f} ms)"
    return figure, interval.low > condition.limit, interval.high <= condition.limit
