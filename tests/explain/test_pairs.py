"""A paired run's answer at a point: the geometric mean of its pairs' ratios with the Student-t interval of their log
ratios; which blocks leave their pair out, and which flags of the machine's drift do not."""

import math

import pytest

from vtlab.explain import analyze, pairs, validity
from vtlab.core.aafloor import AA
from vtlab.core.aafloor import Floor as AAFloor
from vtlab.core.arms import ARM_B_OPTION, Arms
from vtlab.results import record

from rows import META, row

RUN = record.from_dict({**META, "plan": {"profile": "quick", "model": "closed", "ramp_s": 5, "warmup_s": 45,
                                         "hold_s": 30, "stub_delay_ms": 1000, "stub_jitter_ms": 0, "overrides": {},
                                         "rows": [], "paired": {"a": "platform", "b": "virtual", "aa": False,
                                                                "blocks": 4, "seed": 1}}})


def block(mode: str, rep: int, rps: float, **changes):
    """A clean 100-user block: its requests and halves agree with its throughput (30 s hold)."""
    return row(**{"thread_mode": mode, "rep": rep, "throughput_rps": rps, "http_reqs": round(rps * 30),
                  "ok_requests": round(rps * 30), "throughput_first_half_rps": rps,
                  "throughput_second_half_rps": rps, **changes})


def test_the_ratio_is_the_geometric_mean_of_the_pairs_with_their_t_interval():
    # ratios 2.0, 2.2, 1.8, 2.0: logs 0.693147, 0.788457, 0.587787, 0.693147; mean 0.6906345 -> 1.99499;
    # sd 0.0819746, se 0.0409873, t(3) 3.182: half 0.1304216 -> [exp(0.5602129), exp(0.8210561)] = [1.75105, 2.27293]
    rows = [block("platform", 1, 40), block("virtual", 1, 80), block("virtual", 2, 88), block("platform", 2, 40),
            block("virtual", 3, 72), block("platform", 3, 40), block("platform", 4, 45), block("virtual", 4, 90)]
    (point,) = analyze.analyse(rows, RUN).paired
    assert point.ratio == pytest.approx(1.99499, abs=5e-5)
    assert (point.low, point.high) == (pytest.approx(1.75105, abs=5e-5), pytest.approx(2.27293, abs=5e-5))
    assert [pair.order for pair in point.pairs] == ["ab", "ba", "ba", "ab"]
    assert not point.contains_one


def test_a_block_the_machine_moved_stands_one_that_failed_leaves_its_pair_out():
    rows = [block("platform", 1, 40), block("virtual", 1, 80),
            # its halves 30% apart: not-steady, invalid as a row, kept in its pair
            block("virtual", 2, 80, throughput_first_half_rps=92, throughput_second_half_rps=68),
            block("platform", 2, 40),
            block("platform", 3, 40), block("virtual", 3, 80, error_rate=0.2)]
    analysis = analyze.analyse(rows, RUN)
    (point,) = analysis.paired
    assert [pair.why_out for pair in point.pairs] == ["", "", "arm b: errors-above-threshold"]
    assert point.ratio == pytest.approx(2.0) and point.low == pytest.approx(2.0)  # two equal ratios: no spread
    # the drifted block stands as its pair does, its flag said; the failed one's pair is out, its rows as they were
    drifted, erring = analysis.verdicts[2], analysis.verdicts[5]
    assert drifted.valid and drifted.flags[-2:] == ("not-steady", validity.IN_A_PAIR)
    assert not erring.valid and validity.IN_A_PAIR not in erring.flags
    assert analysis.verdicts[4].valid and validity.IN_A_PAIR not in analysis.verdicts[4].flags  # valid on its own
    platform = next(line for line in analysis.aggregates if line.row.thread_mode == "virtual")
    assert platform.valid_reps == 2  # the arm's figure: blocks 1 and 2, not the failed one's


