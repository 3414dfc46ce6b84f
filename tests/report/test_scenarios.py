"""The report's scenario sections on hand-made rows: each verdict can go both ways."""

import pytest
from rows import APACHE_WALL, CLIENT_LOW, META, RUN, row

from vtlab.explain import analyze
from vtlab.report import headline, scenarios, story
from vtlab.report.labels import mode_label
from vtlab.measure import writecheck
from vtlab.results import record


def sections_of(*rows):
    return {s.key: s for s in scenarios.sections(analyze.analyse(list(rows), RUN), mode_label)}


def pinning_rows(control_events, monitor_events):
    common = dict(concurrency=50, stub_delay_ms=100, p50_ms=102, p99_ms=130, vt_parallelism=2)
    return [
        row(path_mode="normal", thread_mode="virtual", throughput_rps=480, **common),
        row(path_mode="synchronized", thread_mode="virtual", pinned_events=monitor_events, throughput_rps=478,
            pinned_reasons=f"Holding monitor(s)={monitor_events}" if monitor_events else "", **common),
        row(path_mode="pinned-control", thread_mode="virtual", throughput_rps=19, pinned_events=control_events,
            pinned_reasons=f"Native or VM frame on stack={control_events}" if control_events else "",
            **common),
    ]


def test_a_pinning_control_with_events_vouches_for_the_zero_on_the_synchronized_path():
    section = sections_of(*pinning_rows(control_events=380, monitor_events=0))["pinning"]
    text = " ".join(section.verdict)
    assert "The capture works" in text and "380" in text and "Native or VM frame" in text
    assert "0 pinned events" in text and "JEP 491" in text
    assert "19.0 req/s against 480.0" in text  # what pinning costs
    verdicts = analyze.analyse(pinning_rows(380, 0), RUN).verdicts
    control = next(a for a in verdicts if a.row.path_mode == "pinned-control")
    # every request pins a carrier for its whole call: 2 carriers / the 100 ms downstream (the row itself
    # queued behind its carriers, so its own p50 cannot say how long one request takes)
    assert control.limit == "thread-pool" and control.bottleneck == "thread-pool"
    assert control.service_time_source == "stub delay" and round(control.ceiling_rps, 1) == 20.0
    assert [line["variant"] for line in section.table][0] == "normal / virtual / JDK 25"


def test_a_silent_pinning_control_says_the_capture_is_broken():
    text = " ".join(sections_of(*pinning_rows(control_events=0, monitor_events=0))["pinning"].verdict)
    assert "BROKEN" in text


def test_monitor_pinning_is_reported_when_it_happens():
    text = " ".join(sections_of(*pinning_rows(control_events=300, monitor_events=12))["pinning"].verdict)
    assert "still pinned 12 times" in text


def test_write_check_names_lost_writes():
    assert writecheck.compare(100, 100) == {"writes_ok": True, "rows_inserted": 100, "writes_acknowledged": 100,
                                            "writes_lost": 0}
    assert writecheck.compare(100, 97)["writes_lost"] == 3 and not writecheck.compare(100, 97)["writes_ok"]
    unacknowledged = writecheck.compare(100, 102)
    assert unacknowledged["writes_lost"] == 0 and not unacknowledged["writes_ok"]

    lost = row(workload="write", writes_ok="false", rows_inserted=97, writes_acknowledged=100, writes_lost=3)
    result = analyze.analyse([lost], RUN).verdicts[0]
    assert not result.valid and "writes-mismatch" in result.flags
    text = " ".join(sections_of(lost)["writes"].verdict)
    assert "LOST WRITES: 3 of 100" in text


def test_sleep_and_cpu_sections_explain_their_walls():
    sleep = dict(workload="sleep", sleep_ms=5000, concurrency=1000, tomcat_connections_max=1000, ok_requests="")
    found = sections_of(
        row(thread_mode="platform", throughput_rps=40, p50_ms=25000, p99_ms=26000, **sleep),
        row(thread_mode="virtual", throughput_rps=199, p50_ms=5003, p99_ms=5020, **sleep),
        row(thread_mode="platform", tomcat_max_threads=2, workload="cpu", cpu_work=5000, throughput_rps=400,
            app_cpu_ms_per_req=4, host_cpu_pct=97, ok_requests=""))
    sleep_text = " ".join(found["sleep"].verdict)
    assert "200 threads ÷ 5.0 s = 40.0 req/s" in sleep_text and "5.0× the platform throughput" in sleep_text
    assert "platform (2 threads)" in " ".join(found["cpu"].verdict)
    assert found["sleep"].chart["labels"] == ["platform", "virtual"]


def test_offload_rows_are_capped_by_the_narrowest_pool_on_the_path():
    offload = dict(workload="offload", concurrency=400, p50_ms=1005, p99_ms=8000, tomcat_connections_max=400)
    rows = [row(thread_mode="platform", offload_executor="platform", offload_pool=50, throughput_rps=49.5, **offload),
            row(thread_mode="platform", offload_executor="virtual", offload_pool=0, throughput_rps=198, **offload),
            row(thread_mode="virtual", offload_executor="platform", offload_pool=50, throughput_rps=49.6, **offload),
            row(thread_mode="virtual", offload_executor="virtual", offload_pool=0, throughput_rps=390, **offload)]
    analysed = analyze.analyse(rows, RUN).verdicts
    assert [round(a.ceilings.threads) for a in analysed[:3]] == [round(50 / 1.005), round(200 / 1.005),
                                                                      round(50 / 1.005)]
    assert [a.bottleneck for a in analysed] == ["thread-pool", "thread-pool", "thread-pool", "downstream"]
    section = sections_of(*rows)["offload"]
    assert section.table[0]["variant"] == "platform Tomcat → 50 platform threads"
    text = " ".join(section.verdict)
    assert "each row with a pool below its users stopped at it" in text
    assert "only virtual Tomcat → virtual threads had none below the users (390.0 req/s)" in text
    assert "A virtual-thread executor behind platform Tomcat still stops at Tomcat's threads" in text


def fanout_rows(structured_p50: float):
    common = dict(workload="fanout", concurrency=400, stub_delay_ms=1000)
    return [
        row(thread_mode="virtual", fanout="sequential", p50_ms=2010, p99_ms=2100, throughput_rps=198, **common),
        row(thread_mode="virtual", fanout="structured", p50_ms=structured_p50, p99_ms=structured_p50 + 80,
            throughput_rps=400 * 1000 / structured_p50, **common),
    ]


def test_fanout_latency_approaches_the_slowest_call_or_says_it_did_not():
    good = sections_of(*fanout_rows(1012))["fanout"]
    text = " ".join(good.verdict)
    assert "two downstream calls of 1,000 ms" in text and "≥ 2,000 ms (the sum)" in text
    assert "2,010 ms in service sequential vs 1,012 ms structured" in text and "approaches the slowest call" in text
    analysed = analyze.analyse(fanout_rows(1012), RUN).verdicts
    # sequential and structured never share a service time: the designed waits are 2 s and 1 s
    assert [round(a.service_time_ms) for a in analysed] == [2010, 1012]
    bad = " ".join(sections_of(*fanout_rows(1900))["fanout"].verdict)
    assert "did NOT approach the slowest call" in bad
    # platform threads past their wall: the medians include the queue, the verdict uses the time in service
    queued = [row(thread_mode="platform", fanout=f, workload="fanout", concurrency=400, stub_delay_ms=1000,
                  p50_ms=p50, throughput_rps=rps, tomcat_connections_max=400)
              for f, p50, rps in (("sequential", 4433, 99.6), ("structured", 2168, 199.3))]
    text = " ".join(sections_of(*fanout_rows(1010), *queued)["fanout"].verdict)
    assert "platform: 2,010 ms in service sequential vs 1,010 ms structured" in text
    assert "add the wait for one of 200 threads" in text


