"""A point judged beyond its own noise: its percentile's interval and its error rate's Wilson interval, each wholly
on one side of the limit, or the point is too close to call; an invalid point is never judged on its figures."""

import math
from dataclasses import replace

import pytest

from vtlab.capacity.point import FAIL, INVALID, PASS, UNSURE, Interval, PointResult, judge, pooled, wilson
from vtlab.capacity.prediction import little
from vtlab.core import objective


def _point(p99=(400.0, 380.0, 420.0), errors=0, requests=10_000, **given):
    return PointResult("platform", 100, {"p99": Interval(*p99)}, errors, requests, **given)


def test_wilson_s_interval_matches_the_textbook_values():
    # 10 failures in 1,000: 0.543%–1.831% (Wilson 1927, as tabulated by Newcombe 1998); none in 1,000: up to
    # 1.96² / (1,000 + 1.96²) = 0.383%
    ten = wilson(10, 1000)
    assert (ten.low, ten.high) == (pytest.approx(0.00543, abs=5e-5), pytest.approx(0.01831, abs=5e-5))
    assert wilson(0, 1000).low == 0 and wilson(0, 1000).high == pytest.approx(0.003827, abs=1e-6)


@pytest.mark.parametrize("p99, outcome", [
    ((400.0, 380.0, 420.0), PASS),      # wholly under 500 ms
    ((480.0, 460.0, 520.0), UNSURE),    # straddles it: inside its own noise
    ((560.0, 510.0, 600.0), FAIL),      # wholly above
    ((450.0, math.nan, math.nan), UNSURE),  # no interval: nothing to decide on
])
def test_a_percentile_decides_only_when_its_whole_interval_is_on_one_side(p99, outcome):
    assert judge(objective.parse("p99<=500ms"), _point(p99)).outcome == outcome


@pytest.mark.parametrize("errors, requests, outcome", [
    (0, 10_000, PASS),      # up to 0.038%: under 0.1%
    (0, 1_000, UNSURE),     # up to 0.38%: no failure yet, too few requests to say
    (30, 10_000, FAIL),     # 0.3%, from 0.21%: above
    (12, 10_000, UNSURE),   # 0.12%, 0.069%–0.21%: straddles
])
def test_the_error_rate_decides_beyond_its_binomial_interval(errors, requests, outcome):
    assert judge(objective.parse("errors<=0.1%"), _point(errors=errors, requests=requests)).outcome == outcome


def test_no_failure_allowed_is_a_count_one_failure_crosses():
    slo = objective.parse("errors<=0%")
    assert judge(slo, _point(errors=0, requests=100)).outcome == PASS
    assert judge(slo, _point(errors=1, requests=100_000)).outcome == FAIL


def test_a_failure_names_the_condition_it_broke_and_an_invalid_point_its_flags():
    failed = judge(objective.parse("p50<=100ms,p99<=500ms"), _point((560.0, 510.0, 600.0)))
    assert failed.outcome == FAIL and failed.crossed == "p99 crossed 500 ms" and "560 ms" in failed.why
    invalid = judge(objective.parse("p99<=500ms"), _point(valid=False, flags=("generator-limited", "stall")))
    assert invalid == (INVALID, "not valid: generator-limited, stall", "")


def test_two_measurements_pool_their_requests_and_narrow_the_percentile_s_interval():
    one = _point((480.0, 460.0, 500.0), errors=3, requests=1000, seconds=60.0)
    two = _point((500.0, 480.0, 520.0), errors=1, requests=1000, seconds=50.0)
    both = pooled(one, two)
    # the mean, 490 ms, with half-width √(20² + 20²) / 2 = 14.14 ms
    assert both.percentiles["p99"] == pytest.approx(Interval(490.0, 475.858, 504.142), abs=1e-3)
    assert (both.errors, both.requests, both.seconds, both.measures) == (4, 2000, 110.0, 2)


def test_a_third_measurement_pooled_into_two_counts_a_third_not_a_half():
    two = pooled(_point((480.0, 460.0, 500.0)), _point((500.0, 480.0, 520.0)))
    three = pooled(two, _point((540.0, 520.0, 560.0)))
    # the mean of 480, 500 and 540 is 506.67 ms (not (490 + 540) / 2 = 515); three half-widths of 20 ms in
    # quadrature over three: √(3 × 20²) / 3 = 11.547 ms, as one interval of the three's mean
    assert three.percentiles["p99"] == pytest.approx(Interval(506.667, 495.120, 518.214), abs=1e-3)
    assert three.measures == 3


def test_a_point_measured_twice_keeps_the_widest_move_of_the_host_either_hold_or_the_two_between_them_saw():
    def hold(host_us, spread):
        return _point(extra={"host_work_us": host_us, "host_work_spread_pct": spread})
    # each hold steady, the host another between them: 240 and 370 µs medians, 130 ÷ their mean 305 = 42.6%
    assert pooled(hold(240.0, 10.0), hold(370.0, 12.0)).extra["host_work_spread_pct"] == pytest.approx(42.623, abs=1e-3)
    # the same host in both, the first hold moving: its own 48%
    assert pooled(hold(300.0, 48.0), hold(300.0, 12.0)).extra["host_work_spread_pct"] == 48.0
    # the later hold's median stands as the point's host speed
    assert pooled(hold(240.0, 10.0), hold(370.0, 12.0)).extra["host_work_us"] == 370.0
    # neither hold read it: not measured, never 0
    assert math.isnan(pooled(_point(), _point()).extra["host_work_spread_pct"])


