"""The capacity search against simulated services whose capacity is known in closed form (simulated.py): it
converges to it within the precision, never decides on a point inside its own noise, never lets an invalid point
decide, and keeps to its budget."""

import math

import pytest
from simulated import Service, queue_p99_ms

from vtlab.capacity import prediction, search
from vtlab.capacity import point as point_module
from vtlab.capacity.point import FAIL, INVALID, PASS, UNSURE, Interval, PointResult
from vtlab.core import objective

# p99 = 1 s + 1 s (rate - 180) / (200 - rate) reaches 1,500 ms at (180 + 0.5 × 200) / 1.5 req/s
KNOWN_CAPACITY = 186.67


def _settings(**given):
    return search.Settings(objective.parse(given.pop("slo", "p99<=1500ms")), **{"budget_s": 3600.0, **given})


def test_the_search_brackets_a_queue_s_known_capacity_within_the_precision():
    found = search.search(["platform"], 50, Service(), _settings()).modes[0]
    assert found.bracket_low <= KNOWN_CAPACITY <= found.bracket_high
    assert (found.bracket_high - found.bracket_low) / found.bracket_low <= 0.05
    assert found.capacity == found.bracket_low
    assert "within 5%" in found.stop


def test_without_a_model_the_staircase_climbs_geometrically_then_bisects_between_the_last_pass_and_the_first_fail():
    service = Service(ceiling_rps=math.nan)  # no wall's ceiling: nothing to step toward
    search.search(["platform"], 50, service, _settings())
    loads = [load for _, load in service.calls]
    assert loads[:3] == [50, 100, 200]          # doubling until the objective breaks at 200
    assert loads[3] == 141                      # then the geometric middle of 100 and 200: √20,000
    assert all(100 < load < 200 for load in loads[3:])


def test_a_first_load_beyond_the_capacity_steps_down_before_it_bisects():
    service = Service()
    found = search.search(["virtual"], 800, service, _settings()).modes[0]
    assert [load for _, load in service.calls][:3] == [800, 400, 200]
    assert found.bracket_low <= KNOWN_CAPACITY <= found.bracket_high


def test_the_failure_names_the_condition_the_load_and_the_wall_of_the_lowest_failing_point():
    found = search.search(["platform"], 50, Service(), _settings()).modes[0]
    assert found.crossed == "p99 crossed 1500 ms"
    assert found.crossed_at == min(p.load for p in found.points if p.outcome == FAIL)
    assert (found.wall, found.evidence) == ("thread-pool", "200 threads busy")


def linear_p99_ms(rate):
    """10 ms per req/s: 1,500 ms at 150 req/s, a gentle slope, so a wide band of loads sits inside the noise."""
    return 10.0 * rate


@pytest.mark.parametrize("seed", range(12))
def test_a_noisy_service_is_never_decided_on_a_point_inside_its_own_noise(seed):
    # ±15% scatter, reported as the point's interval: from 130 to 176 req/s the interval can straddle 1,500 ms
    found = search.search(["platform"], 50, Service(p99=linear_p99_ms, noise=0.15, seed=seed),
                          _settings()).modes[0]
    for point in found.points:
        truth = linear_p99_ms(point.load)
        if point.outcome == PASS:
            assert truth <= 1500, f"{point.load} passed with a true p99 of {truth:.0f} ms"
        if point.outcome == FAIL:
            assert truth > 1500, f"{point.load} failed with a true p99 of {truth:.0f} ms"
    # the capacity is never claimed above the truth; the bracket reaches it unless a load too close to call ends it
    assert found.capacity <= 150
    assert found.bracket_high >= 150 or "too close to call" in found.stop


def test_a_point_on_its_limit_is_left_the_bracket_s_edge_at_once_not_measured_again_in_vain():
    # a p99 that sits on the limit from 150 req/s to 190: no interval around it can lie on one side, and its figure
    # (within a quarter of its half-width of the limit: (half ÷ distance)² ≥ 16) needs more measurements than the
    # four the repeats allow
    def flat(rate):
        return 100.0 if rate < 150 else 1500.0 if rate < 190 else 9000.0
    service = Service(p99=flat, noise=0.02)
    found = search.search(["platform"], 100, service, _settings(repeats=3)).modes[0]
    undecided = [p for p in found.points if p.outcome == UNSURE]
    assert undecided and all(p.measures == 1 for p in undecided)
    assert found.bracket_low < 150 and 150 <= found.bracket_high < 190   # the undecided load is the upper edge
    assert "too close to call" in found.stop


