import dataclasses

import pytest

from vtlab.core import dimensions, shapes
from vtlab.plan import planner, presets


def test_quick_profile_measures_both_modes_released_and_held():
    quick = planner.build("quick", planner.Overrides())
    assert {r.thread_mode for r in quick.rows} == {"platform", "virtual"}
    assert {r.conn_mode for r in quick.rows} == {"released", "held"}
    assert all(r.load_model == "closed" and r.rep == 1 for r in quick.rows)
    # every scenario once, each mode beside the other at the same load
    assert len(set(quick.rows)) == len(quick.rows)
    released = [r for r in quick.rows if r.conn_mode == "released"]
    assert len(released) == 2 * len({r.concurrency for r in released})


def test_flags_replace_the_dimension_in_every_block():
    p = planner.build("quick", planner.Overrides(concurrency=(7,), modes=("virtual",), pools=(10, 20)))
    assert {r.concurrency for r in p.rows} == {7}
    assert {r.thread_mode for r in p.rows} == {"virtual"}
    assert {r.hikari_pool for r in p.rows} == {10, 20}
    assert len(p.rows) == 2 * 2  # two blocks (released, held) x two pools
    assert p.overrides["concurrency"] == (7,)


def test_reps_are_the_outer_loop():
    p = planner.build("lean", planner.Overrides(reps=3, concurrency=(5,)))
    assert [r.rep for r in p.rows] == [1, 1, 2, 2, 3, 3]


def test_phase_and_delay_overrides():
    p = planner.build("quick", planner.Overrides(ramp_s=1, warmup_s=2, hold_s=3, stub_delay_ms=0))
    assert (p.ramp_s, p.warmup_s, p.hold_s, p.stub_delay_ms) == (1, 2, 3, 0)
    assert all(r.stub_delay_ms == 0 for r in p.rows)


def test_open_model_rows_carry_rates_and_need_them():
    with pytest.raises(ValueError, match="--rates"):
        planner.build("quick", planner.Overrides(model="open"))
    p = planner.build("quick", planner.Overrides(model="open", rates=(50, 100)))
    assert {r.target_rps for r in p.rows} == {50, 100}
    # open rows carry the VUs k6 pre-allocates for their rate as their concurrency
    assert all(r.concurrency == shapes.vus_for("open", 0, r.target_rps) and r.load_model == "open" for r in p.rows)


def test_every_profile_expands():
    for name in presets.profiles():
        assert planner.build(name, planner.Overrides()).rows


def test_workload_presets_isolate_one_question_each():
    sleep = planner.build("sleep", planner.Overrides())
    assert {(r.workload, r.sleep_ms, r.cpu_work) for r in sleep.rows} == {("sleep", 5000, 0)}
    assert {r.thread_mode for r in sleep.rows} == {"platform", "virtual"}
    assert sleep.cooldown_s > 25  # platform users wait ~25 s; the hold's last requests must finish

    cpu = planner.build("cpu", planner.Overrides())
    assert {r.workload for r in cpu.rows} == {"cpu"} and all(r.cpu_work > 0 and r.sleep_ms == 0 for r in cpu.rows)
    platform_pools = sorted(r.tomcat_max_threads for r in cpu.rows if r.thread_mode == "platform")
    assert platform_pools[0] == len(__import__("os").sched_getaffinity(0)) and platform_pools[-1] == 200
    assert [r.thread_mode for r in cpu.rows].count("virtual") == 1

    pinning = planner.build("pinning", planner.Overrides())
    assert {r.path_mode for r in pinning.rows} == {"normal", "synchronized", "pinned-control"}
    assert len(pinning.rows) == 3 * 2


def test_workload_flag_collapses_the_dimensions_it_does_not_use():
    p = planner.build("quick", planner.Overrides(workloads=("sleep",), sleep_ms=200, concurrency=(10,)))
    # quick has a released and a held block; sleep touches no connection, so each mode is measured once
    assert [(r.thread_mode, r.workload, r.conn_mode, r.sleep_ms) for r in p.rows] == [
        ("platform", "sleep", "released", 200), ("virtual", "sleep", "released", 200)]


def test_tomcat_threads_flag_replaces_a_profiles_pool_sizes():
    p = planner.build("cpu", planner.Overrides(tomcat_max_threads=8))
    assert {r.tomcat_max_threads for r in p.rows} == {8}


