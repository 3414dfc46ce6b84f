"""The compiler's burst is the JVM's, not the row's: a burst in the pre-warm or an earlier step is over as much as
one since the row's ramp (measure.settle.Burst), on hand-made JIT series."""

import pytest

from vtlab.measure import jit, settle

WINDOW_S = settle.STEP_WINDOW_S  # a pre-warmed first step is warm: it is judged over a step's windows


def steady(per_s, seconds=20):
    """(time, running total) a reading a second, growing `per_s` a second."""
    return [(float(t), per_s * t) for t in range(seconds + 1)]


def host_with_room(seconds=20):
    """The machine's busy and total CPU so far: 35% busy, well below a full host."""
    return steady(70.0, seconds), steady(200.0, seconds)


def after_a_prewarm(busiest_before_per_s):
    """A pre-warmed jar's first step at 100 req/s: the service's CPU 20 a second, its compiler's 2 of them (10%,
    above JIT_SHARE) every second since the ramp, so the row's busiest window is its current one."""
    return settle.judge(steady(100.0), steady(20.0), steady(2.0), 0.0, (), *host_with_room(), window_s=WINDOW_S,
                        busiest_before_per_s=busiest_before_per_s)


def test_a_burst_spent_in_the_prewarm_is_over_though_the_row_compiles_at_a_tenth_of_its_cpu():
    judged = after_a_prewarm(12.0)  # the pre-warm's busiest: 12 a second, 6x the row's 2
    assert judged is not None and judged.settled
    assert judged.jit_share == pytest.approx(0.10)  # 10 of 100 in the last 5 s
    assert judged.jit_decay == pytest.approx(1 / 6)  # 10 against the pre-warm's 60 a window


def test_without_the_prewarms_reference_the_same_row_is_held_as_mid_burst():
    judged = after_a_prewarm(0.0)
    assert judged is not None and judged.unmet == (settle.JIT,)
    assert judged.jit_decay == 1.0  # its busiest window since the ramp is its last


def test_a_jvm_still_mid_burst_is_not_settled_whatever_its_burst_before_the_row():
    judged = after_a_prewarm(2.5)  # the row's 2 a second is 80% of the JVM's busiest
    assert judged is not None and judged.unmet == (settle.JIT,)
    assert judged.jit_decay == pytest.approx(0.8)


def test_a_burst_read_another_way_is_no_reference():
    burst = settle.Burst(12.0, jit.PERFDATA)
    assert burst.per_s_in(jit.PERFDATA) == 12.0
    assert burst.per_s_in(jit.COMPILER_THREADS) == 0.0  # elapsed compile time is not the compiler's CPU


def compile_seconds(per_s_by_5s, start=100.0):
    """The compiler's time so far, a reading a second from `start`, from its time a second in each 5 s."""
    points, total = [(start, 0.0)], 0.0
    for second in range(5 * len(per_s_by_5s)):
        total += per_s_by_5s[second // 5]
        points.append((start + second + 1, total))
    return points


def test_the_jvms_burst_is_its_busiest_window_kept_across_its_prewarm_and_steps():
    # a pre-warm: 0.6, 0.4, 0.2, 0.1 s of compiling a second in its four 5 s windows -> busiest 3.0 s in 5 s
    prewarm = settle.busiest(None, compile_seconds([0.6, 0.4, 0.2, 0.1]), jit.PERFDATA, 100.0, WINDOW_S)
    assert prewarm == settle.Burst(pytest.approx(0.6), jit.PERFDATA)
    # a step after it compiles at most 0.1 a second: the pre-warm's burst stays the reference
    calm = settle.busiest(prewarm, compile_seconds([0.1, 0.05], 200.0), jit.PERFDATA, 200.0, WINDOW_S)
    assert calm == prewarm
    # a step that compiles more a second than the pre-warm did (new paths) is the new reference
    busier = settle.busiest(prewarm, compile_seconds([0.9, 0.2], 200.0), jit.PERFDATA, 200.0, WINDOW_S)
    assert busier == settle.Burst(pytest.approx(0.9), jit.PERFDATA)
    # nothing read: the burst before stands
    assert settle.busiest(prewarm, [], "", 200.0, WINDOW_S) == prewarm


def test_a_burst_is_read_from_the_first_reading_on_though_the_stretch_began_before_it():
    # the pre-warm's clock starts as k6 does; the meter's first reading comes a moment later
    late = settle.busiest(None, compile_seconds([0.6, 0.4, 0.2, 0.1]), jit.PERFDATA, 99.4, WINDOW_S)
    assert late == settle.Burst(pytest.approx(0.6), jit.PERFDATA)


def test_the_decider_hands_the_next_step_the_jvms_busiest_window(tmp_path):
    before = settle.Burst(0.6, jit.PERFDATA)
    decider = settle.HoldDecider(tmp_path / "row.hold", [tmp_path / "live"], ramp_s=2, max_warmup_s=40, hold_s=30,
                                 cooldown_s=3, started_unix=198.0, pid=4242, window_s=WINDOW_S,
                                 burst=before)
    decider.meter.source, decider.meter.seconds = jit.PERFDATA, compile_seconds([0.3, 0.2], 200.0)
    assert decider._before_per_s() == 0.6
    assert decider.burst() == before  # the row's busiest window since its ramp, 0.3 a second, is below 0.6
    decider.meter.seconds = compile_seconds([1.2, 0.2], 200.0)  # 6.0 s in its first 5 s: 1.2 a second
    assert decider.burst() == settle.Burst(pytest.approx(1.2), jit.PERFDATA)
    fresh = settle.HoldDecider(tmp_path / "fresh.hold", [tmp_path / "live"], ramp_s=2, max_warmup_s=40, hold_s=30,
                               cooldown_s=3, started_unix=198.0)
    assert fresh.burst() is None  # not our JVM: nothing read, nothing carried