def test_pools_section_compares_agroal_with_the_hikari_row_at_the_same_settings():
    common = dict(conn_mode="held", hikari_pool=20, concurrency=200, stub_delay_ms=50, thread_mode="virtual",
                  ok_requests="")
    hikari = row(pool_impl="hikari", throughput_rps=370, **common)
    same = row(pool_impl="agroal", throughput_rps=365, **common)
    slower = row(pool_impl="agroal", throughput_rps=250, pinned_events=40,
                 pinned_reasons="Native or VM frame on stack=40", **common)
    # one rep each, no interval: compared at the pinned between-run floor, t(4) × 1% = ± 2.776% of each
    assert ("within noise of each other (their intervals for comparison, ± 10.3 and ± 10.1 req/s, overlap) — the "
            "same wall") in " ".join(sections_of(hikari, same)["pools"].verdict)
    fairer = row(pool_impl="agroal", throughput_rps=366, p99_ms=1084, **common)
    assert "Agroal's p99 is 30% shorter" in " ".join(
        sections_of(row(pool_impl="hikari", throughput_rps=358, p99_ms=1554, **common), fairer)["pools"].verdict)
    text = " ".join(sections_of(hikari, slower)["pools"].verdict)
    assert "Agroal at 0.68× HikariCP" in text and "pinned virtual threads 40 times" in text
    # an Agroal row never enters the main story
    verdicts = analyze.analyse([hikari, same], RUN).verdicts
    assert story.main_rows(verdicts) == [verdicts[0]]


def test_latency_section_names_the_moved_bottleneck_and_the_connection_time():
    common = dict(conn_mode="released", hikari_pool=10, concurrency=400, stub_delay_ms=1000, thread_mode="virtual",
                  throughput_first_half_rps=None, throughput_second_half_rps=None)
    loopback = row(throughput_rps=396, p50_ms=1004, p99_ms=1030, **common)
    far = row(db_latency_ms=20, db_jitter_ms=5, throughput_rps=236, p50_ms=1690, p99_ms=2400,
              hikari_active_max=10, hikari_pending_max=300, hikari_pending_share=0.95, proxy_cpu_pct=12, **common)
    section = sections_of(loopback, far)["latency"]
    text = " ".join(section.verdict)
    assert "PostgreSQL +20±5 ms each way" in text and "396.0 req/s on loopback" in text
    assert "the bottleneck moved from downstream to connection-pool" in text
    assert "each request kept one ~42 ms (connections ÷ throughput) — the 40 ms round trip" in text
    analysed = analyze.analyse([loopback, far], RUN).verdicts[1]
    # the analysis knows the query now costs a 40 ms round trip: 10 connections / 42 ms
    assert analysed.limit == "connection-pool" and round(analysed.ceilings.pool) == 238
    assert "12% of one core" in text
    assert [line["variant"] for line in section.table] == ["virtual, loopback", "virtual, PostgreSQL +20±5 ms each way"]


def test_context_section_reports_memory_and_gc_and_when_the_holders_differ():
    common = dict(concurrency=1000, thread_mode="virtual", stub_delay_ms=2000)
    none = row(context="none", rss_mb_max=700, heap_used_mb_max=300, gc_pauses=20, gc_pause_ms=200, **common)
    local = row(context="threadlocal", context_kb=64, rss_mb_max=900, heap_used_mb_max=500, gc_pauses=60,
                gc_pause_ms=600, **common)
    scoped = row(context="scopedvalue", context_kb=64, rss_mb_max=880, heap_used_mb_max=490, gc_pauses=58,
                 gc_pause_ms=590, **common)
    section = sections_of(none, local, scoped)["context"]
    text = " ".join(section.verdict)
    assert "64 KB per request" in text and "no context: RSS 700 MB" in text and "ThreadLocal: RSS 900 MB" in text
    assert "within 2% on RSS" in text and "600 vs 590 ms" in text
    assert section.chart["draw"] == ["rss_mb_max", "gc_pause_ms"] and section.chart["rss_mb_max"] == [700, 900, 880]
    leaner = row(context="scopedvalue", context_kb=64, rss_mb_max=700, gc_pause_ms=300, **common)
    assert "RSS differs by 22% (ScopedValue lower)" in " ".join(sections_of(local, leaner)["context"].verdict)


def test_reactive_section_sets_webflux_beside_both_thread_models():
    common = dict(concurrency=1000, stub_delay_ms=1000, hikari_pool=50, ok_requests="")
    rows = [row(thread_mode="platform", throughput_rps=199, p50_ms=5000, tomcat_connections_max=1000, **common),
            row(thread_mode="virtual", throughput_rps=890, jvm_threads_max=32, **common),
            row(thread_mode="webflux", pool_impl="r2dbc", tomcat_max_threads=0, throughput_rps=905,
                jvm_threads_max=25, **common)]
    analysed = analyze.analyse(rows, RUN).verdicts
    webflux = analysed[-1]
    assert webflux.ceilings.threads == float("inf")  # an event loop never waits for a thread
    section = sections_of(*rows)["reactive"]
    text = " ".join(section.verdict)
    assert "platform 199.0 req/s" in text and "webflux 905.0 req/s" in text
    assert "Virtual threads and WebFlux are within noise of each other" in text
    assert [line["variant"] for line in section.table] == ["platform", "virtual", "webflux"]
    costly = [*rows[:2], row(thread_mode="webflux", pool_impl="r2dbc", tomcat_max_threads=0, throughput_rps=614,
                             app_cpu_ms_per_req=2.0, host_cpu_pct=99.9, **common)]
    text = " ".join(sections_of(*[{**r, "app_cpu_ms_per_req": r.get("app_cpu_ms_per_req", "0.77")}
                                  for r in costly])["reactive"].verdict)
    assert "WebFlux at 0.69× virtual threads" in text and "2.00 ms of its own CPU per request against 0.77" in text
    # the headline pairs platform with virtual only; the twin is told in its section
    assert all("webflux" not in str(line) for line in headline.headline(analyze.analyse(rows, RUN).aggregates))