def test_a_drifted_block_stands_only_where_its_point_has_an_interval():
    rows = [block("platform", 1, 40), block("virtual", 1, 80, throughput_first_half_rps=92,
                                                               throughput_second_half_rps=68),
            block("virtual", 2, 80, error_rate=0.2), block("platform", 2, 40)]
    analysis = analyze.analyse(rows, RUN)
    assert analysis.paired[0].computed and math.isnan(analysis.paired[0].low)  # one pair counts: no interval
    assert not analysis.verdicts[1].valid and validity.IN_A_PAIR not in analysis.verdicts[1].flags


def test_no_counted_pair_is_no_ratio_and_says_why():
    rows = [block("platform", 1, 40, error_rate=0.5), block("virtual", 1, 80)]
    (point,) = analyze.analyse(rows, RUN).paired
    assert not point.computed and "errors-above-threshold" in point.why_not
    one = analyze.analyse([block("platform", 1, 40), block("virtual", 1, 80)], RUN).paired[0]
    assert one.ratio == pytest.approx(2.0) and math.isnan(one.low)  # one pair: a ratio, no interval


def test_an_aa_pairs_the_marked_jvm_with_the_plain_one():
    arms = Arms("virtual", "virtual")
    rows = [block("virtual", 1, 50), block("virtual", 1, 51, jvm_opts=ARM_B_OPTION),
            block("virtual", 2, 49, jvm_opts=ARM_B_OPTION), block("virtual", 2, 50)]
    verdicts = analyze.analyse(rows, record.from_dict(META)).verdicts
    (point,) = pairs.points(verdicts, arms)
    assert [pair.ratio for pair in point.pairs] == [pytest.approx(1.02), pytest.approx(0.98)]
    assert point.contains_one


def test_a_run_not_paired_has_no_points():
    assert analyze.analyse([block("platform", 1, 40), block("virtual", 1, 80)], record.from_dict(META)).paired == ()


def failed_block(mode: str, rep: int):
    return {"thread_mode": mode, "rep": str(rep), "concurrency": "100", "hikari_pool": "50", "conn_mode": "released",
            "path_mode": "normal", "stub_delay_ms": "1000", "failed_tier": "service", "failure": "was killed"}


def test_a_block_measured_again_on_resume_is_its_measurement_but_not_adjacent_to_its_partner():
    # block 2's virtual row died; --resume measured it again after the rest: it replaces the failed row, but its
    # partner ran in the invocation before, so the pair no longer stands for one moment of the machine
    rows = [block("platform", 1, 40), block("virtual", 1, 80), block("platform", 2, 40), failed_block("virtual", 2),
            block("virtual", 3, 80), block("platform", 3, 40), block("virtual", 2, 84)]
    (point,) = analyze.analyse(rows, RUN).paired
    assert [(pair.block, pair.order, pair.b_rps) for pair in point.pairs] == [(1, "ab", 80), (2, "ab", 84),
                                                                             (3, "ba", 80)]
    assert point.pairs[1].why_out.startswith("its blocks not measured one right after the other")
    assert point.ratio == pytest.approx(2.0) and len(point.counted) == 2
    died = analyze.analyse(rows[:6], RUN).paired[0].pairs[1]
    assert died.why_out == "arm b: failed:service" and died.order == "ab"


def test_a_point_only_one_arm_reached_is_told_as_such():
    (point,) = analyze.analyse([block("virtual", 1, 80)], RUN).paired
    assert not point.computed and "arm a not measured" in point.why_not


def test_a_block_whose_service_meters_starved_stands_in_its_pair():
    # a CPU-bound virtual row's scrapes went unanswered: few meter samples, no pool or thread gauge; k6 counted what
    # it served all the same (seq1: 23 of 116 meter samples, 895 req/s)
    starved = dict(meter_samples=5, hikari_active_max="", jvm_threads_max="")
    rows = [block("platform", 1, 40), block("virtual", 1, 80, **starved),
            block("virtual", 2, 88, **starved), block("platform", 2, 40)]
    analysis = analyze.analyse(rows, RUN)
    assert "missing-samples" in analysis.verdicts[1].flags and not analysis.verdicts[1].valid
    (point,) = analysis.paired
    assert [pair.why_out for pair in point.pairs] == ["", ""] and point.ratio == pytest.approx(math.sqrt(2.0 * 2.2))


