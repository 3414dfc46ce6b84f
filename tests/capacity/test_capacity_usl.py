"""The Universal Scalability Law beside Little's law: fitted to points made from the law itself with a known λ, σ and
κ (made here, from the formula, not by the code under test), it finds them again; its peak is the capacity it
predicts, with the measured one's error; too few points, or points that set no peak, say so instead."""

import math

import pytest

from vtlab.capacity import prediction, scalability, summary
from vtlab.capacity.point import PointResult
from vtlab.results.capacityfile import ModeCapacity


def law(load, lam, sigma, kappa):
    return lam * load / (1 + sigma * (load - 1) + kappa * load * (load - 1))


def passing(loads, lam, sigma, kappa):
    return [PointResult("platform", n, {}, 0, 1000, throughput_rps=law(n, lam, sigma, kappa)) for n in loads]


@pytest.mark.parametrize("lam, sigma, kappa, loads", [
    (2.0, 0.05, 0.001, (1, 2, 4, 8, 16, 32, 64)),                  # a peak inside the loads
    (3.1, 0.037, 0.00123, (1, 3, 7, 15, 30, 60)),
    (0.93, 0.0123, 3.3e-6, (100, 141, 200, 400, 800, 1000)),       # high loads: σ and κ trade against each other
    (1.0, 0.3, 0.0, (1, 2, 4, 8)),                                  # no coherency cost: κ = 0 exactly
])
def test_the_fit_finds_the_known_parameters_of_points_made_from_the_law(lam, sigma, kappa, loads):
    found = scalability.fit([(n, law(n, lam, sigma, kappa)) for n in loads])
    assert found.lam == pytest.approx(lam, rel=1e-6)
    assert found.sigma == pytest.approx(sigma, rel=1e-6, abs=1e-9)
    assert found.kappa == pytest.approx(kappa, rel=1e-6, abs=1e-12)
    assert found.sse == pytest.approx(0, abs=1e-12)


def test_the_fit_refuses_fewer_than_three_loads():
    with pytest.raises(ValueError, match="three distinct loads"):
        scalability.fit([(1, 2.0), (2, 3.8), (2, 3.9)])


# λ 2, σ 0.05, κ 0.001: the peak at N* = √((1 − 0.05) / 0.001) = √950 = 30.822 users, where the throughput is
# 2 × 30.822 / (1 + 0.05 × 29.822 + 0.001 × 30.822 × 29.822) = 61.644 / 3.41028 = 18.076 req/s
LOADS = (1, 2, 4, 8, 16, 24, 28)


def test_a_closed_search_s_predicted_capacity_is_the_users_at_the_peak_with_the_measured_error():
    fit = prediction.usl(passing(LOADS, 2.0, 0.05, 0.001), 28, "closed")
    assert (fit.points, fit.why) == (7, "")
    assert fit.peak_load == pytest.approx(30.822, abs=1e-3) and fit.capacity == fit.peak_load
    assert fit.peak_rps == pytest.approx(18.076, abs=1e-3)
    assert fit.error_share == pytest.approx((28 - 30.822) / 30.822, abs=1e-4)    # -9.2%
    assert fit.rms_share == pytest.approx(0, abs=1e-9)


def test_an_open_search_s_predicted_capacity_is_the_throughput_at_the_peak():
    fit = prediction.usl(passing(LOADS, 2.0, 0.05, 0.001), 17, "open")
    assert fit.capacity == pytest.approx(18.076, abs=1e-3)
    assert fit.error_share == pytest.approx((17 - 18.076) / 18.076, abs=1e-4)


def test_two_passing_loads_leave_the_fit_underdetermined_and_it_says_so():
    fit = prediction.usl(passing((100, 141), 1.0, 0.0, 0.0), 141, "open")
    assert fit.points == 2 and "underdetermined: 2 passing load(s)" in fit.why
    assert math.isnan(fit.capacity) and math.isnan(fit.sigma)


def test_throughput_in_proportion_to_the_load_sets_no_peak_and_predicts_no_capacity():
    # an open search's passing points below the wall: every arrival served, 100, 200, 400 req/s
    fit = prediction.usl(passing((100, 200, 400), 1.0, 0.0, 0.0), 400, "open")
    assert fit.why.startswith("no peak the points set") and "(400)" in fit.why
    assert math.isnan(fit.capacity) and math.isnan(fit.error_share)


def test_no_coherency_cost_levels_off_at_lambda_over_sigma():
    # σ 0.3, κ 0: throughput rises toward λ/σ = 1 / 0.3 = 3.333 req/s and never turns down
    points = passing((1, 2, 4, 8), 1.0, 0.3, 0.0)
    assert prediction.usl(points, 3, "open").capacity == pytest.approx(3.3333, abs=1e-4)
    closed = prediction.usl(points, 8, "closed")
    assert math.isnan(closed.capacity) and closed.why.startswith("no peak: κ = 0") and "3 req/s" in closed.why


def test_the_terminal_says_the_law_s_capacity_beside_little_s_or_why_it_has_none():
    fit = prediction.usl(passing(LOADS, 2.0, 0.05, 0.001), 28, "closed")
    mode = ModeCapacity("platform", 28.0, 28.0, 30.0, "bracket within 5%", usl=fit)
    assert summary.scalability(mode, "users") == ("USL: 31 users at its peak (σ 0.05, κ 0.001, over 7 passing "
                                                  "loads), measured -9% from it")
    short = ModeCapacity("platform", 141.0, 141.0, 200.0, "", usl=prediction.usl(passing((100, 141), 1, 0, 0), 141,
                                                                                 "open"))
    assert summary.scalability(short, "req/s").startswith("USL: no capacity predicted (underdetermined")