def test_a_difference_is_claimed_only_when_the_intervals_separate():
    common = dict(conn_mode="held", hikari_pool=20, concurrency=200, stub_delay_ms=50, thread_mode="virtual",
                  ok_requests="")

    def pools(hikari_rps, hikari_ci, agroal_rps, agroal_ci):
        return " ".join(sections_of(row(pool_impl="hikari", throughput_rps=hikari_rps, throughput_ci95_rps=hikari_ci,
                                        **common),
                                    row(pool_impl="agroal", throughput_rps=agroal_rps, throughput_ci95_rps=agroal_ci,
                                        **common))["pools"].verdict)
    # 10% apart with tight intervals: a real difference, even at the between-run floor (370 − 10.3 > 333 + 9.2)
    assert "Agroal at 0.90× HikariCP (their intervals apart)" in pools(370, 2, 333, 2)
    # 4% apart: the rows' own intervals (± 2) are apart, but one rep each is compared at least at the measured
    # between-run noise (± 2.776% of each: 370 ± 10.3 and 355 ± 9.9), and those overlap; the row is told as measured
    within = pools(370, 2, 355, 2)
    assert "within noise of each other (their intervals for comparison, ± 10.3 and ± 9.9 req/s, overlap)" in within
    assert "HikariCP 370.0 ± 2.0 req/s" in within
    # 8% apart inside wide intervals: nothing to claim
    assert "within noise" in pools(370, 20, 340, 20)
    # no interval measured: the floor stands in (a 4% gap is noise, a 20% one is not)
    assert "within noise" in pools(370, "", 355, "")
    assert "Agroal at 0.80× HikariCP" in pools(370, "", 296, "")


def test_scenario_sections_tell_the_reps_mean_with_its_interval_not_the_last_rep():
    common = dict(conn_mode="held", hikari_pool=20, concurrency=200, stub_delay_ms=50, thread_mode="virtual",
                  ok_requests="")
    rows = [row(pool_impl="hikari", rep=1, throughput_rps=370, p99_ms=1500, throughput_ci95_rps=3, **common),
            row(pool_impl="agroal", rep=1, throughput_rps=360, p99_ms=1400, throughput_ci95_rps=3, **common),
            row(pool_impl="agroal", rep=2, throughput_rps=366, p99_ms=1450, throughput_ci95_rps=4, **common),
            row(pool_impl="agroal", rep=3, throughput_rps=250, p99_ms=3000, throughput_ci95_rps=3, **common)]
    section = sections_of(*rows)["pools"]
    text = " ".join(section.verdict)
    # Agroal's three reps 360, 366, 250: mean 325.333, deviations 34.667, 40.667, −75.333, s² = 8,530.67 / 2,
    # s = 65.310; t(2) = 4.303: ± 4.303 × 65.310 / √3 = ± 162.25, the half-width the sections compare at; the
    # interval's ends on the logs (mean 5.77007, s 0.21546): e^(5.77007 ± 0.53527) = 187.69–547.48 (their joined
    # intervals, 247–370, would be narrower than what three reps this far apart allow); p99: the reps' median
    assert "Agroal 325.3 ± 162.3 req/s (p99 1,450 ms)" in text and "within noise" in text
    assert [line["rps"] for line in section.table] == ["370.0 ± 3.0", "325.3 ± 162.3"]
    line = analyze.analyse(rows, RUN).aggregates[1]
    low, high = line.interval_low, line.interval_high
    assert low == pytest.approx(187.69, abs=0.01) and high == pytest.approx(547.48, abs=0.01)
    assert line.throughput_median == 360 and line.line.row.rep == 1  # the median rep is the one told


def jep491_rows(stalled: bool = True):
    """The jep491 profile's rows: normal and both synchronized paths on JDK 21 and 25, 50 users, 100 ms."""
    common = dict(concurrency=50, stub_delay_ms=100, p50_ms=102, p99_ms=130, vt_parallelism=2, thread_mode="virtual")
    return [
        row(path_mode="normal", jdk=21, jdk_version="21.0.8+9-LTS", throughput_rps=450, **common),
        row(path_mode="normal", jdk=25, jdk_version="25.0.1+8-LTS", throughput_rps=470, **common),
        row(path_mode="synchronized", jdk=21, jdk_version="21.0.8+9-LTS", throughput_rps=0, pinned_events=14,
            pinned_reasons="no reason recorded (JDK < 24)=14",
            stall="stalled 3 s after k6 started: 0.0 req/s completed for 5 s while the users waited" if stalled else "",
            thread_dump="threads/x.json" if stalled else "", **common),
        row(path_mode="synchronized", jdk=25, jdk_version="25.0.1+8-LTS", throughput_rps=468, pinned_events=0,
            **common),
        row(path_mode="synchronized-platform-http", jdk=21, jdk_version="21.0.8+9-LTS", throughput_rps=19.5,
            pinned_events=390, pinned_reasons="no reason recorded (JDK < 24)=390", **common),
        row(path_mode="synchronized-platform-http", jdk=25, jdk_version="25.0.1+8-LTS", throughput_rps=466,
            pinned_events=0, **common),
    ]


def test_jep491_section_sets_both_jdks_side_by_side_and_names_the_stall():
    section = sections_of(*jep491_rows())["jep491"]
    text = " ".join(section.verdict)
    assert "JDK 21.0.8+9-LTS (before JEP 491)" in text and "JDK 25.0.1+8-LTS (with JEP 491)" in text
    assert "390 jdk.VirtualThreadPinned events" in text and "no reason recorded" in text
    assert "0 jdk.VirtualThreadPinned events" in text
    assert "ceiling 2 ÷ 100 ms = 20.0 req/s" in text  # the carriers are the pool
    assert "Stall — synchronized on JDK 21" in text and "pinning deadlock" in text and "threads/x.json" in text
    variants = [line["variant"] for line in section.table]
    assert "synchronized · JDK 21.0.8+9-LTS" in variants and "synchronized · JDK 25.0.1+8-LTS" in variants


def test_a_run_without_a_jdk_before_jep491_has_no_jep491_section():
    assert "jep491" not in sections_of(*[r for r in jep491_rows() if r["jdk"] == "25"])


def test_the_pinning_section_shows_each_rows_jdk():
    rows = pinning_rows(380, 0) + [r for r in jep491_rows() if r["jdk"] == "21" and r["path_mode"] == "synchronized"]
    section = sections_of(*rows)["pinning"]
    assert any(line["variant"].endswith("/ JDK 21") for line in section.table)
    assert "0 pinned events" in " ".join(section.verdict)  # JEP 491's verdict reads the JDK 25 rows only


# --- every sentence that concludes something, fed data that supports it and data that contradicts it ------------

def said(key, *rows):
    return " ".join(sections_of(*rows)[key].verdict)


def told(*rows):
    return " ".join(story.explain(analyze.analyse(list(rows), RUN)))


CPU_WORK = dict(workload="cpu", cpu_work=5000, ok_requests="")


def cpu_rows(platform_host, virtual_host, virtual_rps=395):
    return (row(thread_mode="platform", tomcat_max_threads=2, throughput_rps=400, app_cpu_ms_per_req=4,
                host_cpu_pct=platform_host, **CPU_WORK),
            row(thread_mode="virtual", throughput_rps=virtual_rps, app_cpu_ms_per_req=4, host_cpu_pct=virtual_host,
                **CPU_WORK))