def test_offload_preset_crosses_tomcat_modes_with_executors():
    offload = planner.build("offload", planner.Overrides())
    assert sorted((r.thread_mode, r.offload_executor, r.offload_pool) for r in offload.rows) == [
        ("platform", "platform", 50), ("platform", "virtual", 0),
        ("virtual", "platform", 50), ("virtual", "virtual", 0)]
    assert all(r.workload == "offload" for r in offload.rows)
    assert {r.offload_executor for r in planner.build("quick", planner.Overrides()).rows} == {""}


def test_scenario_presets_for_fanout_pools_latency_context_and_the_reactive_twin():
    fanout = planner.build("fanout", planner.Overrides()).rows
    assert {(r.thread_mode, r.fanout) for r in fanout} == {
        (m, f) for m in ("platform", "virtual") for f in ("sequential", "structured")}
    assert all(r.workload == "fanout" and r.conn_mode == "released" for r in fanout)

    pools = planner.build("pools", planner.Overrides()).rows
    assert {(r.thread_mode, r.pool_impl) for r in pools} == {
        (m, p) for m in ("platform", "virtual") for p in ("hikari", "agroal")}
    assert {r.conn_mode for r in pools} == {"held"}

    latency = planner.build("latency", planner.Overrides()).rows
    assert {(r.db_latency_ms, r.db_jitter_ms) for r in latency} == {(0, 0), (20, 5)}  # loopback rows: no jitter
    assert {r.downstream_latency_ms for r in latency} == {0}

    context = planner.build("context", planner.Overrides()).rows
    assert [(r.context, r.context_kb) for r in context] == [("none", 0), ("threadlocal", 64), ("scopedvalue", 64)]
    assert {r.thread_mode for r in context} == {"virtual"}

    reactive = planner.build("reactive", planner.Overrides()).rows
    assert [r.thread_mode for r in reactive] == ["platform", "virtual", "webflux"]
    webflux = reactive[-1]
    assert (webflux.pool_impl, webflux.conn_mode, webflux.tomcat_max_threads) == ("r2dbc", "released", 0)


def test_webflux_is_skipped_for_workloads_the_twin_does_not_serve():
    rows = planner.build("quick", planner.Overrides(modes=("virtual", "webflux"),
                                                        workloads=("order-summary", "sleep"),
                                                        conn_modes=("released",), concurrency=(10,))).rows
    assert {(r.thread_mode, r.workload) for r in rows} == {
        ("virtual", "order-summary"), ("virtual", "sleep"), ("webflux", "order-summary")}
    with pytest.raises(ValueError, match="webflux"):
        planner.build("quick", planner.Overrides(modes=("webflux",), workloads=("cpu",)))


def test_latency_flags_apply_to_every_row_and_jitter_is_bounded_by_the_latency():
    rows = planner.build("lean", planner.Overrides(db_latencies=(5,), db_jitter_ms=2, downstream_latencies=(0, 10),
                                             downstream_jitter_ms=10)).rows
    assert {(r.db_latency_ms, r.db_jitter_ms) for r in rows} == {(5, 2)}
    assert {(r.downstream_latency_ms, r.downstream_jitter_ms) for r in rows} == {(0, 0), (10, 10)}
    with pytest.raises(ValueError, match="--db-latency of at least 6"):
        planner.build("lean", planner.Overrides(db_latencies=(0, 5), db_jitter_ms=6))


def test_only_the_first_row_of_an_invocation_warms_longer():
    from vtlab.measure import loop

    lean = planner.build("lean", planner.Overrides(warmup_s=40))
    assert loop.warmup_for(lean, 0) == 40 + loop.FIRST_ROW_EXTRA_WARMUP_S == 70
    assert [loop.warmup_for(lean, i) for i in range(1, len(lean.rows))] == [40] * (len(lean.rows) - 1)
    # short phases asked for (a test, a first look): the first row's extra is the plan's warm-up again, no more
    short = planner.build("lean", planner.Overrides(warmup_s=4))
    assert loop.warmup_for(short, 0) == 8 and loop.warmup_for(short, 1) == 4


