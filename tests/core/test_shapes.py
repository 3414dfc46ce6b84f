"""Load shapes: the stages k6 is given, where each part lies, and what a shape measured — both ways."""

import math

import pytest

from vtlab.measure import load
from vtlab.plan import planner
from vtlab.series import shapestats
from vtlab.core.shapes import Shape


def test_a_spike_steps_up_for_its_length_and_back_inside_the_hold():
    spec = load.LoadSpec("http://x", "closed", 200, 0, 10, 45, 60, 100, cooldown_s=3, shape=Shape("spike", 3, 10))
    before, hold = spec.stages()
    assert before == [{"duration": "10s", "target": 200}, {"duration": "45s", "target": 200}]
    assert [(s["duration"], s["target"]) for s in hold] == [("16s", 200), ("1s", 600), ("9s", 600), ("1s", 200),
                                                            ("36s", 200)]
    assert sum(int(s["duration"][:-1]) for s in hold) == 60 + 3  # the hold and the cool-down, nothing more
    assert Shape("spike", 3, 10).spike_window(60) == (16, 26)
    # the open model shapes the arrival rate the same way
    assert load.LoadSpec("http://x", "open", 400, 100, 5, 10, 30, 100, shape=Shape("spike", 2, 5)).stages()[1][1][
        "target"] == 200


def test_a_staircase_starts_at_its_first_step_and_ends_at_the_rows_load():
    staircase = Shape("steps", steps=4)
    before, hold = load.LoadSpec("http://x", "closed", 400, 0, 10, 45, 60, 100, 3, shape=staircase).stages()
    assert {s["target"] for s in before} == {100}
    assert [s["target"] for s in hold] == [100, 200, 200, 300, 300, 400, 400]


def test_the_plan_refuses_a_shape_that_does_not_fit_its_hold():
    with pytest.raises(ValueError, match="--hold 20 is too short for --spike-s 10"):
        planner.build("quick", planner.Overrides(shapes=("spike",), hold_s=20))
    with pytest.raises(ValueError, match="each step needs at least 5 s"):
        planner.build("quick", planner.Overrides(shapes=("steps",), hold_s=30, step_count=8))
    spike = planner.build("spike", planner.Overrides())
    assert {row.shape for row in spike.rows} == {"spike"} and spike.shape(spike.rows[0]).spike_s == 10


def seconds(p99s, start=0):
    return [{"t_s": start + i, "p99_ms": p} for i, p in enumerate(p99s)]


def test_recovery_is_the_time_until_p99_stayed_near_its_level_before_the_spike():
    # spike ends at 10 s; before it p99 was 100 ms; back under 150 ms from 13 s on, for 3 s
    lines = seconds([100] * 10 + [900, 700, 400, 120, 110, 105, 100])
    assert shapestats.recovery_s(lines, 100, 10, 17) == 3
    # one calm second between bad ones is not a recovery
    assert math.isnan(shapestats.recovery_s(seconds([100] * 10 + [900, 120, 800, 900, 700, 600]), 100, 10, 16))
    assert shapestats.recovery_s(seconds([100] * 10 + [120, 110, 100]), 100, 10, 13) == 0


def test_the_knee_is_the_last_step_whose_throughput_grew_with_the_load():
    # virtual threads: throughput doubles, triples, quadruples with the users: no knee inside the staircase
    assert shapestats.knee([100, 200, 300, 400], [99, 198, 296, 395]) == 400
    # platform threads at their 200-thread wall: growth stops after 200 users
    assert shapestats.knee([100, 200, 300, 400], [99, 198, 199, 199]) == 200


def test_a_soak_trend_is_a_slope_not_the_difference_of_its_ends():
    flat_with_spikes = [(t, 500.0 + (40 if t in (0, 590) else 0)) for t in range(0, 600, 10)]
    assert abs(shapestats.slope_per_min(flat_with_spikes)) < 0.5
    leaking = [(t, 500.0 + t / 60 * 3) for t in range(0, 600, 10)]
    assert shapestats.slope_per_min(leaking) == pytest.approx(3.0)


def test_each_step_is_measured_between_the_seconds_k6_changes_the_load_at():
    staircase = Shape("steps", steps=4)
    hold = staircase.hold_targets(400, 30, 0)
    # the stages: 8 s at 100, then 1 s + 6 s at 200 (the load changes at 8, 15 and 22 s), …
    assert [(a, b) for a, b in staircase.step_windows(30)] == [(0, 8), (8, 15), (15, 22), (22, 30)]
    assert [duration for duration, _ in hold] == [8, 1, 6, 1, 6, 1, 7]


def test_a_recut_measures_a_spike_where_it_ran_whatever_the_window(tmp_path):
    """The spike ran 16–26 s into a 60 s hold that k6 began 0.4 s late; a re-cut of another window must still
    find it there, not a third of the way into the window."""
    from test_series import write_k6

    from vtlab.core import constants, dimensions
    from vtlab.series import recut, store, windows

    row = {"thread_mode": "virtual", "concurrency": "10", "ramp_s": "2", "warmup_s": "3", "hold_s": "60",
           "cooldown_s": "0", "shape": "spike", "spike_multiple": "3", "spike_s": "10", "k6_exit": "0"}
    slug = dimensions.slug(dimensions.parse(row))
    hold_start = 5.4
    lines = []
    for tenth in range(0, 640):  # a request starting every 0.1 s from 0 to 64 s, 1 s long
        start = tenth / 10
        inside = hold_start + 16 <= start < hold_start + 26
        phase = "hold" if hold_start <= start < hold_start + 60 else ("warmup" if start < hold_start else "cooldown")
        lines.append(f"r,{(start + (3 if inside else 1)) * 1000:.3f},{3000 if inside else 1000},200,{phase},none,true")
    write_k6(store.k6_path(tmp_path, slug), lines, start_unix_ms=1_000_000)
    store.write_samples(store.samples_path(tmp_path, slug), windows.Series([(0.0, {"app_ticks": 0.0})]),
                         windows.Series([]), origin_unix_s=1_000.0)
    own = recut.recut_row(tmp_path, row, None, constants.CURRENT)
    assert (own["base_p99_ms"], own["spike_p99_ms"]) == (1000, 3000)
    later = recut.recut_row(tmp_path, row, (30.0, 60.0), constants.CURRENT)
    assert {k: later[k] for k in shapestats.COLUMNS} == {k: own[k] for k in shapestats.COLUMNS}
