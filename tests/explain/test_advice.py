"""What to change before you flip, from the rows' own evidence: a setting's wall gets the size that carries what
the users ask (Little's law), the next wall's ceiling and the flag to try, with the limit it meets; a held
connection is named as the code's shape; a CPU wall gets the cores its users' rate needs and no setting; an invalid
line or an unexplained wall gets none and says why. Hand-made rows (tests/rows.py), judged by the analysis."""

import math
from dataclasses import replace
from pathlib import Path

import pytest

from vtlab.core.settings import DB_MAX_CONNECTIONS, DB_RESERVED_CONNECTIONS
from vtlab.explain import advice, analyze
from vtlab.report import advice as told
from vtlab.report.labels import fmt
from vtlab.results import record
from vtlab.results import rows as measured_rows
from vtlab.results.rows import typed

from rows import RUN, row

PLATFORM_AT_1000 = dict(thread_mode="platform", concurrency=1000, throughput_rps=196, http_reqs=5880, ok_requests=5880,
                        tomcat_connections_max=1000, p50_ms=5000, p99_ms=5200, throughput_first_half_rps=196,
                        throughput_second_half_rps=196)


def advised(*rows):
    return advice.advise(analyze.analyse(list(rows), RUN))


def by_wall(found, wall):
    return next(a for a in found if a.wall == wall)


def test_platform_threads_at_their_wall_get_the_threads_the_users_ask_and_the_flag():
    # 200 threads ÷ 1.010 s = 198 req/s; 1,000 users ÷ 1.010 s ask 990: 200 × 990 / 198 = 1,000 threads
    found = by_wall(advised(row(thread_mode="platform"), row(**PLATFORM_AT_1000)), "thread-pool")
    assert (found.value, found.needed) == (200, 1000) and found.setting == "request threads"
    assert found.asked_rps == pytest.approx(1000 / 1.010)
    assert found.flag == "--tomcat-threads 1000"
    assert found.beyond == "each platform thread reserves a stack: ~1,000 MiB of address space at -Xss1m"
    # the next wall once the threads carry the users: the users themselves, or a lower one the row computed
    assert found.predicted_rps <= found.asked_rps + 1e-9 and found.next_wall
    said = told.sentence(found, lambda r: r.thread_mode)
    assert "held by its request threads (200); its users ask 990 req/s, which 1,000 carry, and then" in said


def test_a_held_connection_is_the_code_s_shape_and_a_pool_past_the_database_meets_its_limit():
    held = dict(conn_mode="held", throughput_rps=49, http_reqs=1470, ok_requests=1470, hikari_active_max=50,
                hikari_pending_max=150, p50_ms=4000, p99_ms=4100, throughput_first_half_rps=49,
                throughput_second_half_rps=49)
    found = by_wall(advised(row(conn_mode="held", concurrency=20), row(**held, concurrency=200)), "connection-pool")
    assert (found.value, found.needed, found.flag) == (50, 200, "--pools 200")
    assert "held across the downstream call" in found.shape and "--conn-mode released" in found.shape
    assert found.beyond == ""  # 200 fit in the 490 vtlab's PostgreSQL takes
    many = by_wall(advised(row(conn_mode="held", concurrency=20),
                           row(**{**held, "throughput_rps": 49}, concurrency=1000)), "connection-pool")
    # 1,000 connections carry what its users ask; the CPU would then hold it at ~330 req/s, which ~330 carry (each
    # request holding one ~1 s): that size is tried, as a larger lifts nothing past the CPU, and it fits
    assert many.needed == 1000 and many.next_wall == "cpu" and many.predicted_rps < 490
    # each connection held ~1.01 s (the 1 s call and the query) to 1.02 s (the 49 req/s the 50 served)
    assert math.ceil(many.predicted_rps * 1.0) <= many.enough <= math.ceil(many.predicted_rps * 1.02)
    assert many.flag == f"--pools {many.enough}" and many.beyond == ""
    said = told.sentence(many, lambda r: r.thread_mode)
    assert f"which 1,000 carry, and then the CPU would hold it at {fmt(many.predicted_rps)} req/s, which " \
           f"{many.enough} carry; try --pools {many.enough}" in said
    # a service so light that its CPU would carry ~900 req/s: the size that carries even that does not fit
    light = by_wall(advised(row(conn_mode="held", concurrency=20),
                            row(**{**held, "app_cpu_pct": 1}, concurrency=1000)), "connection-pool")
    assert light.needed == 1000 and 490 < light.enough < 1000 and light.flag == f"--pools {light.enough}"
    assert "beyond what vtlab's PostgreSQL takes (490 for the pool, of its 500" in light.beyond
    assert light.beyond.endswith("it cannot grow that far here")