def test_each_arm_s_first_row_of_a_paired_plan_warms_longer_as_the_run_s_first_does():
    from vtlab.measure import loop

    for asked in (planner.Overrides(aa="virtual", concurrency=(1000,), conn_modes=("released",), blocks=3),
                  planner.Overrides(paired=True, concurrency=(100, 1000), conn_modes=("released",), blocks=3)):
        plan = planner.build("quick", asked)
        todo = list(enumerate(plan.rows))
        bounds = [loop.warmup_for(plan, loop.first_of_its_arm(plan, todo, i)) for i in range(len(todo))]
        firsts = {plan.arm(row): i for i, row in reversed(todo)}  # each arm's first row
        assert sorted(firsts.values()) == [0, 1]  # the first pair opens the run, AB or BA
        assert [i for i, bound in enumerate(bounds) if bound == 45 + 30] == sorted(firsts.values())
        assert all(bound == 45 for i, bound in enumerate(bounds) if i not in firsts.values())
    resumed = list(enumerate(plan.rows))[3:]  # a resumed run: the first of each arm left to measure warms longer
    bounds = [loop.first_of_its_arm(plan, resumed, i) for i in range(len(resumed))]
    firsts = sorted({plan.arm(row): i for i, (_, row) in reversed(list(enumerate(resumed)))}.values())
    assert [i for i, index in enumerate(bounds) if index == 0] == firsts and firsts[0] == 0
    sequential = planner.build("quick", planner.Overrides(paired=False))
    todo = list(enumerate(sequential.rows))
    assert [loop.first_of_its_arm(sequential, todo, i) for i in range(len(todo))] == list(range(len(todo)))


def test_jep491_profile_measures_the_synchronized_paths_and_the_baseline_on_both_jdks():
    rows = planner.build("jep491", planner.Overrides()).rows
    assert {(r.path_mode, r.jdk) for r in rows} == {(path, jdk) for path in
                                                    ("normal", "synchronized", "synchronized-platform-http")
                                                    for jdk in (21, 25)}
    assert {r.thread_mode for r in rows} == {"virtual"} and all(r.stub_delay_ms == 100 for r in rows)
    assert all(r.concurrency >= 25 * 2 for r in rows)  # well above the carriers


@pytest.mark.parametrize("overrides, flags", [
    (dict(path_modes=("pinned-control",)), "--path-mode pinned-control with --jdk 21"),
    (dict(contexts=("scopedvalue",)), "--context scopedvalue with --jdk 21"),
    (dict(workloads=("fanout",), fanouts=("structured",)), "--fanout structured with --jdk 21"),
])
def test_a_jdk25_only_part_on_jdk21_is_refused_naming_the_flags(overrides, flags):
    with pytest.raises(ValueError, match=flags):
        planner.build("quick", planner.Overrides(jdks=(21, 25), **overrides))
    planner.build("quick", planner.Overrides(jdks=(25,), **overrides))  # fine on 25


def test_the_pinning_profile_on_jdk21_is_refused_for_its_control():
    with pytest.raises(ValueError, match="pinned-control with --jdk 21"):
        planner.build("pinning", planner.Overrides(jdks=(21, 25)))


def test_jdk_combines_with_the_other_dimensions():
    rows = planner.build("pools", planner.Overrides(jdks=(21, 25))).rows
    assert {(r.pool_impl, r.jdk) for r in rows} == {(p, j) for p in ("hikari", "agroal") for j in (21, 25)}


def test_java_home_sets_the_runtime_of_its_major():
    p = planner.build("jep491", planner.Overrides(java_home="/opt/jdk-24", java_home_jdk=24, jdks=(24, 25)))
    assert p.java_homes == {24: "/opt/jdk-24"} and {r.jdk for r in p.rows} == {24, 25}
    alone = planner.build("jep491", planner.Overrides(java_home="/opt/jdk-21", java_home_jdk=21))
    assert {r.jdk for r in alone.rows} == {21}
    with pytest.raises(ValueError, match="--java-home /opt/jdk-24 is JDK 24, which --jdk 21,25 does not measure"):
        planner.build("jep491", planner.Overrides(java_home="/opt/jdk-24", java_home_jdk=24, jdks=(21, 25)))
    with pytest.raises(ValueError, match="--jdk 23: vtlab provides 21, 25"):
        planner.build("jep491", planner.Overrides(jdks=(23,)))


