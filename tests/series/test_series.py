"""A row's kept series: read back, cut into windows with k6's own rules, drawn per second."""

import dataclasses
import gzip
import json
import math
import shutil
from pathlib import Path

import pytest

from vtlab.cli.main import main
from vtlab.core.constants import CURRENT
from vtlab.series import holdstats, recut, store, windows
from vtlab.series.holdstats import HOST_WORK
from vtlab.results import table
from vtlab.report import timeline
from vtlab.results.rows import typed

from recuts import recut_differences

QUICK_RUN = Path(__file__).parents[1] / "fixtures" / "quick-run"


def write_k6(path, lines, start_unix_ms=1_000_000):
    with gzip.open(path, "wt") as handle:
        handle.write(f"# vtlab series v1 start_unix_ms={start_unix_ms}\n# legend\n")
        handle.writelines(line + "\n" for line in lines)


def test_percentiles_follow_k6s_rule():
    # k6's TrendSink.P: rank pct × (n − 1), linear between its neighbours
    assert store.percentile([10.0, 20.0, 30.0, 40.0], 0.5) == 25.0
    assert store.percentile([10.0, 20.0, 30.0, 40.0], 0.99) == pytest.approx(39.7)
    assert store.percentile([7.0], 0.99) == 7.0 and math.isnan(store.percentile([], 0.5))  # nothing: missing


def test_the_tagged_hold_and_a_window_give_k6s_figures(tmp_path):
    path = tmp_path / "row.k6.csv.gz"
    write_k6(path, [
        "v,1000.000,4",
        "r,1500.000,100,200,warmup,none,true",       # before the hold: never counted
        "r,3100.000,100,200,hold,a,true",            # started 3.0 s
        "r,3200.000,150,200,hold,a,true",
        "r,4100.000,50,503,hold,b,false",            # a fast failure
        "r,5050.000,1000,0,hold,b,false",            # no response: timed out
        "r,5200.000,120,200,hold,b,true",
        "r,6100.000,100,200,cooldown,none,true",
        "d,4000.000,hold,1",
        "d,2000.000,warmup,3",
    ])
    k6 = store.read_k6(path)
    tagged = store.load_result(k6, 0)
    assert (tagged.requests, tagged.ok_requests, tagged.ok_half_a, tagged.ok_half_b) == (5, 3, 2, 1)
    assert tagged.error_rate == pytest.approx(0.4) and tagged.failures_by_status == {"0": 1, "503": 1}
    assert tagged.p50_ms == 120 and tagged.max_ms == 150 and tagged.mean_ms == pytest.approx(370 / 3)
    assert tagged.p99_all_ms == pytest.approx(150 + (1000 - 150) * 0.96)
    assert tagged.dropped_iterations == 1  # the open model's hold scenario only, not the warm-up's
    # successes by the whole second they started in, from the first hold request; the partial last one left out
    assert tagged.ok_per_second == (2, 0)
    # a window counts the requests that started in it, and splits its halves at its middle
    window = store.load_result(k6, 0, (4.0, 6.5))
    # started: 4.05, 4.05 (failed), 5.08 and 6.0 (the cool-down's): halves split at 5.25
    assert (window.requests, window.ok_requests, window.ok_half_a, window.ok_half_b) == (4, 2, 1, 1)
    assert window.dropped_iterations == 1
    assert window.ok_per_second == (0, 1)


def test_per_second_counts_every_request_once_by_its_end(tmp_path):
    path = tmp_path / "row.k6.csv.gz"
    write_k6(path, ["v,500.000,2", "r,1100.000,10,200,hold,a,true", "r,1900.000,30,200,hold,a,true",
                    "r,3500.000,20,503,hold,b,false", "v,3600.000,5"])
    seconds = store.per_second(store.read_k6(path))
    assert [s["t_s"] for s in seconds] == [0, 1, 2, 3]
    assert [(s["ok"], s["failed"], s["vus"]) for s in seconds] == [(0, 0, 2), (2, 0, 2), (0, 0, 2), (0, 1, 5)]
    assert seconds[1]["p50_ms"] == 20 and math.isnan(seconds[2]["p99_ms"])


