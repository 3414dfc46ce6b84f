"""The live search's parts that need no live run: a point read back from a real run folder as `vtlab report` would
judge its row, the rows a search measures (its loads, its repeats) and the JVM its points share."""

from __future__ import annotations

import csv
import math
from dataclasses import replace

import pytest
from recordings import replayed

from vtlab.capacity import fromrow
from vtlab.capacity.search import Settings, next_load
from vtlab.cli import capacitypoints
from vtlab.core import dimensions, objective
from vtlab.core.dimensions import Row
from vtlab.explain.model import Ceilings, Measured, Verdict
from vtlab.plan import planner


def test_a_point_is_its_rows_hold_read_back_with_the_reports_verdict(tmp_path):
    run_dir = replayed("failures", tmp_path)  # 5 virtual users, a fifth of the hold's requests failing
    [row] = list(csv.DictReader((run_dir / "matrix.csv").open()))
    slug = dimensions.slug(dimensions.parse(row))
    found = fromrow.point(run_dir, slug, "virtual", 5, seconds=42.0)
    assert found.requests == int(row["http_reqs"]) == 15682  # the hold's requests as the run counted them
    assert found.errors == round(float(row["error_rate"]) * found.requests)
    p99 = found.percentiles["p99"]
    assert p99.value == pytest.approx(float(row["p99_ms"]), abs=0.01)  # k6's figure, as the CSV recorded it
    assert p99.low <= p99.value <= p99.high and p99.high > p99.low
    assert not found.valid and "errors-above-threshold" in found.flags  # the report's verdict, not the search's own
    assert found.wall == "failures" and found.seconds == 42.0
    # how busy its tiers were, as the report's checks read them: the host's CPU, the request threads
    assert found.utilisation.startswith(f"host {float(row['host_cpu_pct']):.0f}%, service ")
    assert "≤ threads ∞" in found.utilisation  # virtual threads: no request-thread cap


def test_the_staircase_s_model_is_every_wall_s_ceiling_but_the_load_s_own_and_those_the_row_passed():
    verdict = Verdict(row=Row(thread_mode="virtual"), measured=Measured(), flags=("ceiling-exceeded:connection-pool",),
                      ceilings=Ceilings(concurrency=100.0, threads=math.inf, pool=300.0, cpu=950.0))
    assert fromrow.wall_ceilings(verdict) == {"thread-pool": math.inf, "cpu": 950.0}


def test_a_search_row_carries_its_load_as_users_or_as_a_rate_with_the_users_to_carry_it():
    template = Row(thread_mode="virtual", concurrency=100, load_model="open", target_rps=100)
    closed = capacitypoints.with_load(Row(thread_mode="virtual", concurrency=100), "closed", 400, 1)
    assert (closed.concurrency, closed.rep) == (400, 1)
    opened = capacitypoints.with_load(template, "open", 1600, 2)
    assert (opened.target_rps, opened.rep) == (1600, 2) and opened.concurrency >= 1600  # ≥ 1 s of arrivals


def test_a_search_plans_every_row_a_step_of_one_jvm_sized_for_its_largest_load():
    row = Row(thread_mode="platform", concurrency=100, load_model="open", target_rps=100)
    plan = planner.Plan("quick", (row,), 5, 45, 30, 1000, 0, "open", search_peak_users=5000)
    assert plan.steps_on_one_jvm(row)  # a fixed warm-up's row too: the search's first point warmed the JIT
    assert plan.next_step_follows(7)  # a point chosen later may follow any
    assert plan.family_peak_users(row) == 5000
    per_row = planner.Plan("quick", (row,), 5, 45, 30, 1000, 0, "open", search_peak_users=5000, jvm_per_row=True)
    assert not per_row.steps_on_one_jvm(row) and not per_row.next_step_follows(0)
    fixed = planner.Plan("quick", (row,), 5, 45, 30, 1000, 0, "open")
    assert not fixed.steps_on_one_jvm(row) and fixed.family_peak_users(row) == 100


def test_the_staircase_stops_at_the_most_load_it_may_climb_to():
    settings = Settings(objective.parse("p99<=1500ms"), "open", max_load=3000)
    assert next_load(1600, None, settings, "req/s") == (3000, "")  # 3,200 capped
    load, why = next_load(3000, None, settings, "req/s")
    assert load is None and "--max-load" in why
    assert next_load(1600, None, Settings(objective.parse("p99<=1500ms"), "open"), "req/s") == (3200, "")


