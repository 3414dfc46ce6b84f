"""Repetitions of one scenario aggregated: the median with min-max over the valid reps, the 95% interval of
their mean (Student t over the reps; its ends on the log of their throughputs), the spread warning (pyperf's rule),
deterministic on ties."""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence

from vtlab.core import constants as rig_constants
from vtlab.core import dimensions, noisefloor
from vtlab.core.arms import Arms
from vtlab.explain import pairs
from vtlab.explain.model import MEASURED_NUMBERS, Aggregate, Measured, PairedPoint, Verdict
from vtlab.series import windows

# The aggregates read the run's recorded spread_warning_share (its rig); this stands in only for the report's
# sentences that have no run's record at hand (analyze.SPREAD_WARNING).
SPREAD_WARNING = rig_constants.CURRENT.spread_warning_share

# Repetitions of one scenario: rows equal in every key dimension but the repetition (the registry's).
SCENARIO = dimensions.SCENARIO_KEY


def most_common(values: Sequence[str]) -> str:
    """The most frequent value; a tie goes to the one seen first (rep order), never to a set's hash order."""
    return max(dict.fromkeys(values), key=values.count) if values else ""


def combined(every: Sequence[Verdict], rig: rig_constants.Constants, arms: Arms | None
             ) -> tuple[list[Verdict], tuple[Aggregate, ...], tuple[PairedPoint, ...]]:
    """The run's rows (`every`, failed ones too, in the CSV's order) combined both ways: a paired run's blocks paired
    across its `arms` (explain.pairs: each block the machine moved standing as its pair does), then each scenario's
    repetitions aggregated (in a paired run, one arm's blocks of a point). The rows as they stand, first."""
    stood, points = pairs.standing(every, arms, rig)
    return stood, aggregate(stood, rig), points