def test_samples_round_trip_on_k6s_clock(tmp_path):
    cpu = windows.Series([(100.25, {"app_ticks": 10.0, "rss_kb": 2048.0}), (100.5, {"app_ticks": 25.0})])
    meters = windows.Series([(100.4, {"jvm_threads": 31.0, "gc_pause_s": 0.1 + 0.2})])
    path = tmp_path / "row.samples.csv.gz"
    cpu, meters = store.since(cpu, 100.0), store.since(meters, 100.0)
    store.write_samples(path, cpu, meters, origin_unix_s=1_700_000_000.5)
    cpu_back, meters_back, origin = store.read_samples(path)
    assert origin == 1_700_000_000.5
    # to the bit: a re-cut computes on exactly the numbers the row did
    assert cpu_back.points == cpu.points and meters_back.points == meters.points
    assert cpu_back.points[0] == (0.25, {"app_ticks": 10.0, "rss_kb": 2048.0})


def test_a_rows_seconds_are_drawn_with_its_phases_and_hover_values(tmp_path):
    write_k6(tmp_path / "r1.k6.csv.gz", [f"r,{t * 1000 + 500}.000,{100 + t},200,hold,a,true" for t in range(12)]
             + ["v,1000.000,3"], start_unix_ms=1_700_000_000_000)
    cpu = windows.Series([(t / 4, {"app_ticks": t * 10.0, "load_ticks": t * 2.0}) for t in range(48)])
    meters = windows.Series([(t / 2, {"jvm_threads": 30.0 + t, "hikari_active": 2.0}) for t in range(24)])
    store.write_samples(tmp_path / "r1.samples.csv.gz", cpu, meters, origin_unix_s=1_700_000_000.0)
    seconds = timeline.seconds_of(tmp_path, "r1").per_second
    assert seconds[3]["ok"] == 1 and seconds[3]["jvm_threads"] == 37.0 and seconds[3]["pool_active"] == 2.0
    assert seconds[3]["app_cpu"] == pytest.approx(40 * 100 / windows.CLOCK_TICKS)
    phases = timeline.phases(typed({"ramp_s": 2, "warmup_s": 3, "hold_s": 6, "cooldown_s": 1}))
    svg = timeline.svg(seconds, phases, "row 1")
    assert svg.count("<title>hold: 5–11 s</title>") == 5  # the hold shaded in every drawn panel
    assert "<title>3–4 s: successful/s 1, failed/s 0" in svg and "JVM threads 37" in svg
    assert "memory MB" not in svg  # nothing measured there: no empty panel
    assert timeline.seconds_of(tmp_path, "no-such-row") is None


def test_a_scenarios_modes_are_overlaid_second_by_second_on_the_same_axes():
    platform = [{"t_s": t, "ok": 200.0, "p99_ms": 1500.0, "jvm_threads": 230.0} for t in range(10)]
    virtual = [{"t_s": t, "ok": 900.0 + t, "p99_ms": 1010.0} for t in range(10)]
    phases = timeline.phases(typed({"ramp_s": 2, "warmup_s": 2, "hold_s": 5, "cooldown_s": 1}))
    svg = timeline.overlay_svg({"platform": platform, "virtual": virtual}, phases, "400 users")
    assert svg.count("<polyline") == 5  # two modes in requests and p99, platform alone in threads
    assert "<title>3–4 s: platform 200, virtual 903</title>" in svg  # both modes' second on one hover
    assert "service CPU" not in svg  # measured for neither: no panel
    assert svg.count("<title>hold: 4–9 s</title>") == 3


def test_a_recut_needs_both_ends_of_its_window(tmp_path, capsys):
    (tmp_path / "matrix.csv").write_text("thread_mode\n")
    assert main(["report", str(tmp_path), "--hold-from", "30"]) == 2
    assert "--hold-from and --hold-to go together" in capsys.readouterr().err
    assert main(["report", str(tmp_path), "--hold-from", "60", "--hold-to", "30"]) == 2
    assert "need 0 <= from < to" in capsys.readouterr().err


def test_the_committed_quick_run_cut_again_at_its_hold_gives_its_csv_back(tmp_path):
    assert list((QUICK_RUN / "series").glob("*.k6.csv.gz"))  # the run kept its series, and they are committed
    run_dir = tmp_path / "quick-run"
    shutil.copytree(QUICK_RUN, run_dir)
    assert recut_differences(run_dir) == [{} for _ in table.read_rows(run_dir / table.CSV_NAME)]
    # another window is a run of its own beside it, and the run itself is left as it was
    before = (run_dir / "matrix.csv").read_text()
    assert main(["report", str(run_dir), "--hold-from", "60", "--hold-to", "75"]) == 0
    cut = table.read_rows(run_dir / "recut-60-75" / "matrix.csv")
    assert [row["hold_s"] for row in cut] == ["15"] * len(cut) and (run_dir / "matrix.csv").read_text() == before
    assert (run_dir / "recut-60-75" / "report.html").exists()


