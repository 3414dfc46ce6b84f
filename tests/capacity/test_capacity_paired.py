"""Both modes searched at once, their points taken in turn (search.search_paired): on a steady service each finds
what it finds searched alone; on a host that slows part-way, the modes searched one after the other put the slowdown
between them, the modes taken in turn spread it over both; a point cut short is told by both."""

import math

import pytest
from simulated import Service, queue_p99_ms

from vtlab.capacity import search
from vtlab.core import objective

# platform: the queue of simulated.py (1,500 ms at 186.67 req/s); virtual: the same curve five times wider (933.3)
WALLS = {"platform": 1.0, "virtual": 5.0}


class TwoModes:
    """Each mode's p99 curve scaled by its WALLS factor and by the host's speed at the simulated moment the point is
    measured (every point takes Service.seconds): speed(elapsed seconds) -> share of full speed."""

    def __init__(self, speed=lambda elapsed: 1.0):
        self.speed, self.elapsed, self.calls = speed, 0.0, []
        self.services = {mode: Service(seed=index + 1) for index, mode in enumerate(WALLS)}

    def __call__(self, mode, load):
        self.calls.append(mode)
        scale = WALLS[mode] * self.speed(self.elapsed)
        service = self.services[mode]
        service.p99 = lambda rate: queue_p99_ms(rate / scale)
        self.elapsed += service.seconds
        return service(mode, load)


def settings(**given):
    return search.Settings(objective.parse("p99<=1500ms"), **{"budget_s": 7200.0, **given})


def test_the_modes_take_turns_and_each_finds_what_it_finds_alone():
    together = TwoModes()
    paired = search.search_paired(["platform", "virtual"], 50, together, settings())
    turns = together.calls[:2 * min(together.calls.count("platform"), together.calls.count("virtual"))]
    # in turn while both search, a round each way: platform, virtual, then virtual, platform
    assert turns == (["platform", "virtual", "virtual", "platform"] * len(turns))[:len(turns)]
    alone = search.search(["platform", "virtual"], 50, TwoModes(), settings())
    for mine, theirs, truth in zip(paired.modes, alone.modes, (186.67, 933.33), strict=True):
        assert mine.bracket_low <= truth <= mine.bracket_high
        assert (mine.capacity, mine.bracket_high) == (theirs.capacity, theirs.bracket_high)
    assert paired.complete


@pytest.mark.parametrize("at_s", [300, 600])
def test_a_host_slowing_part_way_moves_the_modes_alike_when_they_take_turns(at_s):
    # the host at 80% from `at_s` on: within the first mode's search when the modes go one after the other
    def slowing(elapsed):
        return 1.0 if elapsed < at_s else 0.8
    truth = 5.0  # virtual ÷ platform at any one speed

    def error(run):
        platform, virtual = run.modes
        return abs(virtual.capacity / platform.capacity / truth - 1)
    sequential = error(search.search(["platform", "virtual"], 50, TwoModes(slowing), settings()))
    paired = error(search.search_paired(["platform", "virtual"], 50, TwoModes(slowing), settings()))
    # at 300 s: 179 and 734 req/s one after the other (4.10x, 18% off), 160 and 734 in turn (4.59x, 8%); at 600 s:
    # 3.99x (20%) against 4.47x (11%). Taking turns spreads both searches over the same stretch of the host's time;
    # it does not cancel a drift the way pairs of blocks do (a search's decisive points are its last).
    assert sequential > 0.15 and paired < sequential * 0.6


def test_a_point_cut_short_is_told_by_every_mode_before_the_error_goes_on():
    heard = []
    measure = TwoModes()

    def failing(mode, load):
        if len(measure.calls) == 5:
            raise KeyboardInterrupt
        return measure(mode, load)
    with pytest.raises(KeyboardInterrupt):
        search.search_paired(["platform", "virtual"], 50, failing, settings(), on_point=heard.append)
    last = heard[-1]
    assert not last.complete and {mode.mode for mode in last.modes} == {"platform", "virtual"}
    assert all("interrupted after" in mode.stop and "Ctrl-C" in mode.stop for mode in last.modes)
    assert all(not math.isnan(mode.capacity) or mode.points for mode in last.modes)


def test_a_mode_done_early_leaves_the_rest_of_its_half_to_the_mode_still_searching():
    # 60 s a point, 15 min for both: platform's wall is bracketed within 5% in 6 points (6 min), virtual's climb from
    # 50 to ~933 req/s takes longer than the 7.5 min an equal half would leave it
    budget_s = 900.0
    platform, virtual = search.search_paired(["platform", "virtual"], 50, TwoModes(), settings(budget_s=budget_s)).modes
    assert platform.stop.startswith("bracket within 5%") and platform.spent_s < budget_s / 2
    assert virtual.spent_s > budget_s / 2 and platform.spent_s + virtual.spent_s <= budget_s
    assert virtual.bracket_low <= 933.33 <= virtual.bracket_high
    # what an equal half would have left it: the same search, alone, on 7.5 min
    half = search.search_mode("virtual", 50, TwoModes(), settings(budget_s=budget_s), budget_s / 2)
    assert half.stop.startswith("budget spent")
    assert virtual.bracket_high / virtual.bracket_low < half.bracket_high / half.bracket_low