def aggregate(verdicts: Sequence[Verdict], rig: rig_constants.Constants) -> tuple[Aggregate, ...]:
    """One line per scenario (in order of first appearance): median with min-max over valid reps, the 95%
    interval of their mean, and the spread warning (at rig.spread_warning_share). Failed rows never reach here."""
    groups: dict[tuple[str, ...], list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        if not verdict.failed:
            groups[dimensions.key(verdict.row, SCENARIO)].append(verdict)
    return tuple(_aggregate(members, rig.spread_warning_share) for members in groups.values())


def counted_reps(members: Sequence[Verdict]) -> list[Verdict]:
    """The reps a line's figures are the median of: the valid ones, or every rep where none is valid."""
    return [m for m in members if m.valid] or list(members)


def _aggregate(members: Sequence[Verdict], spread_warning: float) -> Aggregate:
    valid = counted_reps(members)
    rps = [m.measured.throughput_rps for m in valid]
    p99 = [m.measured.p99_ms for m in valid if not math.isnan(m.measured.p99_ms)]
    median = statistics.median(rps)
    spread = (max(rps) - min(rps)) / median if median else 0.0
    walls = [m.bottleneck for m in valid]
    centre, half = interval(valid)
    low, high = bounds(rps, centre, half)
    limit, wall = most_common([m.limit for m in valid]), most_common(walls)
    # the ceiling of the limit told: reps that passed another ceiling have another limit (and ceiling) of their own
    ceiling = statistics.median(m.ceiling_rps for m in valid if m.limit == limit)
    is_valid = any(m.valid for m in members)
    flags = tuple(sorted({flag for m in members for flag in m.flags}))
    # the rep whose throughput is nearest the median (the first such) is told with every figure's median
    told = next(m for m in valid if m.measured.throughput_rps == _nearest(rps, median))
    line = dataclasses.replace(
        told, measured=_median_measured(valid, told, centre, half),
        ceiling_rps=ceiling, limit=limit, bottleneck=wall, valid=is_valid,
        # several reps: their mean's interval already holds the between-run noise; one rep keeps its floor
        noise_half_rps=half if len(valid) > 1 else told.noise_half_rps,
        flags=tuple(dict.fromkeys(flag for m in members for flag in m.flags)),  # in the order the reps raised them
        attained=median / ceiling if ceiling and not math.isinf(ceiling) else math.nan,
        **_without_generator(valid))
    return Aggregate(
        row=members[0].row, reps=len(members), valid_reps=sum(1 for m in members if m.valid),
        throughput_median=median, throughput_min=min(rps), throughput_max=max(rps),
        interval_low=low, interval_high=high,
        spread=spread, spread_warning=spread >= spread_warning and len(rps) > 1,
        p99_median=statistics.median(p99) if p99 else math.nan, ceiling_rps=ceiling, limit=limit, bottleneck=wall,
        # reps that name different walls: the line names the most common and says it was not unanimous
        bottlenecks_seen="/".join(dict.fromkeys(walls)) if len(set(walls)) > 1 else "",
        valid=is_valid, flags=flags, line=line, members=tuple(members))


def _without_generator(reps: Sequence[Verdict]) -> dict[str, float]:
    """The line's throughput without k6 on its cores and its interval: each figure's median over the reps that
    carry one (NaN where none does), as the line's other figures are."""
    names = ("without_generator_rps", "without_generator_low_rps", "without_generator_high_rps")
    values = {name: [getattr(m, name) for m in reps if not math.isnan(getattr(m, name))] for name in names}
    return {name: statistics.median(found) if found else math.nan for name, found in values.items()}


def interval(reps: Sequence[Verdict]) -> tuple[float, float]:
    """The 95% interval of the scenario's throughput, as (centre, half-width). One rep: the row's own
    within-row interval (batch means of k6's successes per second over its hold), around its throughput;
    without one (an older CSV, a hold too short for batches) the point itself, half-width 0. Several: the
    interval of the mean over the reps, Student t on their throughputs: the spread between runs, which no
    single row's interval shows."""
    if len(reps) == 1:
        ci = reps[0].measured.throughput_ci95_rps
        return reps[0].measured.throughput_rps, 0.0 if math.isnan(ci) else ci
    return mean_interval([m.measured.throughput_rps for m in reps])


def bounds(rps: Sequence[float], centre: float, half: float) -> tuple[float, float]:
    """The interval's ends from the reps' throughputs `rps` and interval() of them. One rep: its own, centre ± half.
    Several: Student t on the logs of their throughputs, carried back: a rate varies by shares of itself, and on two
    or three reps t × s reaches past the mean (t(1) = 12.7), so ends taken as mean ± half-width read a throughput
    below zero (spring-petclinic-rest, 2 blocks: 266 [−117–650] req/s); on the log they stay above it ([62–1,125])."""
    if len(rps) < 2 or not all(value > 0 for value in rps) or half == 0:  # equal reps: exp(log x) is not x exactly
        return centre - half, centre + half
    logs = [math.log(value) for value in rps]
    middle, spread = statistics.fmean(logs), windows.half_width(logs)
    return math.exp(middle - spread), math.exp(middle + spread)


def noise_half(throughput: float, ci95: float, rig: rig_constants.Constants) -> float:
    """One run's half-width for a comparison: its within-row interval, and at least the between-run noise floor.
    Not their sum: the floor's runs spread by their within-row noise too, so adding would count it twice."""
    floor = throughput * noisefloor.half_share(rig)  # NaN only in a checkout without the floor's measurement
    return max(0.0 if math.isnan(ci95) else ci95, 0.0 if math.isnan(floor) else floor)


def counted(line: Aggregate) -> int:
    """How many reps the line's figures are over: the valid ones, or every rep where none is valid."""
    return line.valid_reps or line.reps


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ≥ 2 reps' throughputs and its 95% half-width: t(n − 1) × s / √n, each rep one observation."""
    return statistics.fmean(values), windows.half_width(values)


def _nearest(values: Sequence[float], target: float) -> float:
    return min(values, key=lambda value: abs(value - target))


def _median_measured(reps: Sequence[Verdict], told: Verdict, centre: float, half: float) -> Measured:
    """Each measured figure's median over the reps (NaN where none measured it), but the throughput: the
    centre of its interval with its half-width — with several reps their mean, so that every "x ± y" told of
    the line is the interval it was computed as; one rep keeps its own. Words (pinning reasons, the write
    check) are the told rep's."""
    def median(name: str) -> float:
        values = [getattr(m.measured, name) for m in reps if not math.isnan(getattr(m.measured, name))]
        return statistics.median(values) if values else math.nan
    figures = {name: median(name) for name in MEASURED_NUMBERS}
    figures["throughput_rps"] = centre
    # one rep without a within-row interval keeps it unknown (NaN), not a measured 0
    figures["throughput_ci95_rps"] = half if len(reps) > 1 else told.measured.throughput_ci95_rps
    return dataclasses.replace(told.measured, **figures)