def test_figures_read_only_over_the_measured_hold_are_kept_at_it_and_left_empty_for_another_window(tmp_path):
    import csv

    run_dir = tmp_path / "quick-run"
    shutil.copytree(QUICK_RUN, run_dir)
    with open(run_dir / "matrix.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with open(run_dir / "matrix.csv", "w", newline="") as handle:  # as a run with the thread counters writes it
        writer = csv.DictWriter(handle, fieldnames=table.COLUMNS, restval="")
        writer.writeheader()
        writer.writerows({**row, "csw_voluntary_per_req": "9.5", "carriers_max": "3"} for row in rows)
    at_hold = recut.recut_rows(run_dir)
    assert {row["csw_voluntary_per_req"] for row in at_hold} == {"9.5"}
    elsewhere = recut.recut_rows(run_dir, (60, 75))
    assert {(row["csw_voluntary_per_req"], row["carriers_max"]) for row in elsewhere} == {("", "")}


def test_the_hold_begins_where_k6_tagged_its_first_request_not_where_the_plan_put_it(tmp_path):
    path = tmp_path / "row.k6.csv.gz"
    write_k6(path, ["r,5000.000,100,200,warmup,none,true", "r,5600.000,100,200,hold,a,true",
                    "r,5900.000,200,200,hold,a,true"])
    k6 = store.read_k6(path)
    assert store.hold_start_s(k6, 5.0) == pytest.approx(5.5)  # k6 began 0.5 s after its process
    assert store.hold_start_s(k6, 6.0) == 6.0  # a tag cannot start the hold early: the plan's moment
    assert store.hold_start_s(store.K6Series(), 5.0) == 5.0


def test_a_series_cut_short_by_a_hard_kill_keeps_what_was_written(tmp_path):
    path = tmp_path / "row.k6.csv.gz"
    write_k6(path, [f"r,{1000 + t}.000,10,200,hold,a,true" for t in range(2000)])
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) * 2 // 3])
    kept = store.read_k6(path).requests
    assert 0 < len(kept) < 2000  # the complete lines before the cut, in order, none half-read
    assert [r.end_s for r in kept] == pytest.approx([(1000 + t) / 1000 for t in range(len(kept))])


def test_runners_get_k6s_segments_that_add_up_to_the_whole():
    from vtlab.measure import load

    assert load.runner_arguments(0, 1) == []
    assert [load.segment(i, 3) for i in range(3)] == ["0:1/3", "1/3:2/3", "2/3:1"]
    assert load.segment_sequence(4) == "0,1/4,1/2,3/4,1"
    assert load.runner_arguments(1, 2) == ["--execution-segment", "1/2:1", "--execution-segment-sequence", "0,1/2,1"]


def test_runners_series_merge_onto_the_first_runners_clock_with_every_request_and_the_sum_of_their_users(tmp_path):
    first, second = tmp_path / "a.runner-1-of-2.csv.gz", tmp_path / "a.runner-2-of-2.csv.gz"
    write_k6(first, ["r,1500.000,100,200,hold,a,true", "v,1000.000,10", "v,2000.000,10",
                     "d,1800.000,hold,1"], start_unix_ms=1_000_000)
    # the second runner started 250 ms later: its times move by +250 ms, its users add to the first's
    write_k6(second, ["r,1500.000,300,200,hold,b,true", "r,1600.000,5,500,hold,b,false", "v,1100.000,7"],
             start_unix_ms=1_000_250)
    merged = tmp_path / "a.k6.csv.gz"
    store.merge([first, second], merged)
    assert store.k6_start_unix_s(merged) == 1_000.0
    k6 = store.read_k6(merged)
    assert sorted((r.end_s, r.duration_ms, r.ok) for r in k6.requests) == [
        (1.5, 100.0, True), (1.75, 300.0, True), (1.85, 5.0, False)]
    assert k6.dropped == [(1.8, "hold", 1)]
    # second 1: 10 + 7; second 2: the first runner's 10 and the second's last reading, 7
    assert [n for _, n in k6.vus] == [17, 17]
    result = store.load_result(k6, 0)
    assert (result.requests, result.ok_requests, result.ok_half_a, result.ok_half_b) == (3, 2, 1, 1)
    assert result.max_ms == 300.0