def test_little_s_law_predicts_the_median_ceiling_and_states_the_measured_error_against_it():
    slo = objective.parse("p99<=1500ms")
    points = [_point(ceiling_rps=c, limit="thread-pool", service_time_ms=1000.0) for c in (198.0, 200.0, 204.0)]
    fit = little(points, 186.0, "open", slo)
    assert (fit.capacity, fit.low, fit.high, fit.limit, fit.points) == (200.0, 198.0, 204.0, "thread-pool", 3)
    assert fit.error_share == pytest.approx(-0.07)        # (186 - 200) / 200
    # closed: users each waiting the 1.5 s limit at 200 req/s: 300 users
    assert little(points, 280.0, "closed", slo).capacity == pytest.approx(300.0)
    assert little([_point()], 186.0, "open", slo) is None   # no ceiling known: nothing predicted


def test_an_open_search_s_rising_concurrency_ceiling_predicts_nothing_but_a_wall_s_ceiling_does():
    slo = objective.parse("p99<=1500ms")
    # virtual points at 100, 200, 400 req/s under every wall: each one's lowest ceiling is its own offered rate
    offered = [_point(ceiling_rps=rate, limit="concurrency", service_time_ms=1000.0) for rate in (100.0, 200.0, 400.0)]
    assert little(offered, 400.0, "open", slo) is None
    walled = [*offered, _point(ceiling_rps=199.0, limit="thread-pool", service_time_ms=1000.0)]
    assert little(walled, 141.0, "open", slo).capacity == 199.0  # the wall's alone
    assert little(offered, 400.0, "closed", slo) is not None  # users waiting: the concurrency ceiling is the model


def test_a_point_over_capacity_fails_though_its_hold_was_not_steady_but_no_other_fault_decides():
    slo = objective.parse("p99<=1500ms")
    # platform threads offered 400 req/s: the queue grows through the hold, p99 ~10 s, the rate too noisy to call
    overloaded = _point((10_068.0, 9_800.0, 10_300.0), valid=False, flags=("offered-above-capacity", "too-noisy"))
    assert judge(slo, overloaded).outcome == FAIL
    assert "its hold not steady: too-noisy" in judge(slo, overloaded).why
    # an unsteady hold whose objective held decides nothing: an unsteady pass is no pass
    assert judge(slo, replace(overloaded, percentiles={"p99": Interval(900.0, 880.0, 920.0)})).outcome == INVALID
    # any other fault (a neighbour took the CPU) leaves even a broken objective undecided
    crowded = replace(overloaded, flags=("noisy-neighbour", "too-noisy"))
    assert judge(slo, crowded).outcome == INVALID


def test_a_point_measured_in_turn_is_judged_on_its_figures_beside_the_machine_s_drift_and_says_so():
    slo = objective.parse("p99<=1500ms")
    # valid beside the VM's steal (fromrow.stands_beside): its figures decide, the steal is said
    stolen = _point((900.0, 880.0, 920.0), valid=True, flags=("hypervisor-steal", "offered-above-capacity"))
    seen = judge(slo, stolen)
    assert seen.outcome == PASS and seen.why.endswith("(beside the machine's drift: hypervisor-steal)")
    assert judge(slo, _point((900.0, 880.0, 920.0))).why == seen.why.removesuffix(
        " (beside the machine's drift: hypervisor-steal)")  # a clean point says nothing of it


def test_a_pass_with_cpu_another_took_is_a_pass_and_a_failure_there_decides_nothing():
    slo = objective.parse("p99<=1500ms")
    # capA's virtual point at 678 req/s, alone: invalid for the VM's steal alone, p99 well within the limit
    stolen = _point((1_197.0, 1_150.0, 1_240.0), valid=False, flags=("hypervisor-steal",))
    seen = judge(slo, stolen)
    assert seen.outcome == PASS and "a pass on less CPU than its own" in seen.why
    assert judge(slo, replace(stolen, flags=("noisy-neighbour", "hypervisor-steal"))).outcome == PASS
    # broken, or too close to call, with the CPU taken: the CPU taken may be what broke it
    assert judge(slo, replace(stolen, percentiles={"p99": Interval(2_000.0, 1_900.0, 2_100.0)})).outcome == INVALID
    assert judge(slo, replace(stolen, percentiles={"p99": Interval(1_480.0, 1_400.0, 1_560.0)})).outcome == INVALID
    # another fault beside it (the hold unsteady, the generator short): no pass
    for flags in (("hypervisor-steal", "too-noisy"), ("hypervisor-steal", "generator-limited")):
        assert judge(slo, replace(stolen, flags=flags)).outcome == INVALID, flags
