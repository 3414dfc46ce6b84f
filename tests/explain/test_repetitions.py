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
    # mean 110, s = √((10² + 0 + 10²) / 2) = 10, t(2) = 4.303: ± 4.303 × 10 / √3 = ± 24.844; its ends on the logs:
    # ln 100, ln 110, ln 120 have mean 4.69771 and s 0.09119, so e^(4.69771 ± 4.303 × 0.09119 / √3) = 87.458–137.588;
    # the reps' intervals joined would have said 99–121, a range no 95% statement backs
    assert line.interval_low == pytest.approx(87.458, abs=1e-3)
    assert line.interval_high == pytest.approx(137.588, abs=1e-3)
    # the line is told as the mean with that half-width
    assert line.line.measured.throughput_rps == pytest.approx(110)
    assert line.line.measured.throughput_ci95_rps == pytest.approx(24.844, abs=1e-3)
    assert (line.throughput_median, line.throughput_min, line.throughput_max) == (110, 100, 120)


def test_the_mean_of_skewed_reps_is_the_centre_not_their_median():
    line = line_of(rep(1, 100, 1), rep(2, 100, 1), rep(3, 130, 1))
    # mean 110; the logs' mean 4.69262 and s 0.15148: e^(4.69262 ± 4.303 × 0.15148 / √3) = 74.91–159.01
    assert line.throughput_median == 100 and line.line.measured.throughput_rps == pytest.approx(110)
    assert (line.interval_low, line.interval_high) == (pytest.approx(74.91, abs=0.01), pytest.approx(159.01, abs=0.01))


def test_two_far_apart_reps_have_an_interval_above_zero():
    # spring-petclinic-rest's platform arm at 10 users, two blocks (pd1, 2026-12-02): mean 266.4, s 42.71, t(1) =
    # 12.706, so mean ± t × s / √2 would read −117.3–650.1 req/s; the logs' (5.57853, 0.16101) read 62.3–1,124.6
    line = line_of(rep(1, 296.6, 9), rep(2, 236.2, 9))
    assert line.line.measured.throughput_rps == pytest.approx(266.4)
    assert line.interval_low == pytest.approx(62.3, abs=0.1) and line.interval_high == pytest.approx(1124.6, abs=0.1)


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
    # reps 1 and 2: the logs' mean 4.62478, s 0.02773, t(1) = 12.706: e^(4.62478 ± 12.706 × 0.02773 / √2)
    assert repetitions.counted(both) == 2
    assert both.interval_low == pytest.approx(79.488, abs=1e-3)
    assert both.interval_high == pytest.approx(130.837, abs=1e-3)


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