def test_a_per_second_series_gives_its_mean_and_the_95_half_width_of_it_by_batch_means():
    # twelve seconds: six batches of two, their means 10, 12, 10, 12, 10, 12: mean 11, s = √(6 × 1² / 5) = 1.0954,
    # t(5) = 2.571: ± 2.571 × 1.0954 / √6 = ± 1.1498
    mean, half = windows.per_second_interval([10, 10, 12, 12] * 3)
    assert mean == 11 and half == pytest.approx(1.1498, abs=1e-4)
    assert windows.per_second_interval([50] * 30) == (50, 0)  # ten batches of three, all alike: no noise
    # a 6 s hold's five whole seconds: five batches of one second; mean 10.4, s = 1.140, t(4) = 2.776 -> ±1.415
    assert windows.per_second_interval([9, 11, 10, 10, 12])[1] == pytest.approx(2.776 * 1.1402 / 5 ** 0.5, rel=1e-3)
    assert math.isnan(windows.per_second_interval([9, 11])[1])  # two batches only: too short
    assert all(math.isnan(v) for v in windows.per_second_interval([]))


def hold_of(k6_file, meters):
    """A row's hold as holdstats reads it: k6's tagged hold of 12 s, the samplers' series (no CPU sampled)."""
    measured = store.load_result(store.read_k6(k6_file), 0)
    return holdstats.Hold(measured, windows.Series(), meters, 0.0, 12.0, 12, (), proxy=False)


def test_a_row_whose_service_counts_nothing_gets_its_interval_from_k6s_successes_each_second(tmp_path):
    # a user's service without Prometheus: no meters at all. k6 saw 10, 10, 12, 12, … successes in the hold's
    # seconds 0–11 (each request 100 ms, started 10 ms apart, 5 ms past the second: clear of its edges) and one
    # more at 12.005 s, in the partial last second
    starts = [second + 0.005 + k / 100 for second, count in enumerate([10, 10, 12, 12] * 3) for k in range(count)]
    path = tmp_path / "row.k6.csv.gz"
    write_k6(path, [f"r,{(t + 0.1) * 1000:.3f},100,200,hold,a,true" for t in [*starts, 12.005]])
    figures = holdstats.columns(hold_of(path, windows.Series()))
    assert figures["throughput_rps"] == pytest.approx(133 / 12)  # k6's count over the hold: 132 + 1 in 12 s
    # the per-second series' interval, worked out above: ± 1.1498, the 12.0 s request outside its whole seconds
    assert figures["throughput_ci95_rps"] == pytest.approx(1.1498, abs=1e-4)
    assert math.isnan(figures["throughput_service_rps"])  # the service counted nothing: not claimed
    # a service that does count: its own rate stands beside as a cross-check, the interval is still k6's
    counted = windows.Series([(t / 2, {"requests_ok_total": 40.0 * t + (30 if t % 4 == 1 else 0)})
                              for t in range(25)])
    beside = holdstats.columns(hold_of(path, counted))
    assert beside["throughput_service_rps"] == pytest.approx(80.0)  # (40 × 24 − 0) / 12 s
    assert beside["throughput_ci95_rps"] == figures["throughput_ci95_rps"]


def test_a_holds_interval_is_cut_into_the_batches_its_run_recorded(tmp_path):
    # the twelve seconds above in four batches of three: means 32/3, 32/3, 34/3, 34/3 around 11, s = √(4 × (1/3)² / 3)
    # = 0.3849, t(3) = 3.182: ± 3.182 × 0.3849 / √4 = ± 0.6124 (six batches of two gave ± 1.1498)
    starts = [second + 0.005 + k / 100 for second, count in enumerate([10, 10, 12, 12] * 3) for k in range(count)]
    path = tmp_path / "row.k6.csv.gz"
    write_k6(path, [f"r,{(t + 0.1) * 1000:.3f},100,200,hold,a,true" for t in [*starts, 12.005]])  # 12 s whole
    four = dataclasses.replace(hold_of(path, windows.Series()), rig=dataclasses.replace(CURRENT, hold_batches=4))
    assert holdstats.columns(four)["throughput_ci95_rps"] == pytest.approx(0.6124, abs=1e-4)


def test_a_recut_takes_the_batch_count_from_the_runs_record(tmp_path):
    run_dir = tmp_path / "quick-run"
    shutil.copytree(QUICK_RUN, run_dir)
    assert all(math.isfinite(row["throughput_ci95_rps"]) for row in recut.recut_rows(run_dir))  # recorded none: 10
    metadata = json.loads((run_dir / "metadata.json").read_text())
    metadata["rig"]["hold_batches"] = 2  # too few batches for an interval (three) or a trend (four)
    (run_dir / "metadata.json").write_text(json.dumps(metadata))
    cut = recut.recut_rows(run_dir)
    assert all(math.isnan(row["throughput_ci95_rps"]) and math.isnan(row["throughput_trend_pct"]) for row in cut)


