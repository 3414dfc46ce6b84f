import json
import math
import os
from pathlib import Path

from vtlab.measure import jfr, samplers
from vtlab.results import cells
from vtlab.series import windows
import pytest

pytestmark = pytest.mark.alone  # it reads the whole machine's CPU: another test beside it would be a neighbour

STAT = "1234 (java (main) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 40 0 12345 0 0"


def test_stat_parsing_survives_spaces_and_parens_in_the_command():
    assert samplers.parse_stat(STAT) == (1, 300, 0)


def test_tree_ticks_sums_descendants_only_with_what_their_ended_children_used():
    P = samplers.ProcStat
    table = {10: P(1, 100, 40), 11: P(10, 5, 0), 12: P(11, 7, 3), 20: P(1, 1000, 0)}
    assert samplers.tree_ticks(table, 10) == 155
    assert samplers.tree_ticks(table, 99) == 0


def test_a_tree_keeps_the_cpu_of_children_that_exit_while_it_is_sampled():
    """Like PostgreSQL's backends: short-lived children burn CPU and end; the tree's total never drops."""
    import subprocess
    import sys
    import time
    burst = "import time; end = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys\nfor _ in range(3): "
                               f"subprocess.run([sys.executable, '-c', {burst!r}])"])
    totals = []
    while parent.poll() is None:
        totals.append(samplers.tree_ticks(samplers.process_table(), parent.pid))
        time.sleep(0.05)
    assert all(b >= a for a, b in zip(totals, totals[1:], strict=False)), totals
    assert max(totals) >= 0.5 * windows.CLOCK_TICKS  # two ended children at least: 0.6 s; live ones alone < 0.4 s


def test_host_stat():
    busy, total = samplers.parse_host_stat("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n")
    assert (busy, total) == (150, 1000)


