"""A staircase's fresh JVM is warmed at its top rate before its first step; nothing else is."""

from vtlab.plan import planner, presets
from vtlab.targets import prewarm


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