def test_the_longest_silence_is_the_longest_run_of_seconds_without_a_success():
    assert holdstats.longest_silence((5, 0, 0, 3, 0, 0, 0, 1)) == 3
    assert holdstats.longest_silence((4, 4, 4)) == 0 and holdstats.longest_silence((0, 0)) == 2
    assert math.isnan(holdstats.longest_silence(()))  # no series: not measured, not "no silence"


def test_a_counter_moving_in_steps_gives_its_rate_between_its_first_and_last_step_only():
    # a young collection at 2.2 s and at 6.2 s (read at 2.5 and 6.5), each adding what was allocated since the one
    # before: 400 MB between them, over 4 s: 100 MB/s. The 300 MB of the first step lie before the window's rate.
    steps = windows.Series([(t / 2, {"gc_alloc_bytes": 0.0 if t < 5 else 300e6 if t < 13 else 700e6})
                            for t in range(0, 20)])
    assert windows.rate_between_changes(steps, "gc_alloc_bytes", 0, 10) == pytest.approx(100e6)
    one = windows.Series([(t / 2, {"gc_alloc_bytes": 0.0 if t < 5 else 300e6}) for t in range(0, 20)])
    assert math.isnan(windows.rate_between_changes(one, "gc_alloc_bytes", 0, 10))  # one step: no rate, not zero


def test_the_exact_allocation_counter_is_preferred_to_the_one_that_moves_at_collections():
    from vtlab.series.loadresult import LoadResult

    measured = LoadResult(ok_requests=1000, ok_half_a=500, ok_half_b=500, requests=1000, error_rate=0.0, p50_ms=10.0,
                          p95_ms=12.0, p99_ms=15.0, p999_ms=20.0, max_ms=30.0, mean_ms=10.0, p99_all_ms=15.0,
                          failures_by_status={}, dropped_iterations=0, exit_code=0)
    exact = [(t, {"alloc_bytes": t * 10 * 1024 * 100.0, "gc_alloc_bytes": 0.0, "gc_pause_s": t * 0.001})
             for t in range(0, 11)]
    hold = holdstats.Hold(measured, windows.Series(), windows.Series(exact), 0, 10, 10, ("app",), False)
    costs = holdstats.columns(hold)
    # 100 requests a second, 1,000 KiB a second: 10 KiB a request; 1 ms of pause a second: 10 ms per 1,000
    assert costs["alloc_kb_per_req"] == pytest.approx(10) and costs["gc_pause_ms_per_1k_req"] == pytest.approx(10)
    without = [(t, {"gc_alloc_bytes": 0.0}) for t in range(0, 11)]  # no collection in the hold
    hold = holdstats.Hold(measured, windows.Series(), windows.Series(without), 0, 10, 10, ("app",), False)
    assert math.isnan(holdstats.columns(hold)["alloc_kb_per_req"])


def test_the_rigs_scrape_is_its_counters_growth_over_the_hold_a_second_and_a_scrape():
    from vtlab.series.loadresult import LoadResult

    measured = LoadResult(ok_requests=1000, ok_half_a=500, ok_half_b=500, requests=1000, error_rate=0.0, p50_ms=10.0,
                          p95_ms=12.0, p99_ms=15.0, p999_ms=20.0, max_ms=30.0, mean_ms=10.0, p99_all_ms=15.0,
                          failures_by_status={}, dropped_iterations=0, exit_code=0)
    # read at 2 Hz, each reading showing the scrapes before it: 2 a second, each 3 ms of CPU and 450 KiB
    counted = [(t / 2, {"scrapes": t, "scrape_cpu_s": t * 0.003, "scrape_bytes": t * 450 * 1024.0})
               for t in range(0, 21)]
    hold = holdstats.Hold(measured, windows.Series(), windows.Series(counted), 0, 10, 10, ("app",), False)
    cost = holdstats.columns(hold)
    assert cost["scrape_cpu_ms_per_s"] == pytest.approx(6) and cost["scrape_kib_per_s"] == pytest.approx(900)
    assert cost["scrape_cpu_ms_per_scrape"] == pytest.approx(3) and cost["scrape_kib_per_scrape"] == pytest.approx(450)
    uncounted = holdstats.Hold(measured, windows.Series(), windows.Series([(t, {"gc_pauses": 0.0}) for t in range(11)]),
                               0, 10, 10, ("app",), False)  # a user's service: no such meters
    assert all(math.isnan(holdstats.columns(uncounted)[column]) for column in (
        "scrape_cpu_ms_per_s", "scrape_kib_per_s", "scrape_cpu_ms_per_scrape", "scrape_kib_per_scrape"))
    first = table.COLUMNS.index("scrape_cpu_ms_per_s")  # appended after the columns before them: theirs kept places
    assert table.COLUMNS[first - 1:first + 4] == ["cpu_quota_cores", "scrape_cpu_ms_per_s", "scrape_kib_per_s",
                                                  "scrape_cpu_ms_per_scrape", "scrape_kib_per_scrape"]