def test_the_hero_profile_runs_the_service_on_its_tuned_jvm_and_a_flag_replaces_the_options():
    hero = planner.build("hero", planner.Overrides())
    tuned = ("-XX:+UseParallelGC", "-Xms4g", "-Xmx4g")
    assert hero.jvm_option_sets == (tuned,)
    assert {(r.concurrency, r.stub_delay_ms, r.hikari_pool, r.conn_mode, r.jvm_opts) for r in hero.rows} == {
        (2000 * presets._scale(), 1000, 50, "released", "-XX:+UseParallelGC -Xms4g -Xmx4g")}
    assert hero.service_options(hero.rows[0]) == tuned
    assert hero.describe()["jvm_opts"] == [list(tuned)]  # recorded with the run
    serial = ("-XX:+UseSerialGC",)
    assert planner.build("hero", planner.Overrides(jvm_opts=(serial,))).jvm_option_sets == (serial,)
    quick = planner.build("quick", planner.Overrides())
    assert quick.jvm_option_sets == ((),) and {r.jvm_opts for r in quick.rows} == {""}


def test_several_jvm_option_sets_are_a_dimension_of_the_rows_each_row_started_with_its_own():
    sets = ((), ("-XX:+UseSerialGC", "-Xmx512m"), ("-Dnote=two words",))
    plan = planner.build("hero", planner.Overrides(jvm_opts=sets, modes=("virtual",), reps=1))
    assert [r.jvm_opts for r in plan.rows] == ["", "-XX:+UseSerialGC -Xmx512m", "'-Dnote=two words'"]
    # the JVM gets each set's words back, a quoted word whole; the memory probe's tracking after them
    assert [plan.service_options(r) for r in plan.rows] == [(), sets[1], sets[2]]
    probed = planner.build("hero", planner.Overrides(jvm_opts=sets, modes=("virtual",), reps=1, memory_probe="on"))
    assert probed.service_options(probed.rows[1]) == (*sets[1], planner.NATIVE_MEMORY_TRACKING)
    # rows of one set differ from another's in their key, label and file names, and never share a service time
    keys = {dimensions.key(r) for r in plan.rows}
    slugs = {dimensions.slug(r) for r in plan.rows}
    assert len(keys) == len(slugs) == 3 and "jvm_opts" in dimensions.PER_REQUEST
    assert dimensions.label(plan.rows[1]).endswith("JVM -XX:+UseSerialGC -Xmx512m rep 1")
    assert "jvm_XXUseSerialGC_Xmx512m" in dimensions.slug(plan.rows[1])
    assert not any(dimensions.is_variant(r) for r in plan.rows)
    # the same set twice is one set; the order given is the order measured
    twice = planner.build("quick", planner.Overrides(jvm_opts=(sets[1], (), sets[1]), modes=("virtual",),
                                                     conn_modes=("released",), concurrency=(100,)))
    assert twice.jvm_option_sets == (sets[1], ()) and [r.jvm_opts for r in twice.rows] == [
        "-XX:+UseSerialGC -Xmx512m", ""]


def test_a_long_option_set_keeps_a_short_file_name_told_apart_by_its_digest():
    long_a = "-XX:+UseG1GC -XX:MaxGCPauseMillis=50 -XX:G1HeapRegionSize=4m -XX:+AlwaysPreTouch -Xss512k"
    long_b = long_a.replace("512k", "256k")
    slug_a, slug_b = (dimensions.slug(dimensions.Row(thread_mode="virtual", jvm_opts=o)) for o in (long_a, long_b))
    part_a, part_b = (next(p for p in s.split("-") if p.startswith("jvm_")) for s in (slug_a, slug_b))
    assert part_a != part_b and len(part_a) == len(part_b) == len("jvm_") + dimensions.OPTIONS_SLUG_MAX
    assert all(c.isalnum() or c == "_" for c in part_a)


def test_more_runners_than_the_smallest_rows_users_is_refused_naming_the_flag():
    with pytest.raises(ValueError, match="--runners 101: .* the 100 users .* at most --runners 100"):
        planner.build("quick", planner.Overrides(runners=101))
    assert planner.build("quick", planner.Overrides(runners=100)).runners == 100
    vus = shapes.vus_for("open", 0, 50)  # the open model's users: the VUs that serve 50 arrivals a second
    with pytest.raises(ValueError, match=f"--runners {vus + 1}: .* the {vus} users"):
        planner.build("quick", planner.Overrides(model="open", rates=(50,), runners=vus + 1))


