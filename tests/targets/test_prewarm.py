"""A staircase's fresh JVM is warmed at its top rate before its first step; nothing else is."""

from pathlib import Path

import pytest

from vtlab.measure import jit, load, settle
from vtlab.measure.tiers import Rig
from vtlab.plan import planner, presets
from vtlab.targets import aotcache, prewarm, userjvm


def _quick(monkeypatch, **given):
    monkeypatch.setattr(presets.os, "sched_getaffinity", lambda _pid: {0, 1})  # 2 cores: 1,000 users unscaled
    return planner.build("quick", planner.Overrides(**given))


def test_the_first_step_of_each_modes_staircase_is_pre_warmed_and_no_later_one(monkeypatch):
    plan = _quick(monkeypatch)
    wanted = [prewarm.wanted(plan, row, position, fresh=position in (0, 4)) for position, row in enumerate(plan.rows)]
    assert wanted == [True, False, False, False, True, False, False, False]


def test_platform_threads_pre_warm_at_their_request_threads_virtual_threads_at_the_top_step(monkeypatch):
    plan = _quick(monkeypatch)
    platform, virtual = plan.rows[0], plan.rows[4]
    # the family's top step is 1,000 users; 800 of them would only queue behind 200 platform threads
    assert (prewarm.users(plan, platform), prewarm.users(plan, virtual)) == (200, 1000)
    fewer = _quick(monkeypatch, tomcat_max_threads=150)
    assert prewarm.users(fewer, fewer.rows[0]) == 150


def test_a_row_on_a_jvm_of_its_own_or_a_fixed_warm_up_is_not_pre_warmed(monkeypatch):
    single = _quick(monkeypatch, jvm_per_row=True)
    assert not any(prewarm.wanted(single, row, p, fresh=True) for p, row in enumerate(single.rows))
    fixed = _quick(monkeypatch, warmup_until="fixed")
    assert not any(prewarm.wanted(fixed, row, p, fresh=True) for p, row in enumerate(fixed.rows))
    one_step = _quick(monkeypatch, concurrency=(400,), conn_modes=("released",))
    assert [prewarm.wanted(one_step, row, p, fresh=True) for p, row in enumerate(one_step.rows)] == [False, False]


def _jar_plan(**given):
    """A --service jar's plan: its own workload, a staircase per thread mode (10, 100, 400 users)."""
    return planner.build("service", planner.Overrides(workloads=(presets.SERVICE_WORKLOAD,), **given))


def _jar_jvm(steps):
    return userjvm.UserJvm(("family",), "slug", None, aotcache.WITHOUT, lambda: None, Path(), steps=steps)


def test_a_service_jars_staircase_would_be_pre_warmed_before_its_first_step_but_is_not_for_now():
    plan = _jar_plan()
    assert [(row.thread_mode, row.concurrency) for row in plan.rows] == [
        ("platform", 10), ("platform", 100), ("platform", 400), ("virtual", 10), ("virtual", 100), ("virtual", 400)]
    wanted = [prewarm.wanted(plan, row, position, fresh=position in (0, 3)) for position, row in enumerate(plan.rows)]
    assert wanted == [True, False, False, True, False, False]
    # the jar's own JVM: fresh before its first step, warm from then on
    assert not userjvm.prewarm_due(_jar_jvm(0), plan, plan.rows[0], 0)  # JAR_PREWARM off (userjvm says why)
    assert not userjvm.prewarm_due(_jar_jvm(1), plan, plan.rows[1], 1)


def test_a_service_jar_is_not_pre_warmed_where_vtlabs_own_service_would_not_be():
    for plan in (_jar_plan(prewarm="off"), _jar_plan(jvm_per_row=True), _jar_plan(warmup_until="fixed")):
        assert not any(prewarm.wanted(plan, row, p, fresh=True) for p, row in enumerate(plan.rows))


def test_a_jars_platform_pre_warm_is_capped_at_the_request_threads_it_reported():
    plan = _jar_plan()
    platform, virtual = plan.rows[0], plan.rows[3]
    assert platform.tomcat_max_threads == 0  # vtlab does not size a jar's request threads
    assert prewarm.users(plan, platform, reported_threads=200) == 200
    assert prewarm.users(plan, platform, reported_threads=0) == 400  # none reported: the top step's users
    assert prewarm.users(plan, virtual, reported_threads=200) == 400