def test_cpu_pressure_is_the_some_lines_total_and_nothing_where_the_kernel_has_none():
    psi = ("some avg10=41.20 avg60=38.00 avg300=12.50 total=11303807649\n"
           "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
    assert samplers.parse_cpu_pressure(psi) == 11303807649  # `some`, not `full`: one runnable task waiting is enough
    assert samplers.parse_cpu_pressure("") is None  # no /proc/pressure/cpu (PSI off, a kernel before 4.20)
    assert samplers.parse_cpu_pressure("some avg10=0.00 total=n/a\n") is None


def test_prometheus_parsing_sums_label_sets_and_skips_actuator_requests():
    text = """# HELP hikaricp_connections_active Active connections
hikaricp_connections_active{pool="HikariPool-1"} 12.0
hikaricp_connections_pending{pool="HikariPool-1"} 3.0
jvm_threads_live_threads 57.0
http_server_requests_seconds_count{method="GET",status="200",uri="/api/order-summary/{id}"} 100
http_server_requests_seconds_count{method="GET",status="404",uri="/api/order-summary/{id}"} 5
http_server_requests_seconds_count{method="GET",status="200",uri="/actuator/prometheus"} 40
unrelated_metric 9
"""
    values = samplers.parse_prometheus(text)
    assert values == {"hikari_active": 12.0, "hikari_pending": 3.0, "jvm_threads": 57.0, "requests_total": 105.0}


def test_prometheus_parsing_reads_any_pool_and_only_the_heap():
    text = """agroal_connections_active{pool="vtlab"} 7.0
agroal_connections_pending{pool="vtlab"} 2.0
jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 1000
jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 500
jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 99999
jvm_gc_pause_seconds_count{action="end of minor GC",cause="G1 Evacuation Pause",gc="G1 Young Generation"} 4
jvm_gc_pause_seconds_sum{action="end of minor GC",cause="G1 Evacuation Pause",gc="G1 Young Generation"} 0.25
r2dbc_pool_pending_connections{name="connectionFactory"} 3.0
"""
    values = samplers.parse_prometheus(text)
    assert values == {"hikari_active": 7.0, "hikari_pending": 5.0, "heap_used_bytes": 1500.0,
                      "gc_pauses": 4.0, "gc_pause_s": 0.25}


def test_prometheus_parsing_reads_the_reactive_twins_pool_accounting():
    """TimedPool's timers: borrows are the successful acquires, acquire seconds every wait (a timed-out one
    too), timeouts the acquires that ran out; the usage sum is the connection-seconds out."""
    text = """# TYPE r2dbc_pool_acquire_seconds summary
r2dbc_pool_acquire_seconds_count{name="connectionFactory",outcome="cancelled"} 1
r2dbc_pool_acquire_seconds_sum{name="connectionFactory",outcome="cancelled"} 0.5
r2dbc_pool_acquire_seconds_count{name="connectionFactory",outcome="error"} 0
r2dbc_pool_acquire_seconds_sum{name="connectionFactory",outcome="error"} 0.0
r2dbc_pool_acquire_seconds_count{name="connectionFactory",outcome="success"} 1200
r2dbc_pool_acquire_seconds_sum{name="connectionFactory",outcome="success"} 3.25
r2dbc_pool_acquire_seconds_count{name="connectionFactory",outcome="timeout"} 2
r2dbc_pool_acquire_seconds_sum{name="connectionFactory",outcome="timeout"} 10.0
r2dbc_pool_acquire_seconds_max{name="connectionFactory",outcome="success"} 0.4
r2dbc_pool_usage_seconds_count{name="connectionFactory"} 1200
r2dbc_pool_usage_seconds_sum{name="connectionFactory"} 2.5
r2dbc_pool_acquired_connections{name="connectionFactory"} 1.0
"""
    values = samplers.parse_prometheus(text)
    assert values == {"pool_borrows": 1200.0, "pool_acquire_s": 13.75, "pool_timeouts": 2.0, "pool_usage_s": 2.5,
                      "hikari_active": 1.0}


def test_prometheus_parsing_reads_the_services_count_of_the_rigs_scrapes():
    text = """# TYPE vtlab_scrape_cpu_seconds counter
vtlab_scrape_cpu_seconds_total 0.125
vtlab_scrape_allocated_bytes_total 4.6E7
vtlab_scrape_total 100.0
"""
    assert samplers.parse_prometheus(text) == {"scrape_cpu_s": 0.125, "scrape_bytes": 4.6e7, "scrapes": 100.0}


def test_increase_of_a_counter_over_a_window():
    series = windows.Series([(0.0, {"c": 1.0}), (1.0, {"c": 4.0}), (2.0, {"c": 10.0}), (3.0, {"c": 11.0})])
    assert windows.increase(series, "c", 0.5, 2.5) == 6.0
    assert math.isnan(windows.increase(series, "c", 2.5, 3.5))


def test_cpu_percent_over_a_window():
    tick = windows.CLOCK_TICKS
    series = windows.Series([(t * 0.25, {"app_ticks": t * 0.25 * tick * 1.5}) for t in range(41)])
    mean, peak = windows.cpu_percent(series, "app", 1.0, 9.0)
    assert math.isclose(mean, 150.0, rel_tol=1e-6)
    assert math.isclose(peak, 150.0, rel_tol=1e-6)
    assert all(math.isnan(v) for v in windows.cpu_percent(series, "pg", 1.0, 9.0))


def test_the_maximum_within_a_window():
    series = windows.Series([(0.0, {"x": 1.0}), (1.0, {"x": 5.0}), (2.0, {"x": 3.0}), (3.0, {"x": 9.0})])
    assert windows.maximum(series, "x", 0.5, 2.5) == 5.0
    assert math.isnan(windows.maximum(series, "y", 0, 3))


def test_sampler_reads_this_process_tree():
    import os
    import time

    sampler = samplers.Sampler(0.05, samplers.cpu_reader(lambda: {"app": os.getpid()}))
    sampler.start()
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        sum(range(20_000))  # burn CPU so the tree's ticks move, but let the sampler thread run
        time.sleep(0.001)
    series = sampler.stop()
    assert len(series.points) >= 5
    assert series.points[-1][1]["app_ticks"] > series.points[0][1]["app_ticks"]
    assert series.points[-1][1]["rss_kb"] > 1000


def test_missing_recording_counts_as_unknown(tmp_path):
    assert jfr.pinned(Path("/bin/false"), tmp_path / "none.jfr") is None


def test_pinned_events_are_counted_by_reason_and_round_trip_through_the_csv_text():
    # the shape of `jfr print --json` (JDK 25), trimmed to what is read
    recording = {"recording": {"events": [
        {"type": "jdk.VirtualThreadPinned", "values": {"pinnedReason": "Native or VM frame on stack"}},
        {"type": "jdk.VirtualThreadPinned", "values": {"pinnedReason": "Native or VM frame on stack"}},
        {"type": "jdk.VirtualThreadPinned", "values": {"pinnedReason": "Holding monitor(s)"}},
        {"type": "jdk.VirtualThreadPinned", "values": {}},
        {"type": "jdk.ThreadPark", "values": {}},
    ]}}
    counts = jfr.count_reasons(json.dumps(recording))
    assert counts == {"Native or VM frame on stack": 2, "Holding monitor(s)": 1, jfr.NO_REASON_FIELD: 1}
    text = cells.format_reasons(counts)
    assert text.startswith("Native or VM frame on stack=2;")
    assert cells.parse_reasons(text) == counts
    assert jfr.count_reasons('{"recording": {"events": []}}') == {}


def test_foreign_cpu_is_the_machines_busy_time_no_tier_and_not_the_harness_used():
    """One busy process, sampled for real: counted as a tier it is ours; left out, it is a neighbour."""
    import os
    import subprocess
    import sys
    import time
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        sampler = samplers.Sampler(0.25, samplers.cpu_reader(lambda: {"app": busy.pid}))
        sampler.start()
        time.sleep(2.5)
        series = sampler.stop()
    finally:
        busy.kill()
        busy.wait()
    start, end = series.points[0][0], series.points[-1][0]
    (_, first), (_, last) = series.points[0], series.points[-1]
    hog_share = (last["app_ticks"] - first["app_ticks"]) / (last["host_total"] - first["host_total"]) * 100
    assert hog_share > 100 / os.cpu_count() / 4  # it got CPU, however busy the machine is
    as_tier = windows.foreign_percent(series, ["app"], start, end)
    as_neighbour = windows.foreign_percent(series, [], start, end)
    assert as_neighbour >= hog_share - 1  # a neighbour: all of its CPU is foreign
    assert as_tier <= as_neighbour - hog_share + 1  # a tier: none of it is
    assert all("harness_ticks" in reading for _, reading in series.points)


def test_a_process_outside_vtlabs_trees_is_a_neighbour_and_the_kernels_unclaimed_time_is_not():
    """A busy process vtlab did not start (orphaned, as a user's build would be: not below the harness), sampled
    for real, is foreign; the machine's busy time no process claims is not, and the hypervisor's steal is, named
    apart (a 30 req/s row on this shared host: 5–12% of the machine stolen, varying from minute to minute)."""
    import subprocess
    import sys
    import time
    spin = "import time\nend = time.monotonic() + 30\nwhile time.monotonic() < end: pass"
    shell = subprocess.run(["sh", "-c", f'"{sys.executable}" -c "{spin}" >/dev/null 2>&1 & echo $!'],
                           capture_output=True, text=True, check=True)
    hog = int(shell.stdout.split()[-1])
    try:
        assert hog not in samplers.tree_pids(samplers.process_table(), [os.getpid()])  # not the harness's
        sampler = samplers.Sampler(0.25, samplers.cpu_reader(lambda: {}))
        sampler.start()
        time.sleep(2.5)
        series = sampler.stop()
    finally:
        os.kill(hog, 9)
    (start, first), (end, last) = series.points[0], series.points[-1]
    total = last["host_total"] - first["host_total"]
    hog_share = (last["others_ticks"] - first["others_ticks"]) / total * 100
    assert hog_share > 100 / os.cpu_count() / 4  # it got CPU, however busy the machine is
    assert windows.foreign_percent(series, [], start, end) >= hog_share

    def point(busy, steal, app, others, total):
        return {"host_busy": busy, "host_irq": 0, "host_steal": steal, "harness_ticks": 0, "app_ticks": app,
                "others_ticks": others, "host_total": total}
    unclaimed = windows.Series([(0.0, point(0, 0, 0, 0, 0)), (1.0, point(80, 0, 40, 0, 200))])
    assert windows.foreign_percent(unclaimed, ["app"], 0, 1) == 0.0  # 40 busy ticks no process used: not foreign
    stolen = windows.Series([(0.0, point(0, 0, 0, 5, 0)), (1.0, point(80, 10, 40, 15, 200))])
    assert windows.foreign_percent(stolen, ["app"], 0, 1) == 10.0  # (10 others + 10 steal) / 200
    assert windows.foreign_percent(stolen, [], 0, 1) == 30.0  # a sampled tier left out is a neighbour


def test_a_helper_the_harness_ran_and_waited_for_is_its_own_cost_not_a_neighbours():
    """The profiler's launcher (a JVM started at the hold's start) runs and ends inside the window: once reaped, its
    CPU is the harness's."""
    import subprocess
    import sys
    import time
    sampler = samplers.Sampler(0.25, samplers.cpu_reader(lambda: {}))
    sampler.start()
    started = time.monotonic()
    spin = "import time\nend = time.monotonic() + 1.5\nwhile time.monotonic() < end: pass"
    subprocess.run([sys.executable, "-c", spin], check=True)
    time.sleep(0.6)
    series = sampler.stop()
    (_, first), (_, last) = series.points[0], series.points[-1]
    def share(key: str) -> float:  # % of the whole machine over the window
        return (last[key] - first[key]) / (last["host_total"] - first["host_total"]) * 100
    assert time.monotonic() - started >= 2 and share("harness_ticks") > 100 / os.cpu_count() / 4  # its 1.5 s of CPU
    foreign = windows.foreign_percent(series, [], series.points[0][0], series.points[-1][0])
    assert foreign <= share("host_busy") - share("harness_ticks") + 1  # none of it foreign


def test_foreign_cpu_leaves_out_interrupts_and_reads_nan_without_samples():
    def point(busy, irq, app, harness, total):
        return {"host_busy": busy, "host_irq": irq, "app_ticks": app, "harness_ticks": harness, "host_total": total}
    series = windows.Series([(0.0, point(0, 0, 0, 0, 0)), (1.0, point(100, 20, 50, 10, 200))])
    assert windows.foreign_percent(series, ["app"], 0, 1) == 10.0  # (100 - 20 - 50 - 10) / 200
    assert math.isnan(windows.foreign_percent(series, ["app"], 0.5, 1))


def test_rate_over_a_window_uses_the_readings_inside_it():
    series = windows.Series([(0.0, {"c": 0}), (1.0, {"c": 10}), (3.0, {"c": 50}), (9.0, {"c": 1000})])
    assert windows.rate_over(series, "c", 0.5, 3.5) == 20.0  # (50 - 10) / (3 - 1)
    assert math.isnan(windows.rate_over(series, "c", 0.5, 2.0))


def test_students_t_is_read_from_its_table():
    assert windows.t_975(9) == 2.262 and windows.t_975(100) == 2.045


def test_a_trend_is_the_drift_over_the_whole_series_with_a_half_width_from_its_noise():
    import random
    rng = random.Random(3)
    flat = [100 + rng.choice((-10, 10)) for _ in range(30)]
    drift, half = windows.trend(flat)
    assert abs(drift) < half < 0.2  # no drift the noise cannot explain
    climbing = [80 + 40 * i / 29 + rng.choice((-5, 5)) for i in range(30)]  # 80 -> 120 req/s
    drift, half = windows.trend(climbing)
    assert 0.3 < drift < 0.5 and half < drift
    assert windows.trend([100.0] * 30) == (0.0, 0.0)
    assert all(math.isnan(x) for x in windows.trend([100.0] * 6))  # too short for four batches
    assert all(math.isnan(x) for x in windows.trend([0.0] * 30))


def test_the_open_file_limit_and_listen_overflows_are_read_as_proc_writes_them():
    limits = ("Limit                     Soft Limit           Hard Limit           Units     \n"
              "Max processes             95913                95913                processes \n"
              "Max open files            20000                20000                files     \n")
    assert samplers.parse_open_files_limit(limits) == 20000
    assert samplers.parse_open_files_limit(limits.replace("20000                20000", "unlimited  unlimited")) \
        == float("inf")
    netstat = ("TcpExt: SyncookiesSent SyncookiesRecv ListenOverflows ListenDrops\n"
               "TcpExt: 0 0 9782 9790\n"
               "IpExt: InNoRoutes\nIpExt: 0\n")
    assert samplers.parse_listen_overflows(netstat) == 9782
    assert samplers.parse_listen_overflows("IpExt: InNoRoutes\nIpExt: 0\n") is None


def test_the_service_reading_counts_its_open_files_and_reads_its_limit():
    import resource
    read = samplers.cpu_reader(lambda: {"app": os.getpid()})
    before = read()["open_files"]
    opened = [open("/dev/null") for _ in range(25)]
    try:
        reading = read()
    finally:
        for handle in opened:
            handle.close()
    assert reading["open_files"] - before == 25
    assert reading["open_files_limit"] == resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def test_prometheus_parsing_reads_the_downstream_clients_pool_from_vtlabs_gauges_or_a_users_meters():
    ours = """vtlab_downstream_pool_max{client="apache"} 5.0
vtlab_downstream_pool_leased{client="apache"} 5.0
vtlab_downstream_pool_pending{client="apache"} 812.0
"""
    assert samplers.parse_prometheus(ours) == {"client_pool_max": 5.0, "client_leased": 5.0, "client_pending": 812.0}
    # the JDK's client keeps no counts: its gauges read NaN, which is not measured, never zero
    jdk = """vtlab_downstream_pool_max{client="jdk"} -1.0
vtlab_downstream_pool_leased{client="jdk"} NaN
vtlab_downstream_pool_pending{client="jdk"} NaN
"""
    assert samplers.parse_prometheus(jdk) == {"client_pool_max": -1.0}
    # a user's service with Micrometer's Apache HttpClient 5 binder: the leased connections only, not the available
    theirs = """httpcomponents_httpclient_pool_route_max_default{httpclient="orders"} 20.0
httpcomponents_httpclient_pool_total_connections{httpclient="orders",state="available"} 3.0
httpcomponents_httpclient_pool_total_connections{httpclient="orders",state="leased"} 17.0
httpcomponents_httpclient_pool_total_pending{httpclient="orders"} 4.0
"""
    assert samplers.parse_prometheus(theirs) == {"client_pool_max": 20.0, "client_leased": 17.0,
                                                 "client_pending": 4.0}
    # or Reactor Netty's own pool metrics
    reactor = """reactor_netty_connection_provider_max_connections{id="1",name="http",remote_address="a:80"} 16.0
reactor_netty_connection_provider_active_connections{id="1",name="http",remote_address="a:80"} 16.0
reactor_netty_connection_provider_pending_connections{id="1",name="http",remote_address="a:80"} 32.0
"""
    assert samplers.parse_prometheus(reactor) == {"client_pool_max": 16.0, "client_leased": 16.0,
                                                  "client_pending": 32.0}


def test_prometheus_parsing_reads_jettys_connections_and_threads_as_the_servers():
    text = """jetty_connections_current_connections{connector_name="unnamed"} 412.0
jetty_threads_config_max 64.0
"""
    assert samplers.parse_prometheus(text) == {"tomcat_connections": 412.0, "tomcat_threads_config": 64.0}


def test_a_dumps_pinned_events_are_counted_within_the_rows_window_only():
    # a dump of a running JVM holds whole chunks: events of the step before and after it too
    def pinned(at):
        return {"type": "jdk.VirtualThreadPinned",
                "values": {"startTime": at, "pinnedReason": "Holding monitor(s)"}}
    recording = {"recording": {"events": [pinned("2026-11-27T16:00:09.9Z"),
                                          pinned("2026-11-27T16:00:10.5Z"),
                                          pinned("2026-11-27T17:00:15.000000001+01:00"),
                                          pinned("2026-11-27T16:00:20.25Z"), pinned("2026-11-27T16:00:12Z"),
                                          pinned("not a time")]}}
    begin = 1795795210.0  # 2026-11-27T16:00:10Z
    counts = jfr.count_reasons(json.dumps(recording), (begin, begin + 10.0))
    assert counts == {"Holding monitor(s)": 3}
    assert jfr.count_reasons(json.dumps(recording)) == {"Holding monitor(s)": 6}


def test_jfr_dump_reads_its_window_as_instants():
    from vtlab.measure import jfrdump
    assert jfrdump.instant(1795795210.25) == "2026-11-27T16:00:10.250000Z"


def test_a_jdk_21_recording_s_pins_are_grouped_by_the_first_frame_below_the_jdk_and_what_held_the_carrier():
    """A real recording (tests/fixtures/jfr: eight virtual threads sleeping 30 ms in synchronized, one 40 ms in a
    class initializer, Temurin 21.0.8): by frame, the longest total first, each with its count, total and longest."""
    import gzip

    text = gzip.open(Path(__file__).parents[1] / "fixtures" / "jfr" / "pinned-jdk21.json.gz", "rt").read()
    assert jfr.count_reasons(text) == {jfr.NO_REASON_FIELD: 9}  # JDK 21 names no reason: the stack must
    monitor, init = jfr.group_frames(text)
    # no reason named: a monitor inferred from a stack with neither a class initializer nor a native frame
    assert (monitor.frame, monitor.kind, monitor.count) == ("demo.shop.Pin.inLock:10", jfr.INFERRED_MONITOR, 8)
    assert 8 * 25 < monitor.total_ms < 8 * 40 and 29 < monitor.max_ms < 40  # each slept 30 ms in the lock
    assert (init.frame, init.kind, init.count) == ("demo.shop.Pin$Slow.<clinit>:17", jfr.CLASS_INIT, 1)
    assert 39 < init.max_ms == init.total_ms < 50
    text_cell = cells.format_frames((f.frame, f.kind, f.count, f.total_ms, f.max_ms) for f in (monitor, init))
    assert text_cell.startswith("demo.shop.Pin.inLock:10=monitor-inferred/8/")
    assert [(frame, kind, count) for frame, kind, count, _, _ in cells.parse_frames(text_cell)] == [
        ("demo.shop.Pin.inLock:10", "monitor-inferred", 8), ("demo.shop.Pin$Slow.<clinit>:17", "class-init", 1)]


def test_a_native_frame_on_the_stack_is_what_pinned_and_the_durations_are_read_as_jfr_writes_them():
    frames = [{"method": {"type": {"name": "java/lang/Thread"}, "name": "sleep"}, "type": "Interpreted"},
              {"method": {"type": {"name": "com/example/Native"}, "name": "call"}, "type": "Native", "lineNumber": -1},
              {"method": {"type": {"name": "com/example/Lib"}, "name": "run"}, "type": "JIT compiled",
               "lineNumber": 42}]
    event = {"type": "jdk.VirtualThreadPinned", "values": {"duration": "PT1M2.5S", "stackTrace": {"frames": frames}}}
    [found] = jfr.group_frames(json.dumps({"recording": {"events": [event]}}))
    assert (found.frame, found.kind, found.total_ms) == ("com.example.Native.call", jfr.NATIVE, 62_500.0)
    # JDK 24+ names the reason: a monitor said so, another reason kept apart; a hidden JDK frame (dots) is the JDK's
    hidden = {"method": {"type": {"name": "java.lang.invoke.LambdaForm$MH/0x1"}, "name": "invoke"}, "type": "Inlined"}
    said = [{"type": "jdk.VirtualThreadPinned", "values": {"pinnedReason": reason, "duration": "PT0.01S",
                                                          "stackTrace": {"frames": [hidden, frames[2]]}}}
            for reason in ("Holding monitor(s)", "Timed out waiting")]
    kinds = {f.kind: f.frame for f in jfr.group_frames(json.dumps({"recording": {"events": said}}))}
    assert kinds == {jfr.MONITOR: "com.example.Lib.run:42", jfr.OTHER: "com.example.Lib.run:42"}