class Scripted:
    """A load's p99 given in turn, one (value, half-width) a measurement; 100 ms at any other load."""

    def __init__(self, load, figures):
        self.load, self.figures, self.calls = load, list(figures), []

    def __call__(self, mode, load):
        self.calls.append(load)
        value, half = self.figures.pop(0) if load == self.load else (100.0, 5.0)
        return PointResult(mode, load, {"p99": Interval(value, value - half, value + half)}, 0, 1000,
                           throughput_rps=float(load), seconds=30.0)


def measured_point(service, settings, load):
    """One point of a walk (search._Walk.point asks for each measurement it wants), every one measured by `service`."""
    walking = search._Walk("platform", settings, 3600.0).point(load)
    try:
        asked = next(walking)
        while True:
            asked = walking.send(service("platform", asked))
    except StopIteration as done:
        return done.value


def test_a_point_too_close_to_call_is_measured_again_while_the_repeats_left_could_decide_it_and_pooled():
    slo = objective.parse("p99<=1500ms")
    # 1,440 ± 80 ms straddles 1,500: (80 ÷ 60)² = 1.8 measurements would decide it, so it is measured again;
    # pooled, 1,445 ± 56.6 still straddles ((56.6 ÷ 55)² × 2 = 2.1 ≤ 4): a third, and 1,450 ± 46.2 passes
    service = Scripted(200, [(1440.0, 80.0), (1450.0, 80.0), (1460.0, 80.0), (1400.0, 80.0)])
    verdict, result = measured_point(service, _settings(repeats=3), 200)
    assert verdict.outcome == PASS and result.measures == 3 and service.calls == [200, 200, 200]
    assert result.percentiles["p99"].value == pytest.approx(1450.0)
    # 1,498 ± 80: (80 ÷ 2)² = 1,600 measurements: none more is spent on it
    on_the_limit = Scripted(200, [(1498.0, 80.0)])
    verdict, result = measured_point(on_the_limit, _settings(repeats=3), 200)
    assert verdict.outcome == UNSURE and on_the_limit.calls == [200]
    assert point_module.measures_to_decide(slo, result) == pytest.approx(1600.0)
    # 1,470 ± 80 each time: decidable in (80 ÷ 30)² = 7.1 measurements by the first, so measured again; pooled
    # twice, 3.6 of 4 needed, then 4 of 4 ... still straddling after the third repeat: the edge, with four pooled
    stubborn = Scripted(200, [(1470.0, 80.0)] * 4)
    verdict, result = measured_point(stubborn, _settings(repeats=3), 200)
    assert stubborn.calls == [200]  # 7.1 > 4: not even one repeat
    steady = Scripted(200, [(1440.0, 80.0), (1440.0, 80.0), (1440.0, 80.0), (1440.0, 80.0)])
    verdict, result = measured_point(steady, _settings(repeats=3), 200)
    # 1,440 ± 80: 1.8 needed; two pooled: ± 56.6 reaches 1,496.6: a pass at two
    assert (verdict.outcome, result.measures, steady.calls) == (PASS, 2, [200, 200])


def test_the_measurements_a_point_needs_follow_its_conditions_and_its_error_rate_narrows_as_its_count_grows():
    def point(p50, p99, errors=0, requests=1000):
        return PointResult("platform", 200, {"p50": Interval(*p50), "p99": Interval(*p99)}, errors, requests)
    both = objective.parse("p50<=50ms,p99<=100ms")
    # p99 over its limit (112 ± 15, 12 above: (15 ÷ 12)² = 1.5625) fails the point by itself, whatever p50 (49.5 ±
    # 5, 0.5 under: 100) needs: the least of the conditions over their limits
    assert point_module.measures_to_decide(both, point((49.5, 44.5, 54.5), (112.0, 97.0, 127.0))) == 1.5625
    # both under their limits: each must hold, the most any needs
    assert point_module.measures_to_decide(both, point((49.5, 44.5, 54.5), (90.0, 80.0, 110.0))) == 100.0
    # decided (a pass): its own count; a percentile not measured: nothing would decide it
    assert point_module.measures_to_decide(both, point((40.0, 38.0, 42.0), (90.0, 85.0, 95.0))) == 1.0
    assert point_module.measures_to_decide(both, PointResult("platform", 200, {}, 0, 1000)) == math.inf
    # no failure in 1,000 requests against 0.1%: the Wilson bound 1.96² ÷ (n + 1.96²) is 0.383%, 0.128% at 3,000
    # and 0.0959% at 4,000 requests: four measurements, though (0.383 ÷ 0.1)² would say 14.7
    errors = objective.parse("errors<=0.1%")
    assert point_module.measures_to_decide(errors, point((1, 1, 1), (1, 1, 1))) == 4.0