def test_the_clients_profile_crosses_every_client_with_both_modes_and_sizes_only_a_pooled_one():
    clients = planner.build("clients", planner.Overrides())
    # every client below every pool; the pooled ones above their default pools in both modes; sized ones beside
    assert {r.http_client for r in clients.rows if r.concurrency == 4} == set(presets.HTTP_CLIENTS)
    assert {(r.http_client, r.thread_mode) for r in clients.rows if r.concurrency == 1000} == {
        (client, mode) for client in ("apache", "reactor", "jetty") for mode in ("platform", "virtual")}
    assert {(r.http_client, r.client_pool) for r in clients.rows if r.concurrency == 150} == {("jdk", 0),
                                                                                             ("apache", 150)}
    # a size given to every row sizes the pooled clients; the JDK's has none, and a row without a call no client
    sized = planner.build("lean", planner.Overrides(http_clients=("jdk", "jetty"), client_pools=(300,),
                                                    workloads=("order-summary", "sleep")))
    assert {(r.workload, r.http_client, r.client_pool) for r in sized.rows} == {
        ("order-summary", "jdk", 0), ("order-summary", "jetty", 300), ("sleep", "jdk", 0)}


def test_a_client_pool_without_a_pooled_client_and_http2_with_one_are_refused_naming_the_flags():
    with pytest.raises(ValueError, match="--client-pool 50 sizes the pool of apache, reactor, jetty.*--http-client"):
        planner.build("quick", planner.Overrides(client_pools=(50,)))
    with pytest.raises(ValueError, match="--downstream-http http2 is the JDK client's h2c upgrade; --http-client "
                                         "apache speaks HTTP/1.1"):
        planner.build("quick", planner.Overrides(http_clients=("apache",), downstream_http="http2"))


def test_the_servers_profile_crosses_tomcat_jetty_and_netty_with_both_modes_below_and_above_the_thread_wall():
    servers = planner.build("servers", planner.Overrides(concurrency=(100, 1000)))
    assert {(r.server, r.thread_mode, r.concurrency) for r in servers.rows} == {
        (server, mode, users) for server in ("tomcat", "jetty", "netty") for mode in ("platform", "virtual")
        for users in (100, 1000)}
    # the reactive twin is its own server, whatever the flag
    twin = planner.build("quick", planner.Overrides(modes=("webflux",), servers=("jetty",)))
    assert {r.server for r in twin.rows} == {"tomcat"}


def test_netty_refuses_a_request_context_which_only_a_servlet_filter_binds():
    with pytest.raises(ValueError, match="--context threadlocal is bound by a servlet filter; --server netty runs "
                                         "WebFlux"):
        planner.build("quick", planner.Overrides(servers=("tomcat", "netty"), contexts=("threadlocal",)))
    # the twin (its own server) and Tomcat keep their contexts
    plan = planner.build("quick", planner.Overrides(servers=("tomcat",), contexts=("threadlocal",)))
    assert {r.context for r in plan.rows if r.thread_mode != "webflux"} == {"threadlocal"}


def test_a_path_with_its_own_jdk_client_refuses_another_client():
    with pytest.raises(ValueError, match="--path-mode pinned-control calls the stub through its own JDK client"):
        planner.build("pinning", planner.Overrides(http_clients=("apache",)))


def _steps(plan):
    return [(r.thread_mode, r.conn_mode, r.concurrency, r.rep) for r in plan.rows]


def test_rows_differing_only_in_users_are_the_rising_steps_of_one_jvm_per_mode_and_rep():
    p = planner.build("lean", planner.Overrides(concurrency=(400, 100), reps=2))
    assert _steps(p) == [("platform", "released", 100, 1), ("platform", "released", 400, 1),
                         ("virtual", "released", 100, 1), ("virtual", "released", 400, 1),
                         ("platform", "released", 100, 2), ("platform", "released", 400, 2),
                         ("virtual", "released", 100, 2), ("virtual", "released", 400, 2)]
    assert all(p.steps_on_one_jvm(row) for row in p.rows)
    # the JVM of a staircase is sized for its largest step, a row of its own for itself
    assert {p.family_peak_users(row) for row in p.rows} == {400}
    assert planner.jvm_family(p.rows[0]) == planner.jvm_family(p.rows[1]) != planner.jvm_family(p.rows[2])
    assert planner.jvm_family(p.rows[0]) != planner.jvm_family(p.rows[4])  # a fresh JVM per rep


