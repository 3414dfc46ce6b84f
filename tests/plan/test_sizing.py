"""Points from the calibration: the hero's users (and the default's top point) moved down to what this machine carries
with k6 inside the rig's validity limit, never up, never a user's --conc; no calibration, the nominal points."""

from __future__ import annotations

import dataclasses

import pytest

from vtlab.core import constants
from vtlab.plan import calibration, planner, presets
from vtlab.plan.calibration import Calibration, ModeCost, Split
from vtlab.report import appendix
from vtlab.results import record

# The rig pinned (the measured price and floor move when re-measured): k6's cost judged from a host 86.8% busy, 1.8 of
# the throughput per share of the machine k6 takes, a between-run floor of ± t(4) × 1% = ± 2.776%.
PINNED = dataclasses.replace(constants.CURRENT, generator_host_busy_pct=86.8, generator_loss_per_share=1.8,
                             noise_floor_cv_pct=1.0, noise_floor_runs=5)


@pytest.fixture(autouse=True)
def two_cores_and_the_pinned_rig(monkeypatch):
    monkeypatch.setattr(presets.os, "sched_getaffinity", lambda _pid: {0, 1})  # the hero's 2,000 users unscaled
    monkeypatch.setattr(constants, "CURRENT", PINNED)


def mode(service: Split, slower: float) -> ModeCost:
    def scaled(split: Split) -> Split:
        return Split(split.marginal_ms * slower, split.fixed_ms_per_s * slower)
    return ModeCost(1.0, 0.3, 0.1, 0.1, 190, splits={
        "service": scaled(service), "k6": scaled(Split(0.2, 10)), "stub": scaled(Split(0.1, 5)),
        "postgresql": scaled(Split(0.1, 5))})


def measured(slower: float = 1.0, quota: float | None = None) -> Calibration:
    """A fast machine's calibration (× `slower` for a slower one): virtual threads 0.40 ms a request + 40 ms a second
    for the service, k6 0.20 + 10, the stub 0.10 + 5, PostgreSQL 0.10 + 5 — all tiers 0.80 ms + 60 ms/s; platform
    threads' service 0.45 + 50."""
    return Calibration(machine="test", cores=2, version=calibration.CALIBRATION_VERSION,
                       measured_at="2026-11-27T10:00:00+00:00", quota=quota,
                       modes={"platform": mode(Split(0.45, 50), slower), "virtual": mode(Split(0.40, 40), slower)})


def users(plan: planner.Plan) -> list[int]:
    return sorted({row.concurrency for row in plan.rows})


def test_the_hero_keeps_its_users_on_a_machine_that_carries_them():
    # the host below 86.8% of 2 cores: 1,736 ms a second, less the fixed 60: 1,676 ÷ 0.80 = 2,095 req/s; at 1 s a
    # request 2,095 users, more than the hero's 2,000 (platform threads: their wall, 200 req/s, fits)
    plan = planner.build("hero", planner.Overrides(), measured())
    assert users(plan) == [2000]
    assert plan.sizing["moved"] == [] and plan.describe()["sizing"]["calibration"]["measured_at"].startswith(
        "2026-11-27")
    assert plan.sized_words() == "points as the profile's: this machine carries them (calibration of 2026-11-27)"


def test_on_a_machine_30_percent_slower_the_hero_gets_the_most_users_it_carries():
    # every cost × 1.3: all tiers 1.04 ms + 78 ms/s; (1,736 − 78) ÷ 1.04 = 1,594.2 req/s: 1,594 users. By k6's side:
    # its cost within 2.776% is 2.776% ÷ 1.8 = 1.542% of the machine, 30.84 ms/s; (30.84 − 13) ÷ 0.26 = 68.6 req/s,
    # the lesser: the host's side decides
    plan = planner.build("hero", planner.Overrides(), measured(slower=1.3))
    assert users(plan) == [1594]
    ((nominal, chosen, why),) = [(m["nominal"], m["chosen"], m["why"]) for m in plan.sizing["moved"]]
    assert (nominal, chosen) == (2000, 1594)
    assert "86.8% busy" in why and "2,000 virtual-thread users" in why
    assert plan.sized_words() == "sized by this machine's calibration of 2026-11-27: 2,000 users → 1,594"


def test_under_a_cpu_quota_the_hero_gets_the_users_of_the_cores_it_may_use():
    # 1.4 cores: 86.8% of 1,400 ms a second is 1,215.2, less 60: 1,155.2 ÷ 0.80 = 1,444 req/s
    assert users(planner.build("hero", planner.Overrides(), measured(quota=1.4))) == [1444]


def test_the_default_profiles_top_point_moves_only_where_it_would_not_fit():
    fits = planner.build("quick", planner.Overrides(), measured(quota=1.0))
    # 1 core: (868 − 60) ÷ 0.80 = 1,010 req/s at 1 s: the 1,000 users fit
    assert users(fits) == [100, 400, 1000] and fits.sizing["moved"] == []
    # 30% slower on 1 core: (868 − 78) ÷ 1.04 = 759.6: the top point only, 1,000 → 759
    moved = planner.build("quick", planner.Overrides(), measured(slower=1.3, quota=1.0))
    assert users(moved) == [100, 400, 759]
    assert [(r.conn_mode, r.concurrency) for r in moved.rows if r.conn_mode == "held"] == [("held", 100)] * 2


def test_a_users_conc_is_never_moved():
    plan = planner.build("hero", planner.Overrides(concurrency=(2000,)), measured(slower=1.3))
    assert users(plan) == [2000] and plan.sizing == {} and "sizing" not in plan.describe()
    assert plan.sized_words() == ""


def test_without_a_calibration_the_profiles_nominal_points_are_planned():
    plan = planner.build("hero", planner.Overrides())
    assert users(plan) == [2000] and plan.sizing == {} and "sizing" not in plan.describe()
    assert plan.sized_words().startswith("points as the profile's (no calibration of this machine cached")


def test_the_report_says_where_a_point_moved_and_only_then():
    def plan_record(plan: planner.Plan) -> record.PlanRecord:
        return record.from_dict({"plan": plan.describe()}).plan

    moved = plan_record(planner.build("hero", planner.Overrides(), measured(slower=1.3)))
    (sentence,) = appendix.moved_points(moved)
    assert sentence.startswith("This machine's calibration moved the profile's 2,000-user point to 1,594 users: ")
    assert appendix.moved_points(plan_record(planner.build("hero", planner.Overrides(), measured()))) == []
    assert appendix.moved_points(plan_record(planner.build("hero", planner.Overrides()))) == []