def test_invalid_points_never_decide_and_a_load_invalid_twice_is_looked_below_saying_so():
    # every load from 150 up is invalid (the generator, say) while the objective would hold to 186.67: the search
    # looks below each load invalid twice, at the geometric middle from the last pass (√(100 × 200) = 141,
    # √(141 × 200) = 168, √(141 × 168) = 154, √(141 × 154) = 147), until the last pass is within 5% of one
    found = search.search(["platform"], 50, Service(invalid_from=150, ceiling_rps=math.nan), _settings()).modes[0]
    assert [(p.load, p.outcome) for p in found.points] == [
        (50, PASS), (100, PASS), (200, INVALID), (200, INVALID), (141, PASS), (168, INVALID), (168, INVALID),
        (154, INVALID), (154, INVALID), (147, PASS)]
    assert found.capacity == 147 and math.isnan(found.bracket_high)  # no load failed: no upper edge
    assert "within 5% of a load that could not be measured" in found.stop
    assert "154 req/s invalid twice" in found.stop and "generator-limited" in found.stop


def test_a_first_load_invalid_twice_stops_the_search_as_it_stood():
    found = search.search(["platform"], 200, Service(invalid_from=150, ceiling_rps=math.nan), _settings()).modes[0]
    assert [p.outcome for p in found.points] == [INVALID, INVALID]
    assert math.isnan(found.capacity) and "200 req/s invalid twice" in found.stop


def test_a_failure_found_below_a_load_invalid_twice_is_bisected_as_usual():
    # invalid from 250 up, the objective broken from 186.67: 150 passes, 300 invalid twice, its middle √(150 × 300)
    # = 212 fails, and the bracket 150-212 is bisected as any other
    found = search.search(["platform"], 150, Service(invalid_from=250, ceiling_rps=math.nan), _settings()).modes[0]
    assert [(p.load, p.outcome) for p in found.points][:4] == [(150, PASS), (300, INVALID), (300, INVALID), (212, FAIL)]
    assert found.bracket_low <= KNOWN_CAPACITY <= found.bracket_high <= 212
    assert "bracket within 5%" in found.stop


def test_a_load_invalid_once_is_measured_again_and_the_search_goes_on():
    found = search.search(["platform"], 50, Service(flaky_at=(100,), ceiling_rps=math.nan), _settings()).modes[0]
    assert [(p.load, p.outcome) for p in found.points[:3]] == [(50, PASS), (100, INVALID), (100, PASS)]
    assert found.bracket_low <= KNOWN_CAPACITY <= found.bracket_high


def test_the_budget_is_respected_across_modes_and_said_when_it_stops_the_search():
    service = Service(seconds=60.0)
    run = search.search(["platform", "virtual"], 50, service, _settings(budget_s=300.0))
    assert len(service.calls) * 60.0 <= 300.0
    assert sum(mode.spent_s for mode in run.modes) <= 300.0
    assert all("budget spent" in mode.stop for mode in run.modes)


def test_a_service_that_never_breaks_stops_at_the_budget_with_no_upper_edge():
    found = search.search(["virtual"], 50, Service(p99=lambda rate: 10.0, seconds=100.0, ceiling_rps=math.nan),
                          _settings(budget_s=500.0)).modes[0]
    assert [p.load for p in found.points] == [50, 100, 200, 400, 800]
    assert found.capacity == 800 and math.isnan(found.bracket_high)


def test_an_error_objective_fails_a_load_whose_failures_are_beyond_their_binomial_noise():
    def failing(mode, load):
        point = Service()(mode, load)
        # 2% of requests fail from 120 req/s: 72 of 3,600 is far above 0.1%, 0 of 3,000 below it
        return point.__class__(**{**point.__dict__, "errors": int(point.requests * 0.02) if load >= 120 else 0,
                                  "requests": point.requests * 4})
    found = search.search(["platform"], 50, failing, _settings(slo="errors<=0.1%")).modes[0]
    assert found.bracket_low < 120 <= found.bracket_high
    assert found.crossed == "errors crossed 0.1%"


