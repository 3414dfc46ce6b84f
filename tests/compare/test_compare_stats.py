"""The comparison's statistics fed known distributions: with no shift it calls a change about as often as its 95%
level allows (and no more), with a real one it finds it, in the right direction."""

import math
import random

import pytest

from vtlab.compare import stats
from vtlab.compare.stats import Estimate, change, of_proportion, of_reps, with_floor

TRIALS = 2000


def _verdicts(rng, reps, shift, sd=50.0, mean=1000.0, higher_is_better=True):
    found = []
    for _ in range(TRIALS):
        base = of_reps([rng.gauss(mean, sd) for _ in range(reps)])
        new = of_reps([rng.gauss(mean * (1 + shift), sd) for _ in range(reps)])
        found.append(change(base, new, higher_is_better).verdict)
    return found


def test_reps_without_a_shift_call_a_change_near_the_nominal_five_percent():
    for reps in (2, 3, 5, 10):
        verdicts = _verdicts(random.Random(reps), reps, 0.0)
        alarms = sum(v != stats.SAME for v in verdicts) / TRIALS
        # 2,000 trials: the binomial's own 95% range around 5% is about ±1 point. Welch's test is conservative with
        # two reps a side (its df falls between 1 and 2): fewer false alarms, never more
        assert (0.005 if reps == 2 else 0.025) <= alarms <= 0.075, (reps, alarms)
        # no shift: better and worse equally likely
        assert abs(verdicts.count(stats.BETTER) - verdicts.count(stats.WORSE)) < 0.04 * TRIALS


def test_a_real_drop_in_throughput_is_found_and_called_worse():
    verdicts = _verdicts(random.Random(7), 5, -0.20)
    assert verdicts.count(stats.WORSE) / TRIALS > 0.9
    assert stats.BETTER not in verdicts
    # the same drop in a metric where lower is better (a latency falling) is better
    faster = _verdicts(random.Random(8), 5, -0.20, higher_is_better=False)
    assert faster.count(stats.BETTER) / TRIALS > 0.9


def test_single_reps_are_judged_by_the_floor_and_stay_at_or_below_the_nominal_rate():
    rng = random.Random(11)
    cv_pct, runs = 2.75, 5  # the rig's measured floor: its sd is the runs' own
    alarms = 0
    for _ in range(TRIALS):
        a = with_floor(of_reps([rng.gauss(1000, 27.5)]), cv_pct, runs)
        b = with_floor(of_reps([rng.gauss(1000, 27.5)]), cv_pct, runs)
        alarms += change(a, b, True).verdict != stats.SAME
    assert alarms / TRIALS <= 0.05
    # a 15% drop, several floors wide, is found
    found = sum(change(with_floor(of_reps([rng.gauss(1000, 27.5)]), cv_pct, runs),
                       with_floor(of_reps([rng.gauss(850, 23.4)]), cv_pct, runs), True).verdict == stats.WORSE
                for _ in range(TRIALS))
    assert found / TRIALS > 0.9


def test_one_rep_takes_its_own_interval_where_that_is_wider_than_the_floor():
    single = of_reps([1000.0])
    assert with_floor(single, 1.0, 5).se == 10.0
    assert with_floor(single, 1.0, 5, batch_half=39.2).se == pytest.approx(20.0)  # 39.2 / 1.96
    assert math.isnan(with_floor(single, math.nan, 0).se)


def test_a_side_without_any_noise_estimate_is_never_called_better_or_worse():
    unknown = change(of_reps([100.0]), of_reps([50.0]), True)
    assert unknown.verdict == stats.UNKNOWN and unknown.delta == -50.0
    assert change(Estimate(math.nan, 1, 3, 2), of_reps([1.0, 2.0]), True).verdict == stats.UNKNOWN


def test_the_error_rate_is_a_proportion_of_the_requests():
    none = of_proportion(0, 6000)
    assert change(none, of_proportion(0, 6000), False).verdict == stats.SAME
    assert change(none, of_proportion(300, 6000), False).verdict == stats.WORSE
    assert change(of_proportion(300, 6000), of_proportion(290, 6000), False).verdict == stats.SAME
    assert math.isnan(of_proportion(0, 0).mean)