def compiling(mode: str, rep: int, rps: float, service_ms_per_s: float, jit_ms_per_s: float):
    return block(mode, rep, rps, app_cpu_pct=service_ms_per_s / 10, jit_cpu_ms_per_s=jit_ms_per_s)


def test_an_arm_whose_cpu_a_request_still_fell_over_its_blocks_with_its_compiler_busy_is_set_apart():
    # arm a's CPU a request, the compiler's apart: (200 - 20) / 40 = 4.5, (180 - 18) / 44 = 3.682, (160 - 16) / 48 = 3
    # ms; the fit through ln 4.5, ln 3.682, ln 3 falls by ln(3 / 4.5) over the two steps: a third, past the 10% the
    # warm-up allows, with the compiler at 10% of its CPU in each block (past 5%). Arm b: 2.475 ms a request in every
    # block, its compiler at 1%.
    rows = [compiling("platform", 1, 40, 200, 20), compiling("virtual", 1, 80, 200, 2),
            compiling("virtual", 2, 80, 200, 2), compiling("platform", 2, 44, 180, 18),
            compiling("platform", 3, 48, 160, 16), compiling("virtual", 3, 80, 200, 2)]
    analysis = analyze.analyse(rows, RUN)
    (point,) = analysis.paired
    assert not point.computed and point.why_not == "no pair of blocks counts (arm a: jit-not-settled)"
    assert [(v.row.thread_mode, v.valid, validity.JIT_NOT_SETTLED in v.flags) for v in analysis.verdicts] == [
        ("platform", False, True), ("virtual", True, False), ("virtual", True, False), ("platform", False, True),
        ("platform", False, True), ("virtual", True, False)]
    # the same fall with arm a's compiler at 4% (8, 7.2, 6.4 ms/s): the warm-up's test would have passed it
    quiet = [compiling("platform", 1, 40, 200, 8), compiling("virtual", 1, 80, 200, 2),
             compiling("virtual", 2, 80, 200, 2), compiling("platform", 2, 44, 180, 7.2)]
    assert analyze.analyse(quiet, RUN).paired[0].computed
    # a busy compiler whose arm's rate rose (40, 42, 44 req/s: ln(44 / 40), 9.5%) and whose CPU a request moved by
    # noise, not a trend: (200 - 20) / 40 = 4.5, (228.7 - 22.87) / 42 = 4.90, (210.2 - 21.02) / 44 = 4.30 ms (fit:
    # ln(4.30 / 4.5), 4.5% less) — the pairs stand
    noisy = [compiling("platform", 1, 40, 200, 20), compiling("virtual", 1, 80, 200, 2),
             compiling("virtual", 2, 80, 200, 2), compiling("platform", 2, 42, 228.7, 22.87),
             compiling("platform", 3, 44, 210.2, 21.02), compiling("virtual", 3, 80, 200, 2)]
    assert len(analyze.analyse(noisy, RUN).paired[0].counted) == 3
    # a rate a wall held: arm a's CPU a request fell (193 / 47.5 = 4.06, 158 / 47.5 = 3.33, 118 / 47.5 = 2.48 ms: 39%)
    # with its compiler at 16% and 17% of its CPU in the first two blocks, at 47.5 req/s in each: the JIT moved
    # nothing the pairs compare, and they stand
    held = [compiling("virtual", 1, 47.5, 230, 37), compiling("platform", 1, 47.5, 200, 2),
            compiling("platform", 2, 47.5, 200, 2), compiling("virtual", 2, 47.5, 190, 32),
            compiling("virtual", 3, 47.5, 120, 2), compiling("platform", 3, 47.5, 200, 2)]
    assert len(analyze.analyse(held, RUN).paired[0].counted) == 3
    # an arm whose compiler's CPU was not read (a --url service): not judged
    unread = [block("platform", 1, 40, app_cpu_pct=20), block("virtual", 1, 80), block("virtual", 2, 80),
              block("platform", 2, 48, app_cpu_pct=16)]
    assert len(analyze.analyse(unread, RUN).paired[0].counted) == 2


