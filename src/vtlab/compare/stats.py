"""How sure a change is: each side's estimate with its standard error, their difference by Welch's t, and the verdict.

A side is one scenario of one run. Several repetitions give their mean and the standard error of it (Student t at
reps - 1). One repetition gives its value with the rig's between-run noise for that metric (the largest coefficient
of variation between runs of one point, measured in reference/noise-floor at a known count of runs) or, for the
throughput, its own batch-means interval where that is the wider. A side with neither has no interval, and a change
involving it is never called better or worse.

Fed samples with no shift (tests/compare), Welch's test calls a change in 1.9% of comparisons of 2 reps a side,
3.5% of 3, 4.3% of 5 and 4.6% of 10 at its nominal 5%: conservative with two reps, near nominal from three.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from vtlab.core.studentt import T_975

Z_975 = 1.96  # Student t with unbounded degrees of freedom: a proportion over many requests

BETTER, WORSE, SAME, UNKNOWN = "better", "worse", "~", "?"
NOT_JUDGED = "invalid"  # a side's row is flagged (too noisy, not steady, the generator interfered…): no verdict


@dataclass(frozen=True)
class Estimate:
    """A side's value: the mean, its standard error and the degrees of freedom that error has (inf: a binomial's)."""
    mean: float
    se: float
    df: float
    reps: int

    @property
    def known(self) -> bool:
        return math.isfinite(self.mean) and math.isfinite(self.se)


def of_reps(values: Sequence[float]) -> Estimate:
    """Several repetitions: their mean and its standard error. One: the value, with no error yet (see with_floor)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return Estimate(math.nan, math.nan, math.nan, 0)
    if len(finite) == 1:
        return Estimate(finite[0], math.nan, math.nan, 1)
    return Estimate(statistics.fmean(finite), statistics.stdev(finite) / math.sqrt(len(finite)), len(finite) - 1,
                    len(finite))


def with_floor(single: Estimate, cv_pct: float, runs: int, batch_half: float = math.nan) -> Estimate:
    """One repetition's error: the between-run standard deviation the floor measured (cv × value, at runs - 1
    degrees of freedom), or the row's own batch-means interval where that is the wider."""
    if single.reps != 1:
        return single
    se, df = math.nan, math.nan
    if math.isfinite(cv_pct) and runs >= 2:
        se, df = abs(single.mean) * cv_pct / 100, runs - 1
    if math.isfinite(batch_half) and batch_half > 0:
        batch_se = batch_half / Z_975  # a wide enough df that the batch interval's own t is near z
        if not math.isfinite(se) or batch_se > se:
            se, df = batch_se, (df if math.isfinite(df) else 29)
    return Estimate(single.mean, se, df, 1)


def of_proportion(failed: float, total: float) -> Estimate:
    """A share of requests (the error rate): binomial, summed over the side's repetitions. Failures come in bursts,
    so this error is a floor; a change it calls is at least that sure."""
    if not total > 0:
        return Estimate(math.nan, math.nan, math.nan, 0)
    p = failed / total
    # a side with no failure still has an error: the rule of three's 95% bound on what none in `total` allows
    se = math.sqrt(p * (1 - p) / total) if 0 < p < 1 else 3 / total / Z_975
    return Estimate(p, se, math.inf, 1)


@dataclass(frozen=True)
class Change:
    """NEW against BASE: the difference, its 95% interval, both as a share of BASE, and the verdict."""
    base: float
    new: float
    delta: float
    low: float
    high: float
    verdict: str
    why: str = ""  # what left the verdict `?` (the metric without a floor a single rep needs, and why it has none),
    # or a paired change held the same by the machine's A/A floor (compare.paired)

    @property
    def share(self) -> float:
        return self.delta / self.base if self.base else math.nan

    @property
    def share_low(self) -> float:
        return self.low / self.base if self.base else math.nan

    @property
    def share_high(self) -> float:
        return self.high / self.base if self.base else math.nan


def change(base: Estimate, new: Estimate, higher_is_better: bool, on_ratio: bool = False) -> Change:
    """Welch's t: the difference's standard error from both sides', its degrees of freedom by Welch–Satterthwaite.
    Its interval excluding 0 is a change, in the direction the metric calls better or worse; else `~`. `on_ratio`
    (a rate or a time, both sides above 0): the test is on the log of NEW ÷ BASE, each side's error relative to its
    mean, and the interval is that ratio's, so a rate's fall never reads below −100% however few the reps."""
    delta = new.mean - base.mean
    if not (base.known and new.known):
        return Change(base.mean, new.mean, delta, math.nan, math.nan, UNKNOWN)
    low, high = (_ratio_ends if on_ratio and base.mean > 0 and new.mean > 0 else _difference_ends)(base, new)
    if low <= 0 <= high:
        verdict = SAME
    else:
        verdict = BETTER if (delta > 0) == higher_is_better else WORSE
    return Change(base.mean, new.mean, delta, low, high, verdict)


def _difference_ends(base: Estimate, new: Estimate) -> tuple[float, float]:
    """NEW − BASE ± t × √(se_base² + se_new²), Welch's df (the difference itself where neither side varies)."""
    delta, variance = new.mean - base.mean, base.se ** 2 + new.se ** 2
    if variance == 0:
        return delta, delta
    half = _t(_welch_df((base.se ** 2, base.df), (new.se ** 2, new.df))) * math.sqrt(variance)
    return delta - half, delta + half


def _ratio_ends(base: Estimate, new: Estimate) -> tuple[float, float]:
    """ln(NEW ÷ BASE) ± t × √(Σ (se ÷ mean)²) by the delta method, Welch's df from the relative variances; its ends
    carried back as differences from BASE (Change keeps differences)."""
    relative = [((side.se / side.mean) ** 2, side.df) for side in (base, new)]
    variance = sum(v for v, _ in relative)
    if variance == 0:
        return new.mean - base.mean, new.mean - base.mean
    log_ratio, half = math.log(new.mean / base.mean), _t(_welch_df(*relative)) * math.sqrt(variance)
    return base.mean * math.expm1(log_ratio - half), base.mean * math.expm1(log_ratio + half)


def _welch_df(*sides: tuple[float, float]) -> float:
    """Welch–Satterthwaite's degrees of freedom of a sum of (variance, df) terms (an unbounded df adds none)."""
    total = sum(v for v, _ in sides)
    terms = [v * v / df for v, df in sides if v > 0 and math.isfinite(df)]
    if not terms:
        return math.inf
    return total ** 2 / sum(terms)


def _t(df: float) -> float:
    """Student t (two-sided 95%) at Welch's fractional degrees of freedom: the table's values interpolated linearly in
    1/df (z beyond its last), which rounding df down would overstate most where reps are few."""
    if not math.isfinite(df):
        return Z_975
    df = max(df, 1.0)
    listed = sorted(T_975)
    if df >= listed[-1]:
        low, high, t_low, t_high = listed[-1], math.inf, T_975[listed[-1]], Z_975
    else:
        low = max(k for k in listed if k <= df)
        high = min(k for k in listed if k > df)
        t_low, t_high = T_975[low], T_975[high]
    if df == low:
        return t_low
    weight = (1 / low - 1 / df) / (1 / low - (0 if math.isinf(high) else 1 / high))
    return t_low + weight * (t_high - t_low)
