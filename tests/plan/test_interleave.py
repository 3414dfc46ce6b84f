"""The order a paired plan measures its rows in: both arms' blocks of a point in balanced couples, a point's blocks
together, the loads rising on each arm's JVM; an A/A's second arm marked; what cannot be paired refused."""

import random

import pytest

from vtlab.core import arms
from vtlab.plan import interleave, planner


def paired(**given) -> planner.Plan:
    return planner.build("quick", planner.Overrides(paired=True, conn_modes=("released",), pair_seed=7, **given))


def test_each_point_alternates_its_arms_in_balanced_couples():
    plan = paired(concurrency=(100, 400), blocks=4)
    assert [(r.concurrency, r.rep) for r in plan.rows[:8]] == [(100, b) for b in (1, 1, 2, 2, 3, 3, 4, 4)]
    assert all(r.concurrency == 400 for r in plan.rows[8:])  # a point's blocks together, the loads rising
    for start in (0, 8):
        modes = "".join(r.thread_mode[0] for r in plan.rows[start:start + 8])  # p / v, in the order measured
        couples = [modes[i:i + 4] for i in (0, 4)]
        assert all(couple in ("pvvp", "vppv") for couple in couples), modes
    assert plan.describe()["paired"] == {"a": "platform", "b": "virtual", "aa": False, "blocks": 4, "seed": 7}


def test_the_seed_draws_the_couples_and_both_orders_come_up():
    orders = {interleave.couples(2, random.Random(seed)) for seed in range(20)}
    assert orders == {("ab", "ba"), ("ba", "ab")}
    assert interleave.couples(3, random.Random(1))[2] in ("ab", "ba")  # an odd last pair stands alone
    assert paired(blocks=2).rows == paired(blocks=2).rows  # the same seed, the same order


def test_both_arms_keep_their_jvm_for_the_run():
    plan = paired(concurrency=(100, 400), blocks=2)
    families = {plan.family(row) for row in plan.rows}
    assert len(families) == 2  # one per arm: the blocks are steps of its JVM, not a fresh JVM each
    last = {plan.family(row): position for position, row in enumerate(plan.rows)}
    for position, row in enumerate(plan.rows):
        assert plan.next_step_follows(position) == (position < last[plan.family(row)])


def test_an_aa_measures_one_mode_against_itself_on_two_marked_jvms():
    plan = planner.build("quick", planner.Overrides(aa="virtual", conn_modes=("released",), concurrency=(1000,),
                                                    pair_seed=3))
    assert {row.thread_mode for row in plan.rows} == {"virtual"}
    aa = arms.Arms("virtual", "virtual")
    assert sorted(arms.arm_of(row, aa) for row in plan.rows) == ["a"] * 4 + ["b"] * 4
    assert {row.jvm_opts for row in plan.rows} == {"", arms.ARM_B_OPTION}
    assert len({plan.family(row) for row in plan.rows}) == 2


def test_a_before_after_measures_one_mode_on_two_jars_its_second_arm_marked_and_recorded():
    plan = planner.build("service", planner.Overrides(versus=("old.jar", "new.jar"), modes=("platform",),
                                                      concurrency=(100,), pair_seed=5, blocks=2))
    assert {row.thread_mode for row in plan.rows} == {"platform"} and len(plan.rows) == 4
    versus = arms.Arms("platform", "platform", ("old.jar", "new.jar"))
    assert plan.arms == versus and not versus.aa and versus.same_mode
    assert sorted(arms.arm_of(row, versus) for row in plan.rows) == ["a", "a", "b", "b"]
    assert [plan.arm(row) for row in plan.rows].count("b") == 2  # the arm b JVM is the one that runs new.jar
    assert plan.describe()["paired"]["versus"] == ["old.jar", "new.jar"]
    assert arms.recorded(plan.describe()["paired"]) == versus


@pytest.mark.parametrize("given, words", [
    (dict(versus=("a.jar", "b.jar")), "--vs compares two jars in one thread mode: add --modes"),
    (dict(versus=("a.jar", "b.jar"), modes=("platform", "virtual")), "--vs compares two jars in one thread mode"),
    (dict(versus=("a.jar", "b.jar"), aa="virtual"), "--aa virtual with --vs"),
    (dict(paired=True, reps=3), "--reps with --paired"),
    (dict(paired=True, jvm_per_row=True), "--jvm-per-row with --paired"),
    (dict(blocks=3), "--blocks: only a paired plan"),
    (dict(aa="virtual", modes=("platform", "virtual")), "--aa virtual with --modes platform,virtual"),
    (dict(paired=True, modes=("platform", "virtual", "webflux")), "--modes webflux"),
    (dict(paired=True, modes=("virtual",)), "not measured in both arms"),
])
def test_what_cannot_be_paired_is_refused_naming_the_flag(given, words):
    with pytest.raises(ValueError, match=words):
        planner.build("quick", planner.Overrides(conn_modes=("released",), **given))


def test_each_block_knows_its_partner_in_the_other_arm():
    plan = paired(concurrency=(100, 400), blocks=2)
    for position, row in enumerate(plan.rows):
        other = plan.rows[plan.partner(position)]
        assert (other.concurrency, other.rep) == (row.concurrency, row.rep) and other.thread_mode != row.thread_mode
    assert planner.build("quick", planner.Overrides(conn_modes=("released",))).partner(0) is None


class Up:
    def __init__(self, alive=True):
        self.running = alive

    def alive(self) -> bool:
        return self.running