def virtual_p99_ms(rate):
    """A wall at 1,000 req/s (the CPU's, say), waiting from 900: p99 reaches 1,500 ms at (900 + 0.5 × 1,000) ÷ 1.5 =
    933.3 req/s — far above a staircase that starts at 100."""
    return queue_p99_ms(rate, knee=900.0, wall=1000.0)


VIRTUAL_CAPACITY = 933.33


def test_a_prediction_far_above_the_last_pass_is_stepped_toward_and_finds_the_capacity_in_fewer_points():
    modelled, doubling = Service(p99=virtual_p99_ms, ceiling_rps=1000.0), Service(p99=virtual_p99_ms,
                                                                                   ceiling_rps=1000.0)
    found = search.search(["virtual"], 100, modelled, _settings()).modes[0]
    before = search.search(["virtual"], 100, doubling, _settings(lead=0.0)).modes[0]   # the staircase as it was
    assert [load for _, load in doubling.calls][:5] == [100, 200, 400, 800, 1600]
    assert [load for _, load in modelled.calls][:3] == [100, 800, 1000]   # 0.8 × the 1,000 req/s ceiling, then it
    for answer in (found, before):
        assert answer.bracket_low <= VIRTUAL_CAPACITY <= answer.bracket_high
        assert (answer.bracket_high - answer.bracket_low) / answer.bracket_low <= 0.05
    assert len(modelled.calls) < len(doubling.calls)
    assert all(point.outcome in (PASS, FAIL) for point in found.points)   # every point measured and judged


def test_a_model_that_over_predicts_still_converges_to_the_true_capacity():
    # the ceiling says 2,000 req/s; the queue's p99 crosses 1,500 ms at 186.67
    service = Service(ceiling_rps=2000.0)
    found = search.search(["platform"], 50, service, _settings()).modes[0]
    assert [load for _, load in service.calls][:2] == [50, 1600]            # 0.8 × 2,000: measured, and failed
    assert found.points[1].outcome == FAIL
    assert found.bracket_low <= KNOWN_CAPACITY <= found.bracket_high
    assert (found.bracket_high - found.bracket_low) / found.bracket_low <= 0.05


def test_a_step_toward_the_model_is_never_shorter_than_a_step_nor_beyond_the_prediction_or_the_most_load():
    settings = _settings()
    assert search.next_load(100, None, settings, "req/s", 1000.0) == (800, "")           # 0.8 × 1,000
    assert search.next_load(100, None, settings, "req/s", 220.0) == (200, "")            # 176 is short of ×2
    assert search.next_load(100, None, settings, "req/s", 150.0) == (150, "")            # within a step: at it
    assert search.next_load(100, None, settings, "req/s", 103.0) == (110, "")            # not closer than 2 × 5%
    assert search.next_load(100, None, settings, "req/s", 90.0) == (200, "")             # passed already: ×2
    assert search.next_load(100, None, settings, "req/s", math.nan) == (200, "")         # no model: ×2
    assert search.next_load(100, None, _settings(max_load=500), "req/s", 1000.0) == (500, "")
    assert search.next_load(100, 900, settings, "req/s", 5000.0) == (300, "")            # bisection: √90,000


def test_a_closed_search_s_model_predicts_the_users_at_its_highest_pass_s_own_time_in_the_system():
    # 100 users served 80 req/s: 1.25 s each in the system; the pool's ceiling, 400 req/s, holds 500 users at it
    passed = [PointResult("platform", 50, {}, 0, 100, throughput_rps=45.0, ceilings={"connection-pool": 900.0}),
              PointResult("platform", 100, {}, 0, 100, throughput_rps=80.0, ceiling_rps=80.0, limit="concurrency",
                          ceilings={"connection-pool": 400.0, "cpu": 650.0})]
    assert prediction.ahead(passed, "closed") == 500.0
    assert prediction.ahead(passed, "open") == 400.0
    assert math.isnan(prediction.ahead([PointResult("virtual", 100, {}, 0, 100, throughput_rps=100.0,
                                                    ceiling_rps=100.0, limit="concurrency")], "open"))