def test_a_cpu_wall_gets_the_cores_its_users_ask_and_no_setting():
    hot = row(concurrency=3000, throughput_rps=1500, http_reqs=45000, ok_requests=45000, app_cpu_pct=150,
              host_cpu_pct=97, load_cpu_pct=4, load_cpu_pct_max=5, throughput_first_half_rps=1500,
              throughput_second_half_rps=1500)
    found = by_wall(advised(row(), hot), "cpu")
    # 3,000 users ÷ 1.010 s = 2,970 req/s × 1.0667 ms of CPU a request (all tiers on the shared cores) = 3.17 cores
    assert found.needed == pytest.approx(3000 / 1.010 * (160 * 10 / 1500) / 1000)
    assert found.value == 2 and found.flag == ""
    assert "no setting and no thread model lifts a CPU wall" in found.shape
    assert "need 3.2 cores (it had 2)" in found.shape


def test_an_invalid_line_and_an_unexplained_wall_get_no_advice_and_say_why():
    failing = advised(row(error_rate=0.2, throughput_rps=78, ok_requests=2340, errors_by_status="503=588"))
    assert failing[0].why_not == "no valid row: no advice is taken from an invalid one"
    assert told.sentence(failing[0], lambda r: r.thread_mode).endswith(
        "no advice — no valid row: no advice is taken from an invalid one.")
    # the users' own wait needs nothing changed: no advice at all
    assert advised(row()) == ()


def test_a_user_s_service_is_told_spring_boot_s_own_settings():
    svc = dict(workload="service", stub_delay_ms=0, tomcat_max_threads=0, hikari_pool=0)
    low = row(thread_mode="platform", **svc, tomcat_threads_config=200, concurrency=10, p50_ms=100,
              throughput_rps=99, http_reqs=2970, ok_requests=2970, throughput_first_half_rps=99,
              throughput_second_half_rps=99, mean_ms=100)
    high = row(thread_mode="platform", **svc, tomcat_threads_config=200, concurrency=1000, throughput_rps=1990,
               http_reqs=59700, ok_requests=59700, p50_ms=500, p99_ms=520, mean_ms=500, tomcat_connections_max=1000,
               throughput_first_half_rps=1990, throughput_second_half_rps=1990)
    # 200 threads ÷ 0.1 s (its p50 at 10 users) = 2,000 req/s; a user's service's users in flight by Little's law,
    # 1,990 req/s × 0.5 s = 995, ask 995 ÷ 0.1 s = 9,950 req/s: 200 × 9,950 / 2,000 = 995 threads
    found = by_wall(advised(low, high), "thread-pool")
    assert (found.value, found.needed) == (200, 995)
    assert found.flag == "--service-env SERVER_TOMCAT_THREADS_MAX=995"


def test_an_offload_pool_narrower_than_tomcat_is_the_setting_and_tomcat_s_threads_the_next_wall():
    offload = dict(workload="offload", offload_executor="platform", offload_pool=50, thread_mode="platform")
    high = row(**offload, concurrency=400, throughput_rps=49, http_reqs=1470, ok_requests=1470, p50_ms=8000,
               p99_ms=8200, tomcat_connections_max=400, throughput_first_half_rps=49, throughput_second_half_rps=49)
    found = by_wall(advised(row(**offload, concurrency=20), high), "thread-pool")
    # 50 offload threads ÷ 1.010 s = 49.5 req/s; 400 users ÷ 1.010 s ask 396: 50 × 396 / 49.5 = 400 threads; then
    # Tomcat's 200 request threads hold it at 200 ÷ 1.010 s = 198 req/s
    assert (found.setting, found.value, found.needed, found.flag) == ("offload pool", 50, 400, "--offload-pool 400")
    assert found.next_wall == "thread-pool" and found.predicted_rps == pytest.approx(200 / 1.010)