def test_the_cpu_is_called_the_wall_only_where_every_row_saturated_it():
    full = said("cpu", *cpu_rows(97, 97))
    assert "The CPU is the wall" in full and "a platform pool sized to the cores is enough" in full
    # host at 40%: the virtual row is still named cpu (by elimination), the sentence says what was measured
    idle = said("cpu", *cpu_rows(40, 40))
    assert "The CPU is the wall" not in idle and "enough" not in idle
    assert "No row saturated the CPU (host CPU at most 40%): the cores were not the wall here" in idle
    half = said("cpu", *cpu_rows(97, 60, virtual_rps=300))
    # the virtual row at 60%: nothing saturated, so no wall named (the analysis says unexplained), and nor does this
    assert ("The CPU was full in platform (2 threads) only; virtual stopped short of every ceiling (no wall seen) "
            "with the host CPU at 60%.") in half
    assert "The thread model still moves throughput by 25% (best: platform (2 threads))." in half
    assert "each model's own overhead" in said("cpu", *cpu_rows(97, 97, virtual_rps=300))
    # the host full in both rows, but k6 took more of it than the service: its interference makes both rows invalid,
    # so neither the CPU's wall nor the generator's is concluded from them
    shared = said("cpu", *(dict(r, load_cpu_pct="120", app_cpu_pct="60") for r in cpu_rows(97, 97)))
    assert "The CPU is the wall" not in shared and "The CPU was full" not in shared and "moves" not in shared
    assert ("Neither the CPU's wall nor the thread model's effect is concluded: no valid CPU-bound row (platform (2 "
            "threads): generator-interference; virtual: generator-interference).") in shared
    assert "platform (2 threads) 400.0 req/s (load-generator, host CPU 97%; invalid)" in shared


def test_the_cpu_per_request_is_called_the_services_only_where_it_was_measured():
    assert "4.00 ms of the service's CPU per request" in said("cpu", *cpu_rows(97, 97))
    unmeasured = row(thread_mode="platform", tomcat_max_threads=2, throughput_rps=400, host_cpu_pct=97, **CPU_WORK)
    text = said("cpu", unmeasured)
    assert "of the service's CPU per request" not in text and "the service's CPU was not measured" in text


def test_missing_samples_on_a_cpu_bound_virtual_row_are_blamed_on_the_carriers_only_with_the_cores_full():
    def starved(host):
        return said("cpu", row(thread_mode="virtual", throughput_rps=395, app_cpu_ms_per_req=4, host_cpu_pct=host,
                               meter_samples=3, **CPU_WORK))
    assert "waited behind the computation" in starved(97)
    assert "waited behind the computation" not in starved(40)
    assert "went missing with the host CPU at 40%: not the carriers busy computing" in starved(40)


def platform_row(users, rps, p99, **changes):
    return row(thread_mode="platform", concurrency=users, throughput_rps=rps, throughput_ci95_rps=2, p99_ms=p99,
               tomcat_connections_max=users, ok_requests="", **changes)


def test_platform_threads_are_said_to_flatten_only_where_two_rows_at_their_wall_show_it():
    lowest = platform_row(100, 99, 1020, p50_ms=1003)
    flat = told(lowest, platform_row(400, 199, 2300), platform_row(1000, 200, 5800))
    assert ("Platform threads flatten at 200 req/s: Tomcat's threads ÷ the time each is busy (1,003 ms, the p50 at "
            "lowest load) predict 199 req/s, and past that users only queue (p99 5,800 ms at 1000 users).") in flat
    one = told(lowest, platform_row(400, 199, 2300))
    assert "flatten" not in one and "only queue" not in one
    assert "met their thread wall at 400 users with 199 req/s" in one and "what lies past it was not measured" in one
    rising = told(lowest, platform_row(400, 199, 2300), platform_row(1000, 260, 5800))
    # 260 req/s at 1000 users passes the 199 req/s the threads allow: that row is no longer named thread-pool
    assert ("yet at 1000 users they served 260 req/s, beyond that prediction and its noise: the thread wall did not "
            "hold there.") in rising
    calm = told(lowest, platform_row(400, 199, 2300), platform_row(1000, 200, 2100))
    assert "only queue" not in calm and "past that p99 did not grow (2,300 ms at 400 users, 2,100 ms at 1000)" in calm


def test_virtual_threads_are_said_limited_by_a_ceiling_only_where_they_reached_it():
    def virtual(users, rps, p50=1010):
        # CPU in proportion to the load, so the lower rows predict the CPU wall instead of restating it
        return row(concurrency=users, throughput_rps=rps, throughput_ci95_rps=5, p50_ms=p50, ok_requests="",
                   http_reqs=rps * 30, app_cpu_pct=rps / 10)
    lower = (virtual(100, 99), virtual(400, 396))
    assert "(99% of a predicted 990 req/s), limited by the users themselves" in told(*lower, virtual(1000, 982, 1020))
    short = told(*lower, virtual(1000, 400, 1020))
    assert "limited by" not in short
    assert "(40% of a predicted 990 req/s), short of its lowest ceiling, that of the users themselves" in short
    # 1,500 req/s passes the users' 990: that prediction was wrong, so it limits nothing; the CPU's 1,900 stands
    beyond = told(*lower, virtual(1000, 1500, 1020))
    assert "limited by" not in beyond and "(79% of a predicted 1,900 req/s), short of its lowest ceiling, that of " \
        "the CPU; bottleneck: unexplained" in beyond and "(ceiling-exceeded:concurrency)" in beyond


def held_row(mode, rps, users=100, waited=True, **changes):
    # the pool seen as the queue: every connection out, waiters in most samples
    pool = dict(hikari_active_max=50, hikari_pending_max=50, hikari_pending_share=0.9) if waited else {}
    return row(thread_mode=mode, conn_mode="held", hikari_pool=50, concurrency=users, throughput_rps=rps,
               throughput_ci95_rps=0.8, tomcat_connections_max=users, ok_requests="", **pool, **changes)


def test_the_held_story_says_virtual_threads_cannot_help_only_where_both_modes_stopped_at_the_pool_alike():
    same = told(held_row("platform", 49.7), held_row("virtual", 49.7))
    assert "the bottleneck moves to the pool: pool ÷ 1,000 ms (stub delay) caps both modes at 50 req/s" in same
    assert "Virtual threads cannot help when every request needs a connection for the whole call." in same
    apart = told(held_row("platform", 49.7), held_row("virtual", 95))
    assert "cannot help" not in apart
    assert "Virtual threads delivered 1.91× [1.87–1.96] the platform threads' rate at 50 connections" in apart
    alone = told(held_row("platform", 49.7))
    assert "cannot help" not in alone and "caps it at 50 req/s" in alone
    assert "Only one thread mode was measured held: whether virtual threads help here was not measured." in alone
    # 20 users on 50 connections: the users, not the pool, were the wall
    few = told(held_row("platform", 19.8, users=20, waited=False), held_row("virtual", 19.8, users=20, waited=False))
    assert "moves to the pool" not in few and "the pool was the bottleneck in 0 of 2 held rows" in few
    assert "cannot help" not in few and "within noise of each other, though not both at the pool" in few


def open_row(mode, offered, rps, p99, **changes):
    p50 = changes.pop("p50_ms", 1004 if rps >= offered else 5000)
    return row(thread_mode=mode, load_model="open", target_rps=offered, concurrency=2 * offered, throughput_rps=rps,
               throughput_ci95_rps=2, p50_ms=p50, p99_ms=p99, ok_requests="", **changes)