def test_a_paired_plan_keeps_the_other_arm_s_jvm_up_where_a_plain_one_stops_it():
    plan = paired(concurrency=(100, 400), blocks=2)
    platform, virtual = (next(r for r in plan.rows if r.thread_mode == mode) for mode in ("platform", "virtual"))
    mine, other = Up(), Up()
    jvms = {plan.family(platform): mine, plan.family(virtual): other}
    assert plan.kept(jvms, platform, stepped=True) == (mine, [])
    assert plan.kept(jvms, platform, stepped=False) == (None, [mine])  # a fresh one: only its own family's goes
    dead = {plan.family(platform): Up(alive=False), plan.family(virtual): other}
    assert plan.kept(dead, platform, stepped=True) == (None, [dead[plan.family(platform)]])
    plain = planner.build("quick", planner.Overrides(conn_modes=("released",), concurrency=(100,)))
    p_row, v_row = plain.rows[0], plain.rows[-1]
    up = {plain.family(p_row): mine}
    assert plain.kept(up, v_row, stepped=True) == (None, [mine])  # one JVM at a time: the other family's stops


def test_a_pool_the_database_cannot_hold_is_refused_alone_and_with_both_arms_up_together():
    from vtlab.plan import checks

    alone = planner.build("quick", planner.Overrides(conn_modes=("released",), pools=(600,)))
    with pytest.raises(ValueError, match=r"--pools 600: vtlab's PostgreSQL takes 490 for the service \(of 500\)"):
        checks.connections(alone.rows, together=False)
    checks.connections(planner.build("quick", planner.Overrides(conn_modes=("released",), pools=(490,))).rows, False)
    with pytest.raises(ValueError, match="--pools 250: both arms' JVMs, up together, hold 500 connections"):
        checks.connections(paired(pools=(250,)).rows, together=True)
    checks.connections(paired(pools=(245,)).rows, together=True)  # two of 245 fit in 490


def test_a_profile_that_pairs_does_where_vtlab_run_lets_it_and_no_flag_chose_otherwise(pairing_quick):
    quick = planner.profiles()["quick"]
    plan = planner.build("quick", planner.Overrides(profile_pairs=True, conn_modes=("released",)))
    assert plan.arms == arms.Arms("platform", "virtual") and not plan.sequential
    assert max(row.rep for row in plan.rows) == quick.pair_blocks > 0 and plan.hold_s == quick.pair_hold_s
    given = planner.build("quick", planner.Overrides(profile_pairs=True, blocks=5, hold_s=7))
    assert (max(row.rep for row in given.rows), given.hold_s) == (5, 7)
    # a command that lets no profile pair (a cluster's run, a capacity search), or --sequential: one mode after the
    # other, with nothing to explain
    for overrides in (planner.Overrides(), planner.Overrides(profile_pairs=True, paired=False)):
        sequential = planner.build("quick", overrides)
        assert sequential.arms is None and not sequential.sequential
    assert planner.build("lean", planner.Overrides(profile_pairs=True)).arms is None  # a profile that does not pair


@pytest.mark.parametrize("given, why", [
    (dict(reps=2), "--reps repeats each mode in its own stretch of time"),
    (dict(jvm_per_row=True), "--jvm-per-row starts a JVM per row"),
    (dict(aot="on"), "--aot on trains on the service's port"),
    (dict(modes=("virtual",)), "--modes virtual: not both thread modes"),
])
def test_a_flag_that_cannot_be_paired_makes_the_default_run_sequential_and_says_so(given, why, pairing_quick):
    plan = planner.build("quick", planner.Overrides(profile_pairs=True, **given))
    assert plan.arms is None and plan.sequential.startswith(why)
    assert plan.describe()["sequential"] == plan.sequential


def test_an_aa_or_a_before_after_is_its_own_design_not_the_profiles():
    assert interleave.by_profile(3, 10, {"profile_pairs": True, "aa": "virtual"}) == ({}, "")
    assert interleave.by_profile(3, 10, {"profile_pairs": True, "versus": ("a.jar", "b.jar")}) == ({}, "")


@pytest.mark.parametrize("given, why", [
    (dict(model="open", rates=(100,)), "--model open: arrivals do not wait for a turn"),
    (dict(shapes=("spike",)), "--shape: a shape's stages run on k6's clock"),
    (dict(workloads=("write",)), "--workload write: both modes' writes"),
    (dict(runners=2), "--runners: a turn is one k6 per mode"),
    (dict(memory_probe="on"), "--memory-probe on: the probe is taken as a k6 run's hold ends"),
])
def test_what_blocks_in_turns_cannot_take_leaves_the_default_run_sequential_and_says_why(given, why, pairing_quick):
    plan = planner.build("quick", planner.Overrides(profile_pairs=True, **given))
    assert plan.arms is None and plan.sequential.startswith(why)


def test_a_users_service_pairs_by_default_but_on_a_fixed_port(tmp_path, capsys):
    from boots import BOOT_MANIFEST, boot_jar

    from vtlab.cli.main import main

    jar = str(boot_jar(tmp_path / "svc.jar", BOOT_MANIFEST.format("3.5.7")))
    call = ["run", "--service", jar, "--endpoint", "GET /things/{id}", "--ids", "1-9", "--dry-run"]
    assert main(call) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "profile service, 18 rows" in first and "both modes' JVMs up, 3 blocks of 10 s each" in first, first
    assert main([*call, "--port", "18080"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "profile service, 6 rows" in first, first
    assert "each mode in its own stretch of time (--port 18080: both modes' JVMs cannot listen on one port)" in first