def test_the_fitted_fall_is_the_least_squares_line_through_the_logs_first_to_last():
    assert pairs.fitted_fall([4.0, 3.0]) == pytest.approx(0.25)
    # ln 4, ln 2, ln 2: slope (ln 2 - ln 4) / 2, over the two steps a fall of ln 2: a half
    assert pairs.fitted_fall([4.0, 2.0, 2.0]) == pytest.approx(0.5)
    assert pairs.fitted_fall([2.0, 2.0, 2.0]) == pytest.approx(0.0)
    assert pairs.fitted_fall([1.0, 2.0]) == pytest.approx(-1.0)


def _three_pairs(*logs: float):
    """Three pairs at 100 req/s on arm a, arm b at 100 × e^log."""
    rows = [block(mode, rep, 100.0 if mode == "platform" else 100.0 * math.exp(log))
            for rep, log in enumerate(logs, start=1) for mode in ("platform", "virtual")]
    (point,) = analyze.analyse(rows, RUN).paired
    return point


def test_pairs_to_tell_a_ratio_from_one_are_the_least_whose_t_interval_leaves_it_at_the_pairs_spread():
    # log ratios 0, 0.13, 0.26: mean 0.13 (1.1388x), sd 0.13; 3 pairs' half 4.303 x 0.13 / sqrt 3 = 0.323 holds 1.00x.
    # t(n-1) / sqrt n below 0.13 / 0.13 = 1: n=4 3.182/2 = 1.59, 5 2.776/2.236 = 1.24, 6 2.571/2.449 = 1.05,
    # 7 2.447/2.646 = 0.925 -> 7
    point = _three_pairs(0.0, 0.13, 0.26)
    assert point.contains_one and point.ratio == pytest.approx(math.exp(0.13))
    assert pairs.pairs_to_tell(point) == 7
    assert pairs.pairs_to_tell(point, holds=lambda ratio: True) is None  # within the A/A floor: nothing to tell
    assert pairs.pairs_to_tell(point, holds=lambda ratio: False) == 7
    # logs 0.01, 0.5, -0.45: mean 0.02, sd 0.475; at 30 pairs 2.045 x 0.475 / 5.477 = 0.177, still above 0.02
    assert pairs.pairs_to_tell(_three_pairs(0.01, 0.5, -0.45)) == pairs.MOST_PAIRS + 1
    # an interval that already leaves 1.00x, and a ratio that reads 1.00x, ask for nothing
    assert pairs.pairs_to_tell(_three_pairs(0.69, 0.70, 0.71)) is None
    assert pairs.pairs_to_tell(_three_pairs(-0.1, 0.0, 0.1)) is None


def test_the_paired_section_tells_the_pairs_a_next_run_would_need_and_not_for_an_aa():
    from dataclasses import replace

    from vtlab.report import paired as told
    point = _three_pairs(0.0, 0.13, 0.26)
    # 7 counted pairs, asked as 4 couples of blocks; with no A/A measured here, that none says whether 13.9% is more
    # than the design's own difference, and with a floor of 2% (1.02x), nothing of it
    assert "about 7 counted pairs (`--blocks 8`) would tell 1.14× from 1.00× about half the time" in told.more_pairs(
        point, None)
    assert "whether a difference of 13.9% is more than the design's own" in told.more_pairs(point, None)
    assert "whether a difference" in told.more_pairs(point, AAFloor("here"))  # a floor of no A/A: none measured
    floor = AAFloor("here", (AA("2026-12-07T10:00:00", "/tmp/aa1", "1,000 users", 1.02, 0.99, 1.05, 3),))
    beyond = told.more_pairs(point, floor)
    assert "--blocks 8" in beyond and "whether a difference" not in beyond
    assert told.more_pairs(_three_pairs(0.0, 0.01, 0.02), floor) == ""  # 1.01x lies within the floor's band
    assert told.more_pairs(replace(point, arms=Arms("virtual", "virtual")), None) == ""
    assert "not even 30 pairs" in told.more_pairs(_three_pairs(0.01, 0.5, -0.45), None)
    # report.json carries the same count, null where there is nothing to tell
    from vtlab.report import jsonfile
    [told_point, told_none] = jsonfile._paired((point, _three_pairs(0.69, 0.70, 0.71)), None)
    assert (told_point["pairs_to_tell"], told_none["pairs_to_tell"]) == (7, None)