def test_the_open_story_says_latency_grew_only_where_the_p99_shows_a_queue():
    kept = open_row("platform", 150, 149.8, 1030)
    queued = told(kept, open_row("platform", 400, 197.9, 10200))
    assert "and latency grew (p99 10,200 ms, 10.2× the 1,000 ms a request takes unqueued)" in queued
    assert "without bound" not in queued
    calm = told(kept, open_row("platform", 400, 197.9, 1100))
    assert "latency grew" not in calm
    assert "yet latency did not grow (p99 1,100 ms against 1,000 ms in service)" in calm


def test_every_row_valid_says_no_dropped_iterations_only_where_no_row_noted_any():
    clean = told(row(), row(concurrency=50))
    assert "Every row is valid: the generator kept up (its CPU is in every row), no dropped iterations" in clean
    # arrivals dropped with k6's CPU to spare: a note, the row stays valid, and the sentence must not deny it
    # 1.5 s a request: 225 in flight, well inside k6's 600 VUs, so k6's cap was not the wall (that would be vu-cap)
    noted = told(open_row("virtual", 150, 149.8, 1030, dropped_iterations=20, p50_ms=1500),
                 open_row("virtual", 400, 398, 1100))
    assert "no dropped iterations" not in noted
    assert "Every row is valid; noted, without making a row invalid: virtual 150/s" in noted
    assert "(offered-above-capacity)" in noted


OFFLOAD = dict(workload="offload", concurrency=400, p50_ms=1005, p99_ms=8000, tomcat_connections_max=400,
               ok_requests="")


def offload_row(tomcat, executor, rps, **changes):
    return row(thread_mode=tomcat, offload_executor=executor, offload_pool=50 if executor == "platform" else 0,
               throughput_rps=rps, **{**OFFLOAD, **changes})


def test_offload_names_the_narrowest_pool_the_wall_only_where_the_rows_stopped_at_it():
    fine = said("offload", offload_row("platform", "platform", 49.5), offload_row("virtual", "virtual", 390))
    assert "each row with a pool below its users stopped at it (platform Tomcat → 50 platform threads)" in fine
    assert "A virtual-thread executor behind platform Tomcat" not in fine  # no such row: nothing claimed
    # a fifth of the requests refused (503): the analysis names overload, not Tomcat's threads
    refused = said("offload", offload_row("platform", "platform", 49.5), offload_row("virtual", "virtual", 390),
                   offload_row("platform", "virtual", 198, error_rate=0.2, errors_by_status="503=1200"))
    assert "so the narrowest pool on the path sets the wall" not in refused
    assert "yet not every row with a pool below its users stopped at it: platform Tomcat → virtual threads " \
           "(overload)" in refused
    assert "still stops at Tomcat's threads" not in refused
    assert "A virtual-thread executor behind platform Tomcat met overload, not Tomcat's 200 threads" in refused
    few = said("offload", offload_row("platform", "virtual", 98, concurrency=100, tomcat_connections_max=100))
    assert "capped by none of its pools (Tomcat's 200 threads: no fewer threads than users)" in few
    assert "No row had a pool below its users" in few and "still stops" not in few


def fanout_row(mode, fanout, p50, rps):
    return row(thread_mode=mode, fanout=fanout, workload="fanout", concurrency=400, stub_delay_ms=1000, p50_ms=p50,
               throughput_rps=rps, tomcat_connections_max=400, ok_requests="")


def test_platform_fanout_carries_more_only_as_far_as_the_rows_show_it():
    sequential = fanout_row("platform", "sequential", 4433, 99.6)
    doubled = said("fanout", sequential, fanout_row("platform", "structured", 2168, 199.3))
    assert "so a fan-out 2.00× shorter carried 2.00× the requests on the same 200 threads" in doubled
    short = said("fanout", sequential, fanout_row("platform", "structured", 2168, 120))
    assert "on the same 200 threads" not in short
    assert "yet a fan-out 2.00× shorter carried 1.20× the requests (thread-pool → thread-pool)" in short
    assert "With platform Tomcat" not in said("fanout", sequential)  # nothing to compare: nothing claimed


SLEEP = dict(workload="sleep", sleep_ms=5000, ok_requests="")


def sleep_row(mode, users, rps, p50):
    return row(thread_mode=mode, concurrency=users, tomcat_connections_max=users, throughput_rps=rps, p50_ms=p50,
               **SLEEP)


def test_sleep_says_users_waited_for_a_thread_only_where_there_were_more_and_the_median_shows_it():
    waited = said("sleep", sleep_row("platform", 1000, 40, 25000))
    assert "so a user waits for a thread (median 25.0 s, 5.0× the sleep)" in waited
    unqueued = said("sleep", sleep_row("platform", 1000, 40, 5010))
    assert "waits for a thread" not in unqueued and "yet users did not wait for a thread (median 5.0 s" in unqueued
    fewer = said("sleep", sleep_row("platform", 100, 19.9, 5003))
    assert "waits for a thread" not in fewer and "every user has a thread (100 users, 200 threads" in fewer


def test_sleep_says_virtual_threads_took_about_the_sleep_only_where_the_median_is():
    assert "median 5.00 s — about the sleep itself" in said("sleep", sleep_row("virtual", 1000, 199, 5003))
    slow = said("sleep", sleep_row("virtual", 1000, 110, 9000))
    assert "about the sleep itself" not in slow and "1.8× the sleep: requests waited beyond their sleep" in slow


def test_the_ratio_sentence_claims_a_ratio_only_where_the_modes_intervals_are_apart():
    apart = said("sleep", sleep_row("platform", 1000, 40, 25000), sleep_row("virtual", 1000, 199, 5003))
    assert "Virtual threads deliver 5.0× the platform throughput here." in apart
    close = said("sleep", sleep_row("platform", 100, 19.9, 5003), sleep_row("virtual", 100, 19.9, 5003))
    assert "deliver" not in close and "Virtual and platform threads are within noise of each other here" in close


def context_rows(none_rss=700, scoped_pause=590, with_none=True):
    common = dict(concurrency=1000, thread_mode="virtual", stub_delay_ms=2000)
    none = row(context="none", rss_mb_max=none_rss, heap_used_mb_max=300, gc_pauses=20, gc_pause_ms=200, **common)
    local = row(context="threadlocal", context_kb=64, rss_mb_max=900, heap_used_mb_max=500, gc_pauses=60,
                gc_pause_ms=600, **common)
    scoped = row(context="scopedvalue", context_kb=64, rss_mb_max=880, heap_used_mb_max=490, gc_pauses=58,
                 gc_pause_ms=scoped_pause, **common)
    return (none, local, scoped) if with_none else (local, scoped)


def test_the_holder_is_said_to_matter_less_than_the_size_only_where_the_rows_show_both():
    supported = said("context", *context_rows())
    assert "so the holder matters less than the context's size (without one: RSS 700 MB)" in supported
    sizeless = said("context", *context_rows(none_rss=890))
    assert "matters less" not in sizeless
    assert "the holder made no difference beyond noise, and neither did the context's size" in sizeless
    paused = said("context", *context_rows(scoped_pause=300))
    assert "matters less" not in paused and "the holders differ beyond noise (GC pause time 50% apart)" in paused
    alone = said("context", *context_rows(with_none=False))
    assert "matters less" not in alone and "no row without a context to weigh its size against" in alone


