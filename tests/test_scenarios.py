"""The report's scenario sections on hand-made rows: each verdict can go both ways."""

from test_analyze import META, row

from vtlab import analyze, report, scenarios, writecheck


def sections_of(*rows):
    return {s.key: s for s in scenarios.sections(analyze.analyse(list(rows), META), report.mode_label)}


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
    control = next(a for a in analyze.analyse(pinning_rows(380, 0), META) if a["path_mode"] == "pinned-control")
    # every request pins a carrier for its whole call: 2 carriers / the 100 ms downstream (the row itself
    # queued behind its carriers, so its own p50 cannot say how long one request takes)
    assert control["limit"] == "thread-pool" and control["bottleneck"] == "thread-pool"
    assert control["service_time_source"] == "stub delay" and round(control["ceiling_rps"], 1) == 20.0
    assert [line["variant"] for line in section.table][0] == "normal / virtual"


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
    result = analyze.analyse([lost], META)[0]
    assert not result["valid"] and "writes-mismatch" in result["flags"]
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
    analysed = analyze.analyse(rows, META)
    assert [round(a["ceiling_threads_rps"]) for a in analysed[:3]] == [round(50 / 1.005), round(200 / 1.005),
                                                                      round(50 / 1.005)]
    assert [a["bottleneck"] for a in analysed] == ["thread-pool", "thread-pool", "thread-pool", "downstream"]
    section = sections_of(*rows)["offload"]
    assert section.table[0]["variant"] == "platform Tomcat → 50 platform threads"
    assert "only virtual Tomcat → virtual threads had none below the users" in " ".join(section.verdict)