def test_each_tiers_cpu_per_request_is_its_cpu_over_the_hold_divided_among_every_request_of_it(tmp_path):
    run_dir = tmp_path / "quick-run"
    shutil.copytree(QUICK_RUN, run_dir)
    for row in recut.recut_rows(run_dir):
        requests_per_s = float(row["http_reqs"]) / float(row["hold_s"])  # failed ones cost CPU too
        for tier in ("pg", "stub", "load"):
            cpu_ms_per_s = float(row[f"{tier}_cpu_pct"]) / 100 * 1000  # % of one core: ms of CPU each second
            assert float(row[f"{tier}_cpu_ms_per_req"]) == pytest.approx(cpu_ms_per_s / requests_per_s)


def test_a_percentile_s_interval_comes_from_its_batches_around_the_whole_hold_s_value():
    from vtlab.series import percentiles
    from vtlab.series.store import Request

    # four 10-second batches whose every request took 100, 200, 300 and 400 ms: batch p99s 100…400, their
    # standard deviation 129.1 ms, × t(3) 3.182 / √4 = 205.4 ms either side of the hold's own p99 (400 ms)
    requests = [Request(end_s=batch * 10 + second + ms / 1000, duration_ms=ms, status="200", phase="hold",
                        half="a", ok=True)
                for batch, ms in enumerate((100.0, 200.0, 300.0, 400.0)) for second in range(10)]
    value, low, high = percentiles.interval(requests, 0.99, batches=4)
    assert value == 400.0
    assert (value - low, high - value) == (pytest.approx(205.4, abs=0.1), pytest.approx(205.4, abs=0.1))
    failed_only = [Request(1.0, 5.0, "500", "hold", "a", False)]
    assert all(math.isnan(x) for x in percentiles.interval(failed_only, 0.99, batches=4))


def test_under_a_cpu_quota_the_host_is_busy_against_what_the_quota_allows():
    # 2 CPUs at 100 ticks a second each: 200 ticks a second in all, 140 of them busy (70% of the machine)
    cpu = windows.Series([(float(t), {"host_busy": 140.0 * t, "host_total": 200.0 * t}) for t in range(13)])
    measured = store.LoadResult(1200, 600, 600, 1200, 0.0, *([100.0] * 7), {}, 0, 0)
    free = holdstats.Hold(measured, cpu, windows.Series(), 0.0, 12.0, 12, (), False, cpus=2)
    held = dataclasses.replace(free, quota_cores=1.4)  # 140 ms per 100 ms on 2 cores: all of it busy
    assert holdstats._tiers(free)["host_cpu_pct"] == pytest.approx(70.0)
    assert holdstats._tiers(held)["host_cpu_pct"] == pytest.approx(100.0)
    assert holdstats._tiers(held)["cpu_quota_cores"] == 1.4 and holdstats._tiers(free)["cpu_quota_cores"] == ""


def test_cpu_pressure_is_the_share_of_the_hold_in_which_a_runnable_thread_waited_for_a_cpu():
    # 4 Hz readings over 12 s; the kernel's PSI total grows 410,000 µs a second: 41% of each second waited
    cpu = windows.Series([(t / 4, {"host_busy": 83.0 * t, "host_total": 100.0 * t, "cpu_pressure_us": 102_500.0 * t})
                          for t in range(49)])
    measured = store.LoadResult(1200, 600, 600, 1200, 0.0, *([100.0] * 7), {}, 0, 0)
    hold = holdstats.Hold(measured, cpu, windows.Series(), 2.0, 12.0, 10, (), False, cpus=2)
    assert holdstats._tiers(hold)["cpu_pressure_pct"] == pytest.approx(41.0)
    without = [(t, {name: value for name, value in reading.items() if name != "cpu_pressure_us"})
               for t, reading in cpu.points]
    unread = dataclasses.replace(hold, cpu=windows.Series(without))
    assert table.format_value(holdstats._tiers(unread)["cpu_pressure_pct"]) == ""  # not sampled: an empty cell
    assert holdstats._tiers(unread)["host_cpu_pct"] == pytest.approx(83.0)
    # appended after the columns older runs have: theirs keep their places
    assert table.COLUMNS.index("cpu_pressure_pct") > table.COLUMNS.index("cpu_quota_cores")