def test_the_context_sections_noise_threshold_is_the_one_the_run_recorded():
    # GC pause time 600 vs 500 ms: 17% apart, beyond the 10% this version records, within the 20% of another record
    rows = context_rows(scoped_pause=500)
    assert "the holders differ beyond noise (GC pause time 17% apart)" in said("context", *rows)
    assert "differences under 10% here are taken as run-to-run noise" in said("context", *rows)
    lenient = record.from_dict({**META, "rig": {**META["rig"], "figure_noise_share": 0.2}})
    text = " ".join(next(s for s in scenarios.sections(analyze.analyse(list(rows), lenient), mode_label)
                         if s.key == "context").verdict)
    assert "differ beyond noise" not in text and "differences under 20% here are taken as run-to-run noise" in text
    assert "so the holder matters less than the context's size (without one: RSS 700 MB)" in text


POOLS = dict(conn_mode="held", hikari_pool=20, concurrency=200, stub_delay_ms=50, thread_mode="virtual",
             ok_requests="")
AT_THE_POOL = dict(hikari_active_max=20, hikari_pending_max=100, hikari_pending_share=0.9)


def pool_row(impl, rps, **changes):
    return row(pool_impl=impl, throughput_rps=rps, **{**POOLS, **changes})


def test_the_pools_are_said_to_share_a_wall_only_where_the_analysis_named_the_same_one():
    assert "— the same wall" in said("pools", pool_row("hikari", 370), pool_row("agroal", 365))
    # a twentieth of Agroal's requests failed: that row is invalid, so the pools are not compared at all
    refused = said("pools", pool_row("hikari", 370), pool_row("agroal", 365, error_rate=0.05))
    assert "within noise" not in refused and "the same wall" not in refused and "Agroal at" not in refused
    assert ("HikariCP 370.0 req/s (p99 1,050 ms) vs Agroal 365.0 req/s (invalid) (p99 1,050 ms): not compared — no "
            "valid Agroal row (errors-above-threshold) — figures from invalid rows, not an answer: Agroal 365.0 "
            "req/s; bottleneck") in refused


def test_agroals_tail_is_said_fairer_only_at_the_same_throughput_with_both_pools_queued():
    hikari = pool_row("hikari", 358, p99_ms=1554, throughput_ci95_rps=2, **AT_THE_POOL)
    fair = said("pools", hikari, pool_row("agroal", 360, p99_ms=1084, throughput_ci95_rps=2, **AT_THE_POOL))
    assert "Agroal's p99 is 30% shorter: the waiters were served more evenly at the same throughput." in fair
    slower = said("pools", hikari, pool_row("agroal", 300, p99_ms=1084, throughput_ci95_rps=2, **AT_THE_POOL))
    assert "Agroal's p99 is 30% shorter." in slower and "evenly" not in slower
    matched = said("pools", hikari, pool_row("agroal", 300, p99_ms=1554, throughput_ci95_rps=2, **AT_THE_POOL))
    assert "Their tails match." in matched and "match too" not in matched


def test_neither_pool_is_said_to_pin_only_where_both_pools_rows_were_recorded():
    assert "Neither pool pinned a virtual thread while borrowing" in said(
        "pools", pool_row("hikari", 370), pool_row("agroal", 365))
    hikari_pinned = said("pools", pool_row("hikari", 370, pinned_events=5, pinned_reasons="Native or VM frame=5"),
                         pool_row("agroal", 365))
    assert "Neither" not in hikari_pinned
    assert "Agroal pinned no virtual thread while borrowing; HikariCP pinned 5 times" in hikari_pinned
    platform = dict(thread_mode="platform")
    unmeasured = said("pools", pool_row("hikari", 370, **platform), pool_row("agroal", 365, **platform))
    assert "Neither" not in unmeasured and "Pinning while borrowing was not measured" in unmeasured
    lone = said("pools", pool_row("agroal", 365))
    assert "Neither" not in lone and "no HikariCP row on virtual threads to compare with" in lone
    pinned = said("pools", pool_row("hikari", 370), pool_row("agroal", 250, pinned_events=40,
                                                              pinned_reasons="Native or VM frame on stack=40"))
    assert "where HikariCP at the same settings pinned none: its borrow still blocks a carrier" in pinned


LATENCY = dict(conn_mode="released", hikari_pool=10, concurrency=400, stub_delay_ms=1000, thread_mode="virtual",
               throughput_first_half_rps=None, throughput_second_half_rps=None, ok_requests="")
LOOPBACK = row(throughput_rps=396, p50_ms=1004, p99_ms=1030, **LATENCY)


def test_the_connections_are_said_all_busy_only_where_the_pool_was_seen_full():
    far = dict(db_latency_ms=20, db_jitter_ms=5, throughput_rps=236, p50_ms=1690, hikari_active_max=10)
    busy = said("latency", LOOPBACK, row(**far, hikari_pending_max=300, hikari_pending_share=0.95, **LATENCY))
    assert "all 10 connections were busy" in busy
    # no waiter ever seen: the pool is not named (it once was, by its ceiling alone), and nor is it said busy
    unseen = said("latency", LOOPBACK, row(**far, hikari_pending_max=0, **LATENCY))
    assert "(connection-pool" not in unseen and "all 10 connections were busy" not in unseen


def test_the_round_trip_is_said_to_be_in_the_connection_time_only_where_the_time_covers_it():
    def far(rps, **changes):
        return said("latency", LOOPBACK, row(db_latency_ms=20, db_jitter_ms=5, throughput_rps=rps, p50_ms=1690,
                                             pool_out_mean=9.8, pool_waiting_mean=30, **changes, **LATENCY))
    assert "~42 ms (connections ÷ throughput) — the 40 ms round trip plus the query" in far(236)
    fast = far(400)
    assert "round trip plus the query" not in fast and "~25 ms (connections ÷ throughput) — less than the 40 ms" in fast
    downstream = said("latency", LOOPBACK, row(downstream_latency_ms=20, throughput_rps=236, p50_ms=1690,
                                               pool_out_mean=9.8, pool_waiting_mean=30, **LATENCY))
    assert "round trip" not in downstream and "each request kept one ~42 ms (connections ÷ throughput)." in downstream


def test_a_broken_capture_makes_the_synchronized_zero_prove_nothing():
    assert "JEP 491 (JDK 24+) lets a virtual thread unmount" in said("pinning", *pinning_rows(380, 0))
    broken = said("pinning", *pinning_rows(0, 0))
    assert "lets a virtual thread unmount" not in broken
    assert "which proves nothing while the capture is broken" in broken
    unread = said("pinning", *pinning_rows("", 0))
    assert "The capture works" not in unread and "no pinned-event count (its recording was unreadable)" in unread
    assert "Without a pinned-control count this zero is unverified." in unread


def control_row_with(**changes):
    rows = pinning_rows(changes.pop("control_events", 380), 0)
    rows[2] = {**rows[2], **{k: str(v) for k, v in changes.items()}}
    return said("pinning", *rows)