def test_a_point_measured_again_right_after_itself_warms_up_only_for_its_queue():
    template = Row(thread_mode="platform", concurrency=200, load_model="open", target_rps=100)
    plan = planner.Plan("quick", (template,), 5, 45, 30, 1000, 0, "open", search_peak_users=5000)
    first = capacitypoints.with_load(template, "open", 400, 1)
    again = capacitypoints.with_load(template, "open", 400, 2)
    higher = capacitypoints.with_load(template, "open", 800, 1)
    other_mode = capacitypoints.with_load(Row(thread_mode="virtual", concurrency=200, load_model="open",
                                              target_rps=100), "open", 400, 1)
    # the run's first row: the plan's warm-up and the first row's extra (loop.warmup_for: 45 + min(30, 45))
    assert capacitypoints.warmup_for(plan, [], first) == 75
    assert capacitypoints.warmup_for(plan, [first], again) == capacitypoints.REPEAT_WARMUP_S
    assert capacitypoints.warmup_for(plan, [first], higher) == capacitypoints.STEP_WARMUP_S
    assert capacitypoints.warmup_for(plan, [first, higher], again) == capacitypoints.STEP_WARMUP_S  # not right after
    assert capacitypoints.warmup_for(plan, [first], other_mode) == 45  # another mode's fresh JVM: the plan's own
    # after an invalid measurement (a neighbour, an unsteady queue past the rate's own): the step's warm-up
    assert capacitypoints.warmup_for(plan, [first], again, previous_valid=False) == capacitypoints.STEP_WARMUP_S
    assert capacitypoints.REPEAT_WARMUP_S < capacitypoints.STEP_WARMUP_S < 45


def test_points_in_turn_warm_up_as_their_own_mode_s_steps_and_a_repeat_after_the_other_mode_as_a_step():
    platform = Row(thread_mode="platform", concurrency=200, load_model="open", target_rps=100)
    virtual = replace(platform, thread_mode="virtual")
    plan = planner.Plan("quick", (platform, virtual), 5, 45, 30, 1000, 0, "open", search_peak_users=5000,
                        in_turn=True)
    p1, v1 = (capacitypoints.with_load(row, "open", 400, 1) for row in (platform, virtual))
    p2 = capacitypoints.with_load(platform, "open", 800, 1)
    p1_again = capacitypoints.with_load(platform, "open", 400, 2)
    assert capacitypoints.warmup_for(plan, [p1], v1) == 45  # the virtual JVM's first point: fresh
    assert capacitypoints.warmup_for(plan, [p1, v1], p2) == capacitypoints.STEP_WARMUP_S  # its mode's step, warm
    # measured again after the other mode's point: its queue drained meanwhile, a step's warm-up
    assert capacitypoints.warmup_for(plan, [p1, v1], p1_again) == capacitypoints.STEP_WARMUP_S
    assert capacitypoints.warmup_for(plan, [v1, p1], p1_again) == capacitypoints.REPEAT_WARMUP_S
    assert plan.together and (plan.arm(p1), plan.arm(v1)) == ("a", "b") and plan.partner(0) is None


def test_a_step_s_warm_up_is_a_few_of_its_designed_waits_and_never_under_the_step_s_least():
    # vtlab's own service, a 1 s downstream with no jitter: 3 waits, 3 s, under the least (10 s); the frontier's 8 s
    # downstream: 24 s; a user's service (no wait of the rig's): the least
    for delay_ms, expected in ((1000, capacitypoints.STEP_WARMUP_S), (8000, 24)):
        row = Row(thread_mode="virtual", concurrency=200, load_model="open", target_rps=100, stub_delay_ms=delay_ms)
        plan = planner.Plan("quick", (row,), 5, 45, 30, delay_ms, 0, "open", search_peak_users=5000)
        first = capacitypoints.with_load(row, "open", 400, 1)
        higher = capacitypoints.with_load(row, "open", 800, 1)
        assert capacitypoints.warmup_for(plan, [first], higher) == expected


@pytest.mark.parametrize("flags, alone, in_turn", [
    ((), True, True),
    (("hypervisor-steal",), False, True),                     # the VM's steal: the machine's, not the service's
    (("noisy-neighbour", "too-noisy", "host-speed:76%"), False, True),  # the hold swung with the host's speed
    (("not-steady",), False, False),          # unsteady for no named reason: a queue over capacity grows so
    (("hypervisor-steal", "errors-above-threshold"), False, False),  # failures stay a fault, in turn or not
    (("generator-limited",), False, False),
])
def test_a_point_taken_in_turn_stands_beside_the_machine_s_moving_and_nothing_else(flags, alone, in_turn):
    verdict = Verdict(row=Row(thread_mode="platform"), measured=Measured(), valid=alone, flags=flags,
                      bottleneck="thread-pool")
    assert fromrow.stands_in_turn(verdict) is in_turn
    # a point the CPU held stands beside none of it: what another took is the capacity it lost
    assert fromrow.stands_in_turn(replace(verdict, bottleneck="cpu")) is alone