def test_a_virtual_line_s_pinned_frames_say_what_removes_each():
    frames = "demo.Pin.inLock:10=monitor-inferred/8/238.2/30.1;demo.Pin$Slow.<clinit>:17=class-init/1/40.1/40.1"
    on_21 = advised(row(jdk=21, pinned_events=9, pinned_frames=frames))
    monitor, init = (a for a in on_21 if a.wall == "pinning")
    assert (monitor.setting, monitor.value, monitor.pin_kind, monitor.flag) == (
        "demo.Pin.inLock:10", 8, "monitor-inferred", "--jdk 25")
    assert monitor.pinned_ms == 238.2 and monitor.longest_ms == 30.1 and "JEP 491" in monitor.shape
    assert init.flag == "" and "no JDK removes it: a class initializer pins" in init.shape
    said = told.sentence(monitor, lambda r: r.thread_mode)
    assert said == ("released, pool 50, JDK 21, virtual at 100 users: pinned at demo.Pin.inLock:10 "
                    "(holding a monitor, inferred) 8 times, 238 ms in all, at most 30 ms; a monitor, as JDK 21's "
                    "event names no reason and the stack shows neither a class initializer nor a native frame: JDK "
                    "24+ lets a virtual thread park holding one (JEP 491); try --jdk 25.")
    on_25 = [a for a in advised(row(jdk=25, pinned_events=8, pinned_frames=frames.split(";")[0]))
             if a.wall == "pinning"]
    assert on_25[0].flag == "" and "unexplained" in on_25[0].shape  # JEP 491 should have let it park
    invalid = advised(row(jdk=21, pinned_frames=frames, error_rate=0.2, throughput_rps=78, ok_requests=2340,
                          errors_by_status="503=588"))
    assert not [a for a in invalid if a.wall == "pinning"]  # no advice from an invalid row


def test_a_thread_wall_whose_limit_the_service_did_not_expose_gets_no_figure_and_says_why():
    # a user's service named thread-pool bound from its gauges with no Tomcat max threads exposed: the threads'
    # ceiling is NaN (vs1, 2026-11-28: the report's advice raised on it and the run's report was not written)
    svc = dict(workload="service", stub_delay_ms=0, tomcat_max_threads=0, hikari_pool=0)
    low = row(thread_mode="platform", **svc, concurrency=10, p50_ms=100, throughput_rps=99, http_reqs=2970,
              ok_requests=2970, throughput_first_half_rps=99, throughput_second_half_rps=99, mean_ms=100)
    analysis = analyze.analyse([low], RUN)
    line = analysis.aggregates[0]
    blind = replace(line, bottleneck="thread-pool", line=replace(line.line, bottleneck="thread-pool"))
    [found] = advice.advise(replace(analysis, aggregates=(blind,)))
    assert found.why_not.startswith("not computed: its request threads") and found.flag == ""


def test_a_scenario_measured_only_behind_its_clients_pool_asks_its_users_rate_not_the_queued_one():
    # Apache HttpClient's 5 connections a route and 1,000 users, no lower load measured: the row's p50 (20.3 s) is
    # the queue, never the service time; the users ask 1,000 ÷ 0.1 s (the designed call, with its few ms of
    # database round trip), which 5 × 10,000 ÷ 50 = 1,000 connections carry. Before, the queued p50 asked 49 req/s.
    from rows import APACHE_WALL
    found = by_wall(advised(row(**APACHE_WALL)), "client-pool")
    assert found.asked_rps == pytest.approx(10_000, rel=0.05) and found.value == 5
    assert found.needed == pytest.approx(1000, rel=0.05) and found.flag.startswith("--client-pool ")