def test_the_carriers_are_called_the_pool_only_where_the_control_pinned_and_served_what_they_allow():
    assert "so the carriers are the pool: 2 ÷ 100 ms = 20.0 req/s" in control_row_with()
    faster = control_row_with(throughput_rps=150, ok_requests="")
    assert "carriers are the pool" not in faster and "the row served 7.5× that: not every request kept" in faster
    slower = control_row_with(throughput_rps=5)
    assert "carriers are the pool" not in slower and "and the row stayed below that" in slower
    silent = control_row_with(control_events=0)
    assert "so the carriers are the pool" not in silent and "with 0 pinned events the carriers are not shown" in silent


def test_the_controls_missing_samples_are_blamed_on_pinning_only_where_it_pinned():
    assert "its scrapes waited for a carrier" in control_row_with(meter_samples=2)
    silent = control_row_with(control_events=0, meter_samples=2)
    assert "waited for a carrier" not in silent
    assert "with no pinned carrier recorded: not explained by pinning" in silent


def jep491_platform_http(rps, events, **changes):
    common = dict(concurrency=50, stub_delay_ms=100, p50_ms=102, p99_ms=130, vt_parallelism=2, thread_mode="virtual")
    return [row(path_mode="normal", jdk=21, jdk_version="21.0.8+9-LTS", throughput_rps=450, **common),
            row(path_mode="synchronized-platform-http", jdk=21, jdk_version="21.0.8+9-LTS", throughput_rps=rps,
                pinned_events=events, pinned_reasons=f"no reason recorded (JDK < 24)={events}" if events else "",
                **{**common, **changes})]


def test_jep491_calls_the_carriers_the_pool_only_where_jfr_saw_them_pinned_and_the_row_stayed_within():
    assert "so the 2 carriers are the pool: ceiling 2 ÷ 100 ms = 20.0 req/s" in said(
        "jep491", *jep491_platform_http(19.5, 390))
    silent = said("jep491", *jep491_platform_http(19.5, 0))
    assert "carriers are the pool" not in silent and "yet JFR recorded no pinned event" in silent
    faster = said("jep491", *jep491_platform_http(150, 390, ok_requests=""))
    assert "carriers are the pool" not in faster and "yet the row served 7.5× that" in faster


def test_a_stall_is_called_the_pinning_deadlock_only_with_as_many_users_as_carriers():
    def stalled(carriers):
        rows = [r for r in jep491_rows() if r["jdk"] == "21"]
        return said("jep491", *[{**r, "vt_parallelism": str(carriers)} for r in rows])
    assert "This is the JDK 21 pinning deadlock" in stalled(2)
    many = stalled(64)
    assert "pinning deadlock:" not in many and "Fewer users (50) than carriers (64): not every carrier" in many
    assert "whether every one was pinned (the JDK 21 pinning deadlock) is not measured" in stalled("")


REACTIVE = dict(concurrency=1000, stub_delay_ms=1000, hikari_pool=50, ok_requests="")


def reactive_said(**webflux):
    rows = [row(thread_mode="platform", throughput_rps=199, p50_ms=5000, tomcat_connections_max=1000, **REACTIVE),
            row(thread_mode="virtual", throughput_rps=890, jvm_threads_max=32, app_cpu_ms_per_req=0.77, **REACTIVE),
            row(thread_mode="webflux", pool_impl="r2dbc", tomcat_max_threads=0, jvm_threads_max=25,
                **{**REACTIVE, **{k: str(v) for k, v in webflux.items()}})]
    return said("reactive", *rows)


def test_webflux_and_virtual_threads_share_a_wall_only_where_the_analysis_named_the_same_one():
    assert "the same wall on this I/O-bound workload" in reactive_said(throughput_rps=905, app_cpu_ms_per_req=0.8)
    busy = reactive_said(throughput_rps=895, app_cpu_ms_per_req=2.0, host_cpu_pct=99.9, app_cpu_pct=180)
    assert "the same wall" not in busy and "though named different walls (downstream vs cpu)" in busy
    # a twentieth of its requests refused: the WebFlux row is invalid, and the two are not compared at all
    refused = reactive_said(throughput_rps=905, app_cpu_ms_per_req=0.8, error_rate=0.05, errors_by_status="503=1357")
    assert "the same wall" not in refused and "different walls" not in refused and "within noise" not in refused
    assert ("Virtual threads and WebFlux are not compared: no valid WebFlux row (errors-above-threshold) — figures "
            "from invalid rows, not an answer: WebFlux 905.0 req/s.") in refused
    assert "The WebFlux row is not valid (errors-above-threshold)." in refused and "lower bound" not in refused
    starved = reactive_said(throughput_rps=614, app_cpu_ms_per_req=0.8, load_cpu_pct=190, load_cpu_pct_max=195)
    assert "The WebFlux row is not valid (generator-saturated); read it as a lower bound." in starved


def test_the_reactive_stacks_cpu_is_called_its_wall_only_where_it_was_slower_with_the_cores_full():
    costly = dict(app_cpu_ms_per_req=2.0)
    assert "the reactive stack's cost per request, not threads, sets its wall" in reactive_said(
        throughput_rps=614, host_cpu_pct=99.9, **costly)
    idle = reactive_said(throughput_rps=614, host_cpu_pct=40, **costly)
    assert "sets its wall" not in idle and "but the CPU was not saturated" in idle
    faster = reactive_said(throughput_rps=1200, host_cpu_pct=99.9, **costly)
    assert "sets its wall" not in faster and "and still served more" in faster


def spike_row(mode, base, peak, failed=0, recovery=3):
    return row(thread_mode=mode, shape="spike", base_p99_ms=base, spike_p99_ms=peak, spike_failed=failed,
               recovery_s=recovery)


def test_virtual_threads_are_said_to_absorb_a_spike_only_where_their_p99_held():
    absorbed = said("shapes", spike_row("platform", 200, 900), spike_row("virtual", 200, 250))
    assert "the platform pool queued the burst that virtual threads absorbed" in absorbed
    grew = said("shapes", spike_row("platform", 200, 900), spike_row("virtual", 200, 500))
    assert "absorbed" not in grew and "but virtual threads did not absorb it either" in grew
    failed = said("shapes", spike_row("platform", 200, 900), spike_row("virtual", 200, 250, failed=30))
    assert "absorbed." not in failed and "did not absorb it either" in failed
    assert "virtual threads fared worse" in said("shapes", spike_row("platform", 200, 300),
                                                 spike_row("virtual", 200, 900))
    unmeasured = said("shapes", spike_row("platform", "", 300, recovery=""))
    assert "recovery not measured (no p99 before the spike)" in unmeasured and "had not recovered" not in unmeasured


def test_a_knee_is_named_only_where_throughput_stopped_growing_within_the_steps():
    def steps(rps_400, knee):
        return said("shapes", row(shape="steps", steps_rps=f"100=98;200=190;400={rps_400}",
                                  steps_p99_ms="100=1010;200=1020;400=1900", knee_load=knee))
    assert "throughput kept growing with the load up to 200 — the knee" in steps(210, 200)
    through = steps(390, 400)
    assert "the knee" not in through and "through the last step, 400: no knee within the steps" in through