def test_the_compilers_cpu_a_second_is_its_growth_over_the_hold():
    # 4 Hz readings over 40 s; the compiler threads had used 12.5 s of CPU at the hold's start (5 s) and 14.0 s at its
    # end (35 s): 1.5 s over 30 s, 50 ms a second
    def compiler_s(t):
        return 12.5 + (t - 5) * 1.5 / 30

    cpu = windows.Series([(t / 4, {"app_ticks": 10.0 * t, holdstats.JIT_CPU: compiler_s(t / 4)}) for t in range(161)])
    measured = store.LoadResult(1200, 600, 600, 1200, 0.0, *([100.0] * 7), {}, 0, 0)
    hold = holdstats.Hold(measured, cpu, windows.Series(), 5.0, 35.0, 30, ("app",), False, cpus=2)
    assert holdstats._tiers(hold)["jit_cpu_ms_per_s"] == pytest.approx(50.0)
    # a service whose process is not vtlab's (or /proc unread): no reading, an empty cell
    unread = dataclasses.replace(hold, cpu=windows.Series([(t, {"app_ticks": v["app_ticks"]}) for t, v in cpu.points]))
    assert table.format_value(holdstats._tiers(unread)["jit_cpu_ms_per_s"]) == ""


def _k6_hold(cpu_pct_at, ok_at, app_share=None):
    """A 30 s hold whose k6 used cpu_pct_at(second) % of a core in each second (its ticks read 4 Hz) while the hold
    succeeded ok_at(second) requests in it; the service `app_share` times k6's CPU where given."""
    from vtlab.series.loadresult import LoadResult

    def reading(ticks):
        return {"load_ticks": ticks, **({"app_ticks": ticks * app_share} if app_share else {})}

    ticks, points = 0.0, []
    for second in range(30):
        for quarter in range(4):
            points.append((second + quarter / 4, reading(ticks + cpu_pct_at(second) / 100 * windows.CLOCK_TICKS
                                                         * quarter / 4)))
        ticks += cpu_pct_at(second) / 100 * windows.CLOCK_TICKS
    points.append((30.0, reading(ticks)))
    ok = tuple(round(ok_at(second)) for second in range(30))
    measured = LoadResult(ok_requests=sum(ok), ok_half_a=0, ok_half_b=0, requests=sum(ok), error_rate=0.0,
                          p50_ms=10.0, p95_ms=12.0, p99_ms=15.0, p999_ms=20.0, max_ms=30.0, mean_ms=10.0,
                          p99_all_ms=15.0, failures_by_status={}, dropped_iterations=0, exit_code=0, ok_per_second=ok)
    return holdstats.Hold(measured, windows.Series(points), windows.Series(), 0, 30, 30, ("load",), False)


# ten batches of 3 s: the host's speed (or the service's own) at 1.0 and 0.8 in turn; beside it a noise in k6's
# work of ±5% whose pattern shares nothing with the speed's (each speed sees 1.05, 0.95, 1.05, 0.95 and 1.0 once)
SPEED = (1.0, 0.8) * 5
NOISE = (1.05, 1.05, 0.95, 0.95, 1.05, 1.05, 0.95, 0.95, 1.0, 1.0)