def test_jvm_per_row_keeps_the_profiles_order_and_a_jvm_of_each_rows_own():
    p = planner.build("lean", planner.Overrides(concurrency=(400, 100), jvm_per_row=True))
    assert _steps(p) == [("platform", "released", 400, 1), ("virtual", "released", 400, 1),
                         ("platform", "released", 100, 1), ("virtual", "released", 100, 1)]
    assert not any(p.steps_on_one_jvm(row) for row in p.rows)
    assert [p.family_peak_users(row) for row in p.rows] == [400, 400, 100, 100]
    assert p.describe()["jvm_per_row"] is True


def test_only_loads_a_warm_up_can_settle_are_staircased():
    fixed = planner.build("lean", planner.Overrides(concurrency=(400, 100), warmup_until="fixed"))
    assert [r.concurrency for r in fixed.rows] == [400, 400, 100, 100]
    assert not any(fixed.steps_on_one_jvm(row) for row in fixed.rows)
    spike = planner.build("spike", planner.Overrides())
    assert not any(spike.steps_on_one_jvm(row) for row in spike.rows)


def test_frontier_with_virtual_threads_at_10000_users_plans_one_row_not_one_per_platform_pool_size():
    plan = planner.build("frontier", planner.Overrides(modes=("virtual",), concurrency=(10_000,)))
    assert [(r.thread_mode, r.concurrency, r.tomcat_max_threads) for r in plan.rows] == [("virtual", 10_000, 200)]


def test_frontier_keeps_a_thread_per_user_for_its_platform_rows():
    plan = planner.build("frontier", planner.Overrides())
    assert [(r.thread_mode, r.concurrency, r.tomcat_max_threads) for r in plan.rows] == [
        ("virtual", 2000, 200), ("virtual", 5000, 200), ("virtual", 10_000, 200),
        ("platform", 2000, 2000), ("platform", 5000, 5000)]


def test_a_profiles_platform_pool_sizes_do_not_multiply_virtual_rows_on_tomcat_or_netty(monkeypatch):
    # the cpu profile sizes platform Tomcat at the cores and at 200: one virtual row, whichever block it came from
    monkeypatch.setattr(presets.os, "sched_getaffinity", lambda _pid: {0, 1})
    for server in ("tomcat", "netty"):
        rows = planner.build("cpu", planner.Overrides(modes=("platform", "virtual"), servers=(server,))).rows
        assert sorted((r.thread_mode, r.tomcat_max_threads) for r in rows) == [
            ("platform", 2), ("platform", 200), ("virtual", 200)]


def test_jettys_virtual_threads_keep_the_pool_sizes_that_cap_their_concurrent_tasks(monkeypatch):
    monkeypatch.setattr(presets.os, "sched_getaffinity", lambda _pid: {0, 1})
    rows = planner.build("cpu", planner.Overrides(modes=("virtual",), servers=("jetty",))).rows
    assert sorted(r.tomcat_max_threads for r in rows) == [2, 200]


def test_the_tomcat_threads_flag_still_reaches_every_virtual_row():
    rows = planner.build("frontier", planner.Overrides(modes=("virtual",), tomcat_max_threads=400)).rows
    assert [(r.concurrency, r.tomcat_max_threads) for r in rows] == [(2000, 400), (5000, 400), (10_000, 400)]


def _quick_row(mode: str, conn_mode: str, users: int):
    """A row of the quick profile, every dimension written out as presets.py and the rig's defaults give it."""
    return dimensions.Row(
        thread_mode=mode, server="tomcat", workload="order-summary", load_model="closed", concurrency=users,
        target_rps=0, conn_mode=conn_mode, path_mode="normal", hikari_pool=50, pool_impl="hikari", http_client="jdk",
        client_pool=0, tomcat_max_threads=200, stub_delay_ms=1000, sleep_ms=0, cpu_work=0, offload_executor="",
        offload_pool=0, fanout="", context="none", context_kb=0, db_latency_ms=0, db_jitter_ms=0,
        downstream_latency_ms=0, downstream_jitter_ms=0, shape="steady", jdk=25, jvm_opts="", rep=1)