def test_a_wall_predicted_within_a_step_is_measured_at_not_stepped_past():
    # the queue's wall at 200 req/s (p99 60 s beyond it), its ceiling reported at every point: from 160 (0.8 × 200)
    # the staircase's ×2 would offer 320, past the wall; it measures 200, the wall itself, then bisects 160-200
    service = Service()
    found = search.search(["platform"], 50, service, _settings()).modes[0]
    loads = [load for _, load in service.calls]
    assert loads[:3] == [50, 160, 200]
    assert max(loads) == 200
    assert found.bracket_low <= KNOWN_CAPACITY <= found.bracket_high
    assert (found.bracket_high - found.bracket_low) / found.bracket_low <= 0.05


def test_a_failure_that_served_less_than_it_was_offered_pulls_the_middle_down_to_what_it_carried():
    # no model; the service carries at most 190 req/s: 200 offered fails (p99 holds only to 186.67) having served
    # 190, so from 100 (pass) and 200 the middle is √(100 × 190) = 138, not the bracket's √(100 × 200) = 141
    carried, offered = Service(ceiling_rps=math.nan, carries=190.0), Service(ceiling_rps=math.nan)
    found = search.search(["platform"], 50, carried, _settings()).modes[0]
    search.search(["platform"], 50, offered, _settings())
    assert [load for _, load in carried.calls][:4] == [50, 100, 200, 138]
    assert [load for _, load in offered.calls][:4] == [50, 100, 200, 141]
    assert found.bracket_low <= KNOWN_CAPACITY <= found.bracket_high
    assert (found.bracket_high - found.bracket_low) / found.bracket_low <= 0.05
    # within the precision above the last pass the served rate moves nothing: the bracket's own middle
    assert search.next_load(100, 200, _settings(), "req/s", served=104.0) == (141, "")
    assert search.next_load(100, 200, _settings(), "req/s", served=150.0) == (122, "")


def test_a_closed_search_takes_its_middles_from_users_alone():
    # a closed search's load is users, its throughput req/s: what a failure served says nothing of its users
    service = Service(ceiling_rps=math.nan, carries=150.0)
    search.search(["platform"], 50, service, _settings(model="closed"))
    assert [load for _, load in service.calls][:4] == [50, 100, 200, 141]


def _p99_point(load, p99_ms, errors=0):
    return PointResult("virtual", load, {"p99": Interval(p99_ms, p99_ms * 0.9, p99_ms * 1.1)}, errors, 10_000,
                       throughput_rps=float(load))


def test_the_crossing_is_interpolated_as_a_power_of_the_load_between_a_pass_and_a_failure_near_the_limit():
    slo = objective.parse("p99<=100ms")
    # captp3's third-party app: 63 ms at 564 req/s, 134 at 933: ln(100/63) / ln(134/63) = 0.6122 of the way in
    # log, 564 × (933/564)^0.6122 = 767.55 req/s
    at = prediction.crossing(slo, _p99_point(564, 63.0), _p99_point(933, 134.0))
    assert at == pytest.approx(767.55, abs=0.01)
    # a knee between them (a queue's p99 ×40 past its wall; a pass under a third of the limit; a failure over three
    # times it): no line to follow
    assert math.isnan(prediction.crossing(slo, _p99_point(564, 63.0), _p99_point(933, 4000.0)))
    assert math.isnan(prediction.crossing(slo, _p99_point(564, 30.0), _p99_point(933, 134.0)))
    assert math.isnan(prediction.crossing(slo, _p99_point(564, 63.0), _p99_point(933, 310.0)))
    # a failure on its errors (2% against 0.1%): its percentiles say nothing of where those crossed
    with_errors = objective.parse("p99<=100ms,errors<=0.1%")
    assert math.isnan(prediction.crossing(with_errors, _p99_point(564, 63.0), _p99_point(933, 134.0, errors=200)))
    assert prediction.crossing(with_errors, _p99_point(564, 63.0), _p99_point(933, 134.0)) == pytest.approx(767.55,
                                                                                                           abs=0.01)
    # a failure too close to call whose figure is under the limit: it did not cross between them
    assert math.isnan(prediction.crossing(slo, _p99_point(564, 63.0), _p99_point(770, 96.0)))
    # two percentiles: each one's crossing, the lower first (p50 50 ms at 564, 110 at 933 against 100: ln 2 / ln 2.2
    # = 0.879 of the way in log, 564 × (933/564)^0.879 = 877.9; p99's at 767.55)
    two = objective.parse("p50<=100ms,p99<=100ms")
    low = PointResult("virtual", 564, {"p50": Interval(50.0, 45.0, 55.0), "p99": Interval(63.0, 57.0, 69.0)}, 0, 1)
    high = PointResult("virtual", 933, {"p50": Interval(110.0, 99.0, 121.0), "p99": Interval(134.0, 120.0, 148.0)},
                       0, 1)
    assert prediction.crossing(two, low, high) == pytest.approx(767.55, abs=0.01)