def test_a_hold_whose_throughput_moved_as_k6s_own_cost_a_request_did_is_the_hosts_speed():
    # the host slowed and sped up under every tier: k6 kept 25% of a core and served 1,000 or 800 a second, each
    # request costing it 0.25 or 0.3125 ms: log throughput falls exactly as log cost rises, slope -1, all of it
    host = holdstats.columns(_k6_hold(lambda second: 25.0, lambda second: 1000 * SPEED[second // 3]))
    assert host["host_speed_slope"] == pytest.approx(-1.0, abs=0.01)
    assert host["host_speed_r2"] == pytest.approx(1.0, abs=0.01)
    # the service slowed by itself: k6 idled with it (its CPU following the requests), its cost a request moving only
    # by the unrelated noise — covariance 0 by construction, slope 0, none of the variance
    own = holdstats.columns(_k6_hold(lambda second: 25.0 * SPEED[second // 3] * NOISE[second // 3],
                                     lambda second: 1000 * SPEED[second // 3]))
    assert own["host_speed_slope"] == pytest.approx(0.0, abs=0.01)
    assert own["host_speed_r2"] == pytest.approx(0.0, abs=0.01)
    # k6's CPU not sampled: not measured
    unsampled = holdstats.columns(_k6_hold(lambda second: 0, lambda second: 1000))
    assert math.isnan(unsampled["host_speed_slope"]) and math.isnan(unsampled["host_speed_r2"])
    assert table.COLUMNS.index("host_speed_slope") > table.COLUMNS.index("jit_cpu_ms_per_s")  # appended


def test_the_services_cpu_and_every_tiers_are_told_in_k6s_units_which_the_hosts_speed_does_not_move():
    # the host at 1.0 and 0.8 speed in turn, k6 at 25% of a core throughout, the service at 2.5 times k6's CPU: in
    # k6's units the service costs 2.5 in every batch, and service + k6 together 3.5, with no spread
    moved = holdstats.columns(_k6_hold(lambda second: 25.0, lambda second: 1000 * SPEED[second // 3], app_share=2.5))
    assert moved["app_cpu_per_k6_cpu"] == pytest.approx(2.5, abs=1e-6)
    assert moved["tiers_cpu_per_k6_cpu"] == pytest.approx(3.5, abs=1e-6)
    assert moved["app_cpu_per_k6_cpu_ci95"] == pytest.approx(0, abs=1e-6)
    # the service's CPU not sampled: not measured
    assert math.isnan(holdstats.columns(_k6_hold(lambda second: 25.0, lambda second: 1000))["app_cpu_per_k6_cpu"])


def test_the_host_s_speed_under_a_hold_is_its_readings_median_inside_the_hold_only():
    from vtlab.series.loadresult import LoadResult

    measured = LoadResult(ok_requests=1000, ok_half_a=500, ok_half_b=500, requests=1000, error_rate=0.0, p50_ms=10.0,
                          p95_ms=12.0, p99_ms=15.0, p999_ms=20.0, max_ms=30.0, mean_ms=10.0, p99_all_ms=15.0,
                          failures_by_status={}, dropped_iterations=0, exit_code=0)
    # inside 0–10 s: 400, 410, 9,000 (an interrupt in one reading), 405; outside it a slower 800 that is not the hold's
    cpu = [(-1.0, {HOST_WORK: 800.0}), (1.0, {HOST_WORK: 400.0}), (4.0, {HOST_WORK: 410.0}),
           (6.0, {HOST_WORK: 9000.0}), (9.0, {HOST_WORK: 405.0}), (11.0, {HOST_WORK: 800.0})]
    hold = holdstats.Hold(measured, windows.Series(cpu), windows.Series(), 0, 10, 10, ("app",), False)
    assert holdstats.columns(hold)[HOST_WORK] == pytest.approx(407.5)
    unread = holdstats.Hold(measured, windows.Series(), windows.Series(), 0, 10, 10, ("app",), False)
    assert math.isnan(holdstats.columns(unread)[HOST_WORK])  # not measured, never 0


def test_how_far_the_host_s_speed_moved_under_a_hold_is_its_readings_tenth_to_ninetieth_percentile():
    from vtlab.series.holdstats import HOST_WORK_SPREAD
    from vtlab.series.loadresult import LoadResult

    measured = LoadResult(ok_requests=1000, ok_half_a=500, ok_half_b=500, requests=1000, error_rate=0.0, p50_ms=10.0,
                          p95_ms=12.0, p99_ms=15.0, p999_ms=20.0, max_ms=30.0, mean_ms=10.0, p99_all_ms=15.0,
                          failures_by_status={}, dropped_iterations=0, exit_code=0)

    def spread(readings):
        # the hold is 0–20 s: a reading before it and one after it, far slower, are not the hold's
        cpu = windows.Series([(-1.0, {HOST_WORK: 9000.0}),
                              *[(0.5 + second, {HOST_WORK: value}) for second, value in enumerate(readings)],
                              (21.0, {HOST_WORK: 9000.0})])
        return holdstats.columns(holdstats.Hold(measured, cpu, windows.Series(), 0, 20, 20, ("app",), False))[
            HOST_WORK_SPREAD]

    # a host moving between two speeds, as on 2026-12-07 (~240 and ~370 µs), half the hold each: the median lies
    # between them, the deciles on each. statistics.quantiles' 10 deciles of 10×240 then 10×370, exclusive method:
    # the first at 240, the last at 370; (370 − 240) ÷ median 305 = 42.6%
    assert spread([240.0] * 10 + [370.0] * 10) == pytest.approx(130 / 305 * 100)
    # a steady host: its readings within 1%
    assert spread([400.0, 402.0, 404.0, 401.0, 403.0] * 4) < 1.0
    assert math.isnan(spread([400.0] * 9))  # fewer than ten readings: too few for a decile