def test_a_soak_is_called_steady_or_drifting_only_where_its_rss_drift_was_measured():
    def soak(drift):
        return said("shapes", row(shape="soak", rss_drift_mb_per_min=drift, threads_drift_per_min=0,
                                  gc_pause_ms_per_min=12))
    assert "— steady (±1 MB/min)" in soak(0.2) and "— drifting (±1 MB/min)" in soak(5)
    unmeasured = soak("")
    assert "drifting" not in unmeasured and "steady" not in unmeasured and "RSS drift not measured" in unmeasured


def test_the_write_check_says_only_what_its_counts_show():
    def writes(**counts):
        return said("writes", row(workload="write", **counts))
    assert "all 100 acknowledged writes are in the database" in writes(writes_ok="true", rows_inserted=100,
                                                                         writes_acknowledged=100)
    uncounted = writes(writes_ok="false", rows_inserted="", writes_acknowledged=100)
    assert "never acknowledged" not in uncounted and "100 writes acknowledged, but the stored orders were not " \
                                                     "counted" in uncounted
    assert "2 more orders stored than acknowledged to the client" in writes(writes_ok="false", rows_inserted=102,
                                                                            writes_acknowledged=100)


JDK_AT_1000 = dict(stub_delay_ms=100, concurrency=1000, throughput_rps=2010, http_reqs=60300, ok_requests=60300,
                   p50_ms=480, mean_ms=490, p99_ms=900, client_pool_max=-1, host_cpu_pct=97, app_cpu_pct=120)


def test_the_clients_section_names_a_full_pool_the_wall_with_its_ceiling_and_one_that_did_not_fill_as_such():
    clients = sections_of(row(**CLIENT_LOW), row(**APACHE_WALL), row(**JDK_AT_1000))["clients"]
    assert clients.verdict[2] == ("virtual, Apache HttpClient 5, 1000 users: 49.2 ± 0.8 req/s, p99 20,800 ms; its "
                                  "pool was the wall: 5 connections per route (its default) ÷ 100 ms a request = 50.0 "
                                  "req/s, the row within reach of it (leased 5.0 mean, 994.0 requests waiting for a "
                                  "connection).")
    assert clients.verdict[1] == ("virtual, the JDK's HttpClient, 1000 users: 2,010.0 req/s, p99 900 ms; the client "
                                  "has no connection limit; bottleneck cpu.")
    assert clients.verdict[0] == ("virtual, Apache HttpClient 5, 4 users: 39.2 req/s, p99 110 ms; its pool (5 "
                                  "connections per route (its default) ÷ 100 ms a request = 50.0 req/s) did not fill: "
                                  "leased 3.9 mean; bottleneck downstream.")
    assert [line["client_pool"] for line in clients.table] == ["5 (its default)", "no limit", "5 (its default)"]
    # the same 1,000-user row with its pool not full: no wall of the pool is said
    roomy = sections_of(row(**CLIENT_LOW), row(**{**APACHE_WALL, "client_leased_mean": 3, "client_pending_max": 0,
                                                   "client_pending_mean": 0, "client_pending_share": 0}))["clients"]
    assert "was the wall" not in " ".join(roomy.verdict) and "did not fill: leased 3.0 mean" in roomy.verdict[1]
    # no row with another client than the JDK's: no section
    assert "clients" not in sections_of(row(**JDK_AT_1000))


SERVER_POINT = dict(thread_mode="platform", concurrency=1000, throughput_rps=198.6, http_reqs=5958, ok_requests=5958,
                    throughput_ci95_rps=1.5, p50_ms=5000, mean_ms=5030, p99_ms=5200, tomcat_connections_max=1000,
                    app_cpu_ms_per_req=0.41, server_max_threads=200)


def test_the_servers_section_calls_jetty_different_from_tomcat_only_beyond_both_rows_noise():
    servers = sections_of(row(**SERVER_POINT), row(**SERVER_POINT, server="jetty"))["servers"]
    assert servers.verdict == [
        "platform, 1000 users: Tomcat 198.6 ± 1.5 req/s (p99 5,200 ms, 0.41 ms, thread-pool) against Jetty 198.6 ± 1.5 "
        "req/s (p99 5,200 ms, 0.41 ms of CPU a request, thread-pool): within noise of each other (their intervals for "
        "comparison, ± 5.5 and ± 5.5 req/s, overlap)."]
    assert [line["threads_cap"] for line in servers.table] == ["200", "200"]
    apart = sections_of(row(**SERVER_POINT), row(**{**SERVER_POINT, "server": "jetty", "throughput_rps": 150,
                                                    "server_max_threads": -1}))["servers"]
    assert "Jetty at 0.76× Tomcat (their intervals apart)" in apart.verdict[0]
    assert [line["threads_cap"] for line in apart.table] == ["200", "no cap"]
    assert "servers" not in sections_of(row(**SERVER_POINT))


def test_the_servers_section_pairs_each_other_server_with_tomcat_and_says_netty_has_no_thread_cap_on_virtual():
    virtual = {**SERVER_POINT, "thread_mode": "virtual", "throughput_rps": 990.0, "throughput_ci95_rps": 4.0,
               "p99_ms": 1040, "server_max_threads": -1, "ok_requests": ""}
    servers = sections_of(row(**SERVER_POINT), row(**SERVER_POINT, server="jetty"), row(**SERVER_POINT, server="netty"),
                          row(**virtual), row(**{**virtual, "server": "netty", "throughput_rps": 900.0}))["servers"]
    assert servers.title == "Servers: Tomcat vs Jetty and Netty at the same settings"
    assert [(line["variant"], line["threads_cap"]) for line in servers.table] == [
        ("platform, Tomcat", "200"), ("platform, Jetty", "200"), ("platform, Netty", "200"),
        ("virtual, Tomcat", "no cap"), ("virtual, Netty", "no cap")]
    assert servers.verdict[1].startswith("platform, 1000 users: Tomcat 198.6 ± 1.5 req/s")
    assert "against Netty 198.6 ± 1.5 req/s" in servers.verdict[1] and "within noise" in servers.verdict[1]
    assert servers.verdict[2].startswith("virtual, 1000 users: Tomcat 990.0 ± 4.0 req/s")
    assert "Netty at 0.91× Tomcat (their intervals apart)" in servers.verdict[2]


def test_a_virtual_wall_of_carriers_every_request_pinned_is_named_so_not_the_servers_threads():
    from rows import RUN, row

    from vtlab.explain import analyze
    from vtlab.report import answer

    pinned = row(path_mode="synchronized-platform-http", thread_mode="virtual", jdk=21, concurrency=50,
                 stub_delay_ms=100, p50_ms=2500, throughput_rps=19.5, vt_parallelism=2)
    (line,) = analyze.analyse([pinned], RUN).aggregates
    assert line.bottleneck == "thread-pool"
    assert answer.wall_words(line) == "its 2 carrier threads, each request pinning one"
    on_25 = row(path_mode="synchronized-platform-http", thread_mode="platform", jdk=25, concurrency=400,
                stub_delay_ms=100, p50_ms=400, throughput_rps=1000, tomcat_max_threads=100)
    (line,) = analyze.analyse([on_25], RUN).aggregates
    assert answer.wall_words(line) == "the server's 100 request threads"
