"""What `vtlab advise --try` measures: a try per setting the advice sized, at the largest size advised, on the run's
own plan narrowed to the advised points; together only where two settings hold one point; advice it cannot try
set apart with why. Each try's command is parsed back by `vtlab run`'s own parser and planned by the planner, so the
rows asserted are the ones a try would measure."""

import argparse
import math

from vtlab.cli import advise, flags, run
from vtlab.core import dimensions
from vtlab.explain.model import Advice
from vtlab.plan import tries

PAIRED = {"blocks": 3, "hold_s": 10, "paired": True, "profile_pairs": True, "reps": 3, "unpairable": ""}
STAIRCASE = [{"thread_mode": mode, "concurrency": users, "conn_mode": conn}
             for conn, users in (("released", 100), ("held", 100), ("released", 400), ("released", 1000))
             for mode in ("platform", "virtual")]


def row(**cells):
    return dimensions.parse({"hikari_pool": "50", "tomcat_max_threads": "200", "stub_delay_ms": "1000",
                             **{k: str(v) for k, v in cells.items()}})


def wall(mode, users, conn, flag, value, needed, name="thread-pool", **more):
    return Advice(row(thread_mode=mode, concurrency=users, conn_mode=conn), name, "request threads", value, needed,
                  needed, needed, "concurrency", flag, **more)


THREADS_400 = wall("platform", 400, "released", "--tomcat-threads 401", 200, 401)
THREADS_1000 = wall("platform", 1000, "released", "--tomcat-threads 1000", 200, 1000)
POOL_HELD = [wall(mode, 100, "held", "--pools 100", 50, 100, "connection-pool") for mode in ("platform", "virtual")]