def test_the_prewarms_burst_is_its_busiest_step_window_of_the_jvms_compile_time(tmp_path):
    meter = jit.JitMeter(4242, tmp_path / "none", tmp_path)
    meter.source = jit.PERFDATA
    # 20 s: 1.0, 0.5, 0.25, 0.25 s compiled a second in its four 5 s windows -> 5.0 s in the first, 1.0 a second
    meter.seconds = [(100.0 + t, float(min(t, 5) + 0.5 * max(0, min(t, 10) - 5) + 0.25 * max(0, t - 10)))
                     for t in range(21)]
    assert prewarm.burst_of(meter, 99.0) == settle.Burst(1.0, jit.PERFDATA)
    assert prewarm.burst_of(None, 99.0) is None  # a service not ours: no JIT read


def test_a_paired_points_arms_are_pre_warmed_at_once_each_at_its_own_users(monkeypatch, tmp_path):
    """A k6 that notes when it ran and with how many users: both arms' pre-warms overlap, each at its own top rate."""
    plan = _quick(monkeypatch, paired=True, blocks=2)
    platform, virtual = (next(row for row in plan.rows if row.thread_mode == mode and row.concurrency == 1000)
                         for mode in ("platform", "virtual"))
    ran = tmp_path / "ran"
    fake = tmp_path / "k6"
    fake.write_text(f'#!/bin/sh\necho "start $(date +%s.%N) $VUS" >> {ran}\nsleep 1.5\n'
                    f'echo "end $(date +%s.%N)" >> {ran}\n')
    fake.chmod(0o755)
    (tmp_path / "logs").mkdir()
    rig = Rig(None, fake, "", None, None, (0, 0, False), {"load": set()}, tmp_path)
    spec = load.LoadSpec("http://127.0.0.1:1", "closed", 1000, 0, 5, 30, 10, 1000, 0)
    monkeypatch.setattr(prewarm, "PREWARM_S", 1)
    warmed = prewarm.warm_together(rig, plan, [prewarm.Warming(spec, platform, "p", None),
                                               prewarm.Warming(spec, virtual, "v", None)])
    assert [(done.users, done.burst) for done in warmed] == [(200, None), (1000, None)]  # platform: its 200 threads
    lines = [line.split() for line in ran.read_text().splitlines()]
    starts = [float(line[1]) for line in lines if line[0] == "start"]
    ends = [float(line[1]) for line in lines if line[0] == "end"]
    assert sorted(line[2] for line in lines if line[0] == "start") == ["1000", "200"]
    assert max(starts) < min(ends)  # the second began before the first ended


class _Jvm:
    """A service JVM as OwnService keeps it, stopped by name."""

    def __init__(self, name: str, stopped: list[str]):
        self.name, self.stopped, self.prewarmed_users, self.jit_burst = name, stopped, 0, None
        self.app = type("App", (), {"pid": 4000 + len(name)})()

    def stop(self, rig) -> None:
        self.stopped.append(self.name)


def test_jvms_readied_together_are_pre_warmed_in_one_go_and_all_stopped_where_the_pre_warm_fails(monkeypatch):
    from vtlab.targets import own
    plan = _quick(monkeypatch, paired=True, blocks=2)
    platform, virtual = (next(row for row in plan.rows if row.thread_mode == mode) for mode in ("platform", "virtual"))
    service = own.OwnService(keep=False, core_map={})
    service.rig, service.plan, stopped, calls = None, plan, [], []
    jvms = {platform.thread_mode: _Jvm("platform", stopped), virtual.thread_mode: _Jvm("virtual", stopped)}
    monkeypatch.setattr(service, "_set_up", lambda row, position, warmup_s: (jvms[row.thread_mode], "spec", True))

    def warmed(rig, plan, wanted):
        calls.append([one.row.thread_mode for one in wanted])
        return [prewarm.Prewarmed(7, None) for _ in wanted]
    monkeypatch.setattr(prewarm, "warm_together", warmed)
    made = service._ready_together([(platform, 0, 30), (virtual, 1, 30)])
    assert [jvm.name for jvm, _ in made] == ["platform", "virtual"] and calls == [["platform", "virtual"]]
    assert [jvm.prewarmed_users for jvm, _ in made] == [7, 7] and stopped == []

    def failed(rig, plan, wanted):
        raise RuntimeError("the pre-warm's k6 did not finish in time")
    monkeypatch.setattr(prewarm, "warm_together", failed)
    for jvm in jvms.values():
        jvm.prewarmed_users = 0
    with pytest.raises(RuntimeError):
        service._ready_together([(platform, 0, 30), (virtual, 1, 30)])
    assert stopped == ["platform", "virtual"]  # neither left up