def test_the_stubs_jitter_counts_in_the_designed_call_where_no_row_measured_the_service_time():
    from vtlab.explain import ceilings
    from vtlab.explain.model import Context
    plain, jittered = (Context(2, True, 2, {}, jitter_mean_s=mean) for mean in (0.0, 0.05))
    held = typed(row(conn_mode="held", hikari_pool=10, concurrency=30, client_pool_max=5, stub_delay_ms=100))
    # 100 ms + a uniform 0–100 ms: a 150 ms call on average, as k6 measures it
    assert ceilings.service_time(held, jittered)[0] - ceilings.service_time(held, plain)[0] == pytest.approx(0.05)
    assert ceilings.client_pool_ceiling(held, plain) == pytest.approx(5 / 0.1)
    assert ceilings.client_pool_ceiling(held, jittered) == pytest.approx(5 / 0.15)
    sleeping = typed(row(workload="sleep", sleep_ms=1000, stub_delay_ms=1000))
    assert ceilings.service_time(sleeping, jittered)[0] == pytest.approx(1.0)  # no call, no jitter


def test_a_virtual_wall_of_carriers_each_request_pins_is_not_sized_and_points_at_what_pinned_them():
    pinned = row(path_mode="synchronized-platform-http", thread_mode="virtual", jdk=21, concurrency=50,
                 stub_delay_ms=100, p50_ms=2500, throughput_rps=19.5, vt_parallelism=2)
    (said,) = [a for a in advice.advise(analyze.analyse([pinned], RUN)) if a.wall == "thread-pool"]
    assert said.why_not == ("its carriers, each request pinning one: no size moves them; what pinned them is told "
                            "with its frame")


PETCLINIC = Path(__file__).parent.parent / "fixtures" / "petclinic-pool"


def test_a_users_pool_is_sized_against_vtlabs_postgresql_with_db_and_against_its_own_database_else():
    # spring-petclinic-rest (Boot 3.5.7) with --db --db-latency 5, paired (pc1, 2026-12-02): both modes held by its
    # pool of 10 at ~205 req/s from 100 users on; at 400 users ~8,300 req/s asked need ~10 × 8,300 / 205 ≈ 400
    rows, recorded = measured_rows.read(PETCLINIC / "matrix.csv"), record.read(PETCLINIC)
    assert recorded.user_service.db == "vtlab"

    def pools(run):
        return {(a.row.thread_mode, a.row.concurrency): a for a in advice.advise(analyze.analyse(rows, run))
                if a.wall == "connection-pool"}
    room = (DB_MAX_CONNECTIONS - DB_RESERVED_CONNECTIONS) // 2  # each of the two arms' JVMs, up together
    found = pools(recorded)
    pool_ceilings = {(a.row.thread_mode, a.row.concurrency): a.line.ceilings.pool
                     for a in analyze.analyse(rows, recorded).aggregates}
    assert set(found) == {(mode, users) for mode in ("platform", "virtual") for users in (100, 400)}
    for (mode, users), line in found.items():
        # 100 users: ~100 connections carry what the users ask, 400 users: ~400, beyond the database; the CPU's
        # 408–507 req/s need 20–24: the smallest pool whose ceiling (10 connections → the pool's ceiling, scaled)
        # reaches it is tried, at both loads, and fits
        assert line.predicted_rps < line.asked_rps and line.next_wall == "cpu"
        assert (line.needed > room) == (users == 400)
        per_connection = pool_ceilings[mode, users] / 10
        assert (line.enough - 1) * per_connection < line.predicted_rps <= line.enough * per_connection
        assert 15 <= line.enough <= 30
        assert line.flag == f"--service-env SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE={line.enough}"
        assert line.beyond == ("the database's max_connections must hold it, every JVM's pool at once (vtlab's "
                               f"PostgreSQL here: {room})")
    # its own database (--db-url): how far it grows is that database's to say
    elsewhere = pools(replace(recorded, user_service=replace(recorded.user_service, db="url")))
    assert {line.beyond for line in elsewhere.values()} == {
        "the database's max_connections must hold it, every JVM's pool at once"}