def planned(attempt, tmp_path):
    """The rows `vtlab run` would measure for the try: its command parsed and planned as the user's would be."""
    parser = argparse.ArgumentParser(prog="vtlab")
    run.add(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(advise.run_argv("quick", attempt.given, tmp_path / attempt.name))
    return flags.plan_of(args, None).rows


def test_each_setting_is_tried_at_its_largest_size_on_the_points_it_was_advised_for(tmp_path):
    made, left = tries.chosen([*POOL_HELD, THREADS_400, THREADS_1000], PAIRED, STAIRCASE, paired=True)
    assert [t.name for t in made] == ["pools-100", "tomcat-threads-1000"] and left == []
    pools, threads = made
    assert threads.settings == (("--tomcat-threads", "1000"),) and threads.changes == ("tomcat_max_threads",)
    assert threads.lines == (THREADS_400, THREADS_1000)
    rows = planned(threads, tmp_path)
    # both modes paired at the two advised loads, released only, 3 blocks each, 1,000 threads
    assert sorted({(r.thread_mode, r.concurrency, r.conn_mode, r.tomcat_max_threads) for r in rows}) == [
        ("platform", 400, "released", 1000), ("platform", 1000, "released", 1000),
        ("virtual", 400, "released", 1000), ("virtual", 1000, "released", 1000)]
    assert sorted({r.rep for r in rows}) == [1, 2, 3]
    rows = planned(pools, tmp_path)
    assert {(r.concurrency, r.conn_mode, r.hikari_pool) for r in rows} == {(100, "held", 100)}
    assert {r.thread_mode for r in rows} == {"platform", "virtual"}


def test_settings_holding_one_point_are_tried_together_there_alone(tmp_path):
    pool_1000 = wall("platform", 1000, "held", "--pools 1000", 50, 1000, "connection-pool")
    threads_held = wall("platform", 1000, "held", "--tomcat-threads 1000", 200, 1000)
    staircase = [*STAIRCASE, {"thread_mode": "platform", "concurrency": 1000, "conn_mode": "held"}]
    made, _ = tries.chosen([*POOL_HELD, pool_1000, threads_held], {}, staircase, {"hold_s": 30})
    together = made[-1]
    assert together.name == tries.TOGETHER
    assert together.settings == (("--pools", "1000"), ("--tomcat-threads", "1000"))
    assert together.lines == (pool_1000, threads_held)  # the held 100 users are the pools' try alone
    rows = planned(together, tmp_path)
    assert {(r.thread_mode, r.concurrency, r.conn_mode, r.hikari_pool, r.tomcat_max_threads) for r in rows} == {
        ("platform", 1000, "held", 1000, 1000)}  # not paired: the advised mode alone


def test_advice_a_try_cannot_take_is_set_apart_with_why():
    invalid = Advice(row(thread_mode="platform"), "thread-pool", why_not="no valid row: no advice is taken from an "
                                                                         "invalid one")
    cpu = Advice(row(thread_mode="virtual", concurrency=3000), "cpu", asked_rps=2970, needed=3.2, value=2)
    env = wall("platform", 1000, "released", "your HTTP client's connections per route: 1000", 200, 1000)
    there = wall("platform", 380, "released", "--tomcat-threads 200", 200, 200)
    made, left = tries.chosen([invalid, cpu, env, there], PAIRED, STAIRCASE, paired=True)
    assert made == []
    whys = [n.why for n in left]
    assert whys[0].startswith("no advice to try: no valid row")
    assert whys[1] == "no setting to try: a CPU wall is lifted by cores, not a setting"
    assert whys[2].startswith("your HTTP client's connections per route: 1000: not a setting a try sets")
    assert whys[3] == "its request threads is 200 already: the size advised changes nothing"


def test_a_pinned_frame_is_tried_on_jdk_25():
    pin = Advice(row(thread_mode="virtual", path_mode="synchronized", jdk=21), "pinning", "app.Orders.summary", 120,
                 flag="--jdk 25", pin_kind="monitor")
    made, _ = tries.chosen([pin], {}, [{"jdk": 21, "thread_mode": "virtual", "concurrency": 100}])
    assert made[0].settings == (("--jdk", "25"),) and made[0].given["jdks"] == (25,)
    assert made[0].changes == ("jdk",) and math.isnan(made[0].lines[0].needed)


def test_the_runs_own_flags_are_given_again_and_what_the_plan_derived_is_not():
    given = tries.replayed({**PAIRED, "concurrency": [100, 1000], "jvm_opts": [["-XX:+UseSerialGC"]],
                            "java_home_jdk": 21, "pair_seed": 7})
    assert given == {"blocks": 3, "hold_s": 10, "paired": True, "concurrency": (100, 1000),
                     "jvm_opts": (("-XX:+UseSerialGC",),)}
    argv = advise.run_argv("quick", given, advise.Path("/tmp/x"))
    assert argv == ["run", "--profile", "quick", "--conc", "100,1000", "--hold", "10", "--jvm-opts", "-XX:+UseSerialGC",
                    "--paired", "--blocks", "3", "--out", "/tmp/x"]


def test_a_run_measured_one_mode_after_the_other_stays_so_with_its_own_phases(tmp_path):
    # the quick profile pairs by default; this run did not (its third mode, say): its try does not either, and keeps
    # the phases it ran with, whatever the profile says today
    made, _ = tries.chosen([THREADS_1000], {}, STAIRCASE, {"hold_s": 30, "warmup_s": 45, "stub_jitter_ms": 0})
    attempt = made[0]
    argv = advise.run_argv("quick", attempt.given, tmp_path / "t")
    assert "--sequential" in argv and "--paired" not in argv
    assert argv[argv.index("--hold") + 1] == "30" and argv[argv.index("--stub-jitter") + 1] == "0"
    rows = planned(attempt, tmp_path)
    assert {(r.thread_mode, r.concurrency, r.tomcat_max_threads) for r in rows} == {("platform", 1000, 1000)}


def test_values_a_row_does_not_use_are_not_narrowed_to():
    # an order-summary row has no executor and the client's default pool: no --executor '' nor --client-pool 0
    staircase = [{**step, "offload_executor": executor, "client_pool": pool} for step in STAIRCASE
                 for executor, pool in (("", 0), ("platform", 50))]
    made, _ = tries.chosen([THREADS_1000], {}, staircase)
    assert "executors" not in made[0].given and "client_pools" not in made[0].given


def test_a_pool_beyond_what_the_rigs_postgresql_takes_is_not_tried():
    beyond = wall("platform", 1000, "held", "--pools 1000", 50, 1000, "connection-pool",
                  beyond="beyond what vtlab's PostgreSQL takes (490 for the pool, of its 500 connections): it cannot "
                         "grow that far here")
    made, left = tries.chosen([beyond, POOL_HELD[0]], {}, STAIRCASE)
    assert [t.settings for t in made] == [(("--pools", "100"),)]
    assert left[0].why.startswith("beyond what vtlab's PostgreSQL takes")


def test_a_user_services_setting_is_tried_as_its_environment_over_the_flags_it_ran_with(tmp_path):
    from boots import BOOT_MANIFEST, boot_jar
    from vtlab.cli import targetflags, trytarget

    def pool(mode, users, needed):
        line = Advice(dimensions.parse({"thread_mode": mode, "workload": "service", "concurrency": str(users),
                                        "db_latency_ms": "5"}), "connection-pool", "connection pool", 10, needed,
                      2100, 450, "cpu", f"--service-env SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE={needed}")
        return line
    lines = [pool("virtual", 100, 102), pool("platform", 100, 100)]
    rows = [{"thread_mode": mode, "workload": "service", "concurrency": users, "db_latency_ms": 5}
            for users in (10, 100, 400) for mode in ("platform", "virtual")]
    made, left = tries.chosen(lines, {**PAIRED, "workloads": ["service"], "db_latencies": [5]}, rows, paired=True)
    assert left == [] and len(made) == 1
    attempt = made[0]
    assert attempt.name == "spring-datasource-hikari-maximum-pool-size-102"
    assert attempt.settings == (("--service-env", "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE=102"),)
    assert attempt.changes == ()  # no dimension of a user's row tells the pool: rows match the run's as they are
    assert "workloads" not in attempt.given  # the target's flags set it; --workload is refused with --service
    jar = str(boot_jar(tmp_path / "svc.jar", BOOT_MANIFEST.format("3.5.7")))
    own = ["--service", jar, "--endpoint", "GET /x", "--db", "--service-env",
           "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE=10", "--service-env", "SPRING_PROFILES_ACTIVE=postgres"]
    argv = advise.run_argv("service", attempt.given, tmp_path / attempt.name,
                           trytarget.with_settings(own, attempt.service_env()))
    parser = argparse.ArgumentParser(prog="vtlab")
    run.add(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    # the try's size in place of the user's own, their other settings kept
    assert dict(targetflags.target(args).env) == {"SPRING_PROFILES_ACTIVE": "postgres",
                                                  "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE": "102"}
    rows = flags.plan_of(args, None).rows
    assert {(r.thread_mode, r.concurrency, r.db_latency_ms, r.workload) for r in rows} == {
        ("platform", 100, 5, "service"), ("virtual", 100, 5, "service")}