def test_the_interval_is_welchs_and_shares_are_of_the_base():
    base, new = of_reps([100.0, 102.0, 98.0]), of_reps([90.0, 91.0, 89.0])
    result = change(base, new, True)
    # by hand: se² = 4/3 + 1/3; Welch's df = (5/3)² / ((4/3)²/2 + (1/3)²/2) = 50/17 ≈ 2.94; t between the table's
    # t(2) = 4.303 and t(3) = 3.182, linear in 1/df
    df = 50 / 17
    t = 4.303 + (1 / 2 - 1 / df) / (1 / 2 - 1 / 3) * (3.182 - 4.303)
    half = t * math.sqrt(5 / 3)
    assert math.isclose(result.low, -10 - half) and math.isclose(result.high, -10 + half)
    assert result.verdict == stats.WORSE and math.isclose(result.share, -0.10)


def test_a_rate_is_judged_on_its_ratio_whose_interval_is_computed_on_the_log_and_never_falls_below_minus_100():
    # three blocks a side as a try has them, the after's spread wide: the difference's interval reached below −100%
    base, new = of_reps([200.0, 210.0, 205.0]), of_reps([150.0, 420.0, 510.0])
    assert change(base, new, True).share_low < -1
    result = change(base, new, True, on_ratio=True)
    # by hand: relative variances (se ÷ mean)²; Welch's df from them; t linear in 1/df between the table's rows
    mean_a, mean_b = 205.0, 360.0
    sd_a, sd_b = 5.0, math.sqrt(((150 - 360) ** 2 + (420 - 360) ** 2 + (510 - 360) ** 2) / 2)
    va, vb = (sd_a / math.sqrt(3) / mean_a) ** 2, (sd_b / math.sqrt(3) / mean_b) ** 2
    df = (va + vb) ** 2 / (va * va / 2 + vb * vb / 2)
    assert 2 <= df < 3
    t = 4.303 + (1 / 2 - 1 / df) / (1 / 2 - 1 / 3) * (3.182 - 4.303)
    low = math.exp(math.log(mean_b / mean_a) - t * math.sqrt(va + vb)) - 1
    high = math.exp(math.log(mean_b / mean_a) + t * math.sqrt(va + vb)) - 1
    assert result.share_low == pytest.approx(low) and result.share_high == pytest.approx(high)
    assert -1 < result.share_low < 0 < result.share_high and result.verdict == stats.SAME
    assert result.share == pytest.approx(mean_b / mean_a - 1)


def test_on_its_ratio_a_rate_without_a_shift_calls_a_change_no_more_often_than_its_five_percent():
    for reps in (2, 3, 5):
        rng = random.Random(100 + reps)
        alarms = sum(change(of_reps([rng.gauss(1000, 50) for _ in range(reps)]),
                            of_reps([rng.gauss(1000, 50) for _ in range(reps)]), True, on_ratio=True).verdict
                     != stats.SAME for _ in range(TRIALS)) / TRIALS
        assert (0.005 if reps == 2 else 0.025) <= alarms <= 0.075, (reps, alarms)
    # a real 20% drop is still found, and a base of 0 (nothing to divide by) falls back to the difference
    rng = random.Random(9)
    found = sum(change(of_reps([rng.gauss(1000, 50) for _ in range(5)]),
                       of_reps([rng.gauss(800, 40) for _ in range(5)]), True, on_ratio=True).verdict == stats.WORSE
                for _ in range(TRIALS))
    assert found / TRIALS > 0.9
    zero = change(of_reps([0.0, 0.0, 0.0]), of_reps([1.0, 2.0, 1.5]), False, on_ratio=True)
    assert zero.low == pytest.approx(change(of_reps([0.0, 0.0, 0.0]), of_reps([1.0, 2.0, 1.5]), False).low)
