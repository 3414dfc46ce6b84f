"""The report's scenario sections on hand-made rows: each verdict can go both ways."""

from rows import RUN, row

from vtlab.explain import analyze
from vtlab.report import headline, scenarios, story
from vtlab.report.labels import mode_label
from vtlab.measure import writecheck


def sections_of(*rows):
    return {s.key: s for s in scenarios.sections(analyze.analyse(list(rows), RUN), mode_label)}


def pinning_rows(control_events: int, monitor_events: int):
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
    sleep = dict(workload="sleep", sleep_ms=5000, concurrency=1000, tomcat_connections_max=1000)
    found = sections_of(
        row(thread_mode="platform", throughput_rps=40, p50_ms=25000, p99_ms=26000, **sleep),
        row(thread_mode="virtual", throughput_rps=199, p50_ms=5003, p99_ms=5020, **sleep),
        row(thread_mode="platform", tomcat_max_threads=2, workload="cpu", cpu_work=5000, throughput_rps=400,
            app_cpu_ms_per_req=4, host_cpu_pct=97))
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
    assert "only virtual Tomcat → virtual threads had none below the users" in " ".join(section.verdict)


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
    common = dict(conn_mode="held", hikari_pool=20, concurrency=200, stub_delay_ms=50, thread_mode="virtual")
    hikari = row(pool_impl="hikari", throughput_rps=370, **common)
    same = row(pool_impl="agroal", throughput_rps=365, **common)
    slower = row(pool_impl="agroal", throughput_rps=250, pinned_events=40,
                 pinned_reasons="Native or VM frame on stack=40", **common)
    assert "within noise of each other (their 95% intervals overlap) — the same wall" in " ".join(
        sections_of(hikari, same)["pools"].verdict)
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
    common = dict(concurrency=1000, stub_delay_ms=1000, hikari_pool=50)
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
    common = dict(conn_mode="held", hikari_pool=20, concurrency=200, stub_delay_ms=50, thread_mode="virtual")

    def pools(hikari_rps, hikari_ci, agroal_rps, agroal_ci):
        return " ".join(sections_of(row(pool_impl="hikari", throughput_rps=hikari_rps, throughput_ci95_rps=hikari_ci,
                                        **common),
                                    row(pool_impl="agroal", throughput_rps=agroal_rps, throughput_ci95_rps=agroal_ci,
                                        **common))["pools"].verdict)
    # 4% apart with tight intervals: a real difference
    assert "Agroal at 0.96× HikariCP (their 95% intervals apart)" in pools(370, 2, 355, 2)
    assert "HikariCP 370.0 ± 2.0 req/s" in pools(370, 2, 355, 2)
    # 8% apart inside wide intervals: nothing to claim
    assert "within noise" in pools(370, 20, 340, 20)
    # no interval measured: ±5% stands in (a 4% gap is noise, a 20% one is not)
    assert "within noise" in pools(370, "", 355, "")
    assert "Agroal at 0.80× HikariCP" in pools(370, "", 296, "")


def test_scenario_sections_tell_the_median_of_the_reps_not_the_last_one():
    common = dict(conn_mode="held", hikari_pool=20, concurrency=200, stub_delay_ms=50, thread_mode="virtual",
                  ok_requests="")
    rows = [row(pool_impl="hikari", rep=1, throughput_rps=370, p99_ms=1500, throughput_ci95_rps=3, **common),
            row(pool_impl="agroal", rep=1, throughput_rps=360, p99_ms=1400, throughput_ci95_rps=3, **common),
            row(pool_impl="agroal", rep=2, throughput_rps=366, p99_ms=1450, throughput_ci95_rps=4, **common),
            row(pool_impl="agroal", rep=3, throughput_rps=250, p99_ms=3000, throughput_ci95_rps=3, **common)]
    section = sections_of(*rows)["pools"]
    text = " ".join(section.verdict)
    # the median rep (360), its interval the reps' joined ones (247..370: ±113 around 360), the median p99
    assert "Agroal 360.0 ± 113.0 req/s (p99 1,450 ms)" in text and "within noise" in text
    assert [line["rps"] for line in section.table] == ["370.0 ± 3.0", "360.0 ± 113.0"]
    line = analyze.analyse(rows, RUN).aggregates[1]
    assert (line.interval_low, line.interval_high) == (247, 370) and line.line.row.rep == 1


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
