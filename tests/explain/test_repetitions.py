"""Repetitions of one scenario: the interval of their mean (Student t over the reps), not their intervals
joined; one rep keeps its own within-row interval. Every expected number is worked out by hand."""

import dataclasses
import math

import pytest
from rows import RUN, row

from vtlab.core import noisefloor
from vtlab.explain import analyze, repetitions


def line_of(*rows):
    (line,) = analyze.analyse(list(rows), RUN).aggregates
    return line


def rep(number, rps, ci, **changes):
    return row(rep=number, throughput_rps=rps, throughput_ci95_rps=ci, ok_requests="", **changes)


def test_three_reps_give_the_t_interval_of_their_mean_not_their_intervals_joined():
    line = line_of(rep(1, 100, 1), rep(2, 110, 1), rep(3, 120, 1))
    # mean 110, s = √((10² + 0 + 10²) / 2) = 10, t(2) = 4.303: ± 4.303 × 10 / √3 = ± 24.844 → 85.156–134.844;
    # the reps' intervals joined would have said 99–121, a range no 95% statement backs
    assert line.interval_low == pytest.approx(85.156, abs=1e-3)
    assert line.interval_high == pytest.approx(134.844, abs=1e-3)
    # the line is told as that interval: centred on the mean, with its half-width
    assert line.line.measured.throughput_rps == pytest.approx(110)
    assert line.line.measured.throughput_ci95_rps == pytest.approx(24.844, abs=1e-3)
    assert (line.throughput_median, line.throughput_min, line.throughput_max) == (110, 100, 120)


def test_the_mean_of_skewed_reps_is_the_centre_not_their_median():
    line = line_of(rep(1, 100, 1), rep(2, 100, 1), rep(3, 130, 1))
    # mean 110, s = √((10² + 10² + 20²) / 2) = √300 = 17.321; ± 4.303 × 17.321 / √3 = ± 43.03 → 66.97–153.03
    assert line.throughput_median == 100 and line.line.measured.throughput_rps == pytest.approx(110)
    assert (line.interval_low, line.interval_high) == (pytest.approx(66.97, abs=0.01), pytest.approx(153.03, abs=0.01))


def test_two_equal_reps_have_an_interval_of_no_width():
    line = line_of(rep(1, 200, 3), rep(2, 200, 5))
    assert (line.interval_low, line.interval_high) == (200, 200)  # s = 0: t × 0 / √2 = 0


def test_one_rep_keeps_its_own_within_row_interval():
    line = line_of(rep(1, 99.5, 0.4))
    assert (line.interval_low, line.interval_high) == (pytest.approx(99.1), pytest.approx(99.9))
    assert line.line.measured.throughput_ci95_rps == 0.4
    unknown = line_of(rep(1, 99.5, ""))  # an older CSV: no interval, the point itself, still unknown to the line
    assert (unknown.interval_low, unknown.interval_high) == (99.5, 99.5)
    assert math.isnan(unknown.line.measured.throughput_ci95_rps)


def test_only_the_valid_reps_are_counted_and_one_valid_rep_is_told_with_its_own_interval():
    invalid = {"throughput_first_half_rps": 150, "throughput_second_half_rps": 50}  # drifted: not steady
    line = line_of(rep(1, 100, 2), rep(2, 60, 9, **invalid), rep(3, 140, 9, **invalid))
    assert [m.valid for m in line.members] == [True, False, False] and repetitions.counted(line) == 1
    assert (line.interval_low, line.interval_high) == (98, 102)  # rep 1's own: 100 ± 2
    both = line_of(rep(1, 100, 2), rep(2, 104, 2), rep(3, 140, 9, **invalid))
    # reps 1 and 2: mean 102, s = 2.828, t(1) = 12.706: ± 12.706 × 2.828 / √2 = ± 25.412
    assert repetitions.counted(both) == 2
    assert both.interval_low == pytest.approx(76.588, abs=1e-3)
    assert both.interval_high == pytest.approx(127.412, abs=1e-3)


def test_one_rep_is_compared_at_least_at_the_measured_between_run_noise():
    # the floor: CV 2% over 5 runs, t(4) = 2.776: one run's throughput ± 5.552% for a comparison
    rig = dataclasses.replace(RUN.rig, noise_floor_cv_pct=2.0, noise_floor_runs=5)
    assert noisefloor.half_share(rig) == pytest.approx(0.05552)
    assert repetitions.noise_half(100, 1.0, rig) == pytest.approx(5.552)   # a narrow row: the floor
    assert repetitions.noise_half(100, 7.0, rig) == 7.0                    # a noisy row: its own interval
    assert repetitions.noise_half(100, math.nan, rig) == pytest.approx(5.552)  # none measured: the floor


def test_the_line_carries_the_half_width_its_comparisons_use():
    run = dataclasses.replace(RUN, rig=dataclasses.replace(RUN.rig, noise_floor_cv_pct=2.0, noise_floor_runs=5))
    (one,) = analyze.analyse([rep(1, 200, 1)], run).aggregates
    assert one.line.noise_half_rps == pytest.approx(11.104)  # 200 × 5.552%: not the row's ± 1
    assert one.line.measured.throughput_ci95_rps == 1        # told with its own interval
    (three,) = analyze.analyse([rep(1, 100, 1), rep(2, 110, 1), rep(3, 120, 1)], run).aggregates
    assert three.line.noise_half_rps == pytest.approx(24.844, abs=1e-3)  # the reps' mean's interval (above)