def test_the_default_profiles_plan_is_one_staircase_per_mode_its_held_row_a_step_at_its_users(monkeypatch):
    # the held row differs from the released ones only in the connection mode, which the service switches at run
    # time: a step of the same JVM, after the released row of its users and before any larger load
    monkeypatch.setattr(presets.os, "sched_getaffinity", lambda _pid: {0, 1})  # 2 cores: 1,000 users unscaled
    plan = planner.build("quick", planner.Overrides())
    assert list(plan.rows) == [
        _quick_row("platform", "released", 100), _quick_row("platform", "held", 100),
        _quick_row("platform", "released", 400), _quick_row("platform", "released", 1000),
        _quick_row("virtual", "released", 100), _quick_row("virtual", "held", 100),
        _quick_row("virtual", "released", 400), _quick_row("virtual", "released", 1000)]
    assert [plan.next_step_follows(position) for position in range(8)] == [True, True, True, False] * 2
    assert {plan.family_peak_users(row) for row in plan.rows} == {1000}


def test_the_reactive_twin_has_no_connection_mode_to_switch_so_its_rows_keep_a_jvm_each():
    released = dataclasses.replace(_quick_row("virtual", "released", 100), thread_mode="webflux")
    held = dataclasses.replace(released, conn_mode="held")
    assert planner.jvm_family(released) != planner.jvm_family(held)
    blocking = _quick_row("virtual", "released", 100)
    assert planner.jvm_family(blocking) == planner.jvm_family(dataclasses.replace(blocking, conn_mode="held"))


def test_a_later_step_ramps_over_the_rigs_step_ramp_a_first_step_over_the_plans():
    plan = planner.build("quick", planner.Overrides(ramp_s=5))
    row = _quick_row("virtual", "released", 1000)
    assert (plan.ramp_for(row, False), plan.ramp_for(row, True)) == (5, 2)
    short = planner.build("quick", planner.Overrides(ramp_s=1))
    assert short.ramp_for(dataclasses.replace(row, workload="sleep", sleep_ms=500), True) == 1  # as asked
    assert short.ramp_for(row, True) == 2  # but over one whole wait (1.05 s): Plan.spread_ramp_s


def test_users_beyond_a_platform_jvms_threads_arrive_over_one_requests_wait_for_each_thread():
    plan = planner.build("quick", planner.Overrides(ramp_s=5))  # the stub: 1,000 ms + a uniform 0-100 ms
    many = _quick_row("platform", "released", 1000)
    # 1,000 users x 1.05 s / 200 threads = 5.25 s: the first 200 arrive over 1.05 s, one request's wait
    assert (plan.ramp_for(many, True), plan.ramp_for(many, False)) == (6, 6)
    assert plan.ramp_for(_quick_row("platform", "released", 400), True) == 3  # 400 x 1.05 / 200 = 2.1
    assert plan.ramp_for(_quick_row("platform", "released", 100), True) == 2  # fewer users than threads
    assert plan.ramp_for(_quick_row("virtual", "released", 1000), True) == 2  # no request threads to fill
    fewer = dataclasses.replace(many, tomcat_max_threads=500)
    assert plan.ramp_for(fewer, True) == 3  # 1,000 x 1.05 / 500 = 2.1
    slept = dataclasses.replace(many, workload="sleep", sleep_ms=200)
    assert plan.ramp_for(slept, True) == 2  # 1,000 x 0.2 / 200 = 1: the step's own ramp is longer


def test_users_on_a_long_downstream_arrive_over_one_whole_wait():
    frontier = planner.build("frontier", planner.Overrides())  # 8,000 ms, no jitter; its own ramp 30 s
    users = dataclasses.replace(_quick_row("virtual", "released", 10_000), stub_delay_ms=8000)
    assert (frontier.ramp_for(users, True), frontier.ramp_for(users, False)) == (8, 30)
    jar = dataclasses.replace(users, workload="service", tomcat_max_threads=0)
    assert frontier.ramp_for(jar, True) == 2  # a user's service: its wait is not the rig's to know
    opened = dataclasses.replace(users, load_model="open", target_rps=1000)
    assert frontier.ramp_for(opened, True) == 2  # arrivals at a rate keep no phase of their own
    assert (frontier.wait_s(users), frontier.wait_s(jar)) == (8.0, 0.0)
    quick = planner.build("quick", planner.Overrides())
    assert quick.wait_s(_quick_row("virtual", "released", 100)) == 1.05  # 1,000 ms + half its 0-100 ms jitter