def test_bisection_aims_half_a_precision_beside_the_crossing_on_the_side_further_from_its_edge():
    settings = _settings()
    # crossing 767.55: half a 5% precision below it is 767.55 / √1.05 = 749.06, above it 786.51; the lower edge
    # lies ln(749.06 / 564) = 0.284 from its side, the upper ln(933 / 786.51) = 0.171 from its own: below
    assert search.next_load(564, 933, settings, "req/s", crossing=767.55) == (749, "")
    # the upper edge further: above (a pass at 740 leaves 740-933; 786.51 is ln(933 / 786.51) from it, 740 is
    # ln(749.06 / 740) = 0.012 from its side)
    assert search.next_load(740, 933, settings, "req/s", crossing=767.55) == (787, "")
    # never within a fifth of the bracket (log) of an edge: a crossing at 570 is aimed at 564 × (933/564)^0.2
    assert search.next_load(564, 933, settings, "req/s", crossing=570.0) == (624, "")
    # a bracket within two precisions is bisected, as one decided point then closes it: √(740 × 810) = 774
    assert search.next_load(740, 810, settings, "req/s", crossing=767.55) == (774, "")
    # no crossing: the geometric middle √(564 × 933) = 725
    assert search.next_load(564, 933, settings, "req/s") == (725, "")
    # from 700: the upper edge 933 lies ln(933 / 786.51) = 0.171 from its side, the lower ln(749.06 / 700) = 0.068:
    # above, 787; where that failure served only 800, the top is 800, ln(800 / 786.51) = 0.017 from it: below, 749
    assert search.next_load(700, 933, settings, "req/s", crossing=767.55) == (787, "")
    assert search.next_load(700, 933, settings, "req/s", served=800.0, crossing=767.55) == (749, "")
    # users 1 to 3, a crossing at 1.2: the aim (1 × 3^0.2 = 1.25) rounds onto the pass: the middle, √3 = 2
    assert search.next_load(1, 3, _settings(model="closed"), "users", crossing=1.2) == (2, "")


def power_p99_ms(rate):
    """A gentle p99 (a power of the load, the third-party app's shape): 100 ms at 760 req/s, 64 ms at 673."""
    return 100.0 * (rate / 760.0) ** 3.7


@pytest.mark.parametrize("seed", range(6))
def test_a_gentle_curve_is_bracketed_within_the_precision_without_a_wrong_decision(seed):
    service = Service(p99=power_p99_ms, noise=0.1, ceiling_rps=math.nan, seed=seed)
    found = search.search(["platform"], 100, service, _settings(slo="p99<=100ms")).modes[0]
    # the capacity never above the truth; the upper edge above it unless that edge was too close to call
    assert found.bracket_low <= 760
    assert found.bracket_high >= 760 or "too close to call" in found.stop
    assert (found.bracket_high - found.bracket_low) / found.bracket_low <= 0.05
    for point in found.points:
        assert (point.outcome != PASS or point.load <= 760) and (point.outcome != FAIL or point.load > 760)
    loads = [load for _, load in service.calls]
    assert loads[:5] == [100, 200, 400, 800, 566]
    assert len(found.points) <= 9


def test_bisection_between_points_on_a_gentle_curve_aims_beside_its_true_crossing_not_at_the_middle():
    # the power curve's p99 at 566 req/s is 33.6 ms and at 800 121 ms, both within ×3 of 100: the log-log line
    # through them is the curve itself, crossing at 760; half a precision below it is 760 / √1.05 = 741.7 (inside
    # the fifth of the bracket kept from each edge: 800 / (800/566)^0.2 = 746.6), where geometric bisection would
    # measure √(566 × 800) = 673. A 2% scatter moves the line's crossing by under 1%.
    service = Service(p99=power_p99_ms, noise=0.02, ceiling_rps=math.nan)
    search.search(["platform"], 100, service, _settings(slo="p99<=100ms"))
    loads = [load for _, load in service.calls]
    assert loads[:5] == [100, 200, 400, 800, 566]
    assert 736 <= loads[5] <= 747
