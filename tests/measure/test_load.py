import dataclasses
import http.server
import tempfile
import threading
import time
from pathlib import Path

import pytest

from vtlab.rig import build, ownership
from vtlab.core import shapes
from vtlab.measure import load
from vtlab.series import store

FIXTURE = Path(__file__).parents[1] / "fixtures" / "k6-summary.json"


def test_summary_reads_hold_phase_submetrics():
    result = load.read_summary(FIXTURE, exit_code=0)
    assert (result.ok_half_a, result.ok_half_b) == (114, 113)
    assert result.ok_requests == 227
    assert result.requests == 227
    assert result.error_rate == 0
    assert result.p50_ms <= result.p95_ms <= result.p99_ms <= result.p999_ms <= result.max_ms
    assert result.throughput(hold_s=2) == 113.5


def test_open_model_preallocates_for_the_rate():
    assert shapes.vus_for("open", 0, 100) == 200
    assert shapes.vus_for("closed", 400, 0) == 400


def test_phases_add_up():
    spec = load.LoadSpec("http://x", "closed", 10, 0, 5, 20, 30, 100)
    assert spec.hold_start_s == 25
    assert spec.duration_s == 5 + 20 + 30 + 3
    # a slow workload's cool-down lets the hold's last requests finish inside the run
    assert load.LoadSpec("http://x", "closed", 10, 0, 5, 20, 30, 100, cooldown_s=35).duration_s == 90


def test_a_hold_the_harness_decides_ends_before_k6s_schedule_does():
    """k6's schedule outlasts the latest moment the harness stops it: a hold decided at the bound (after k6's start
    slack, one tick of the drive loop and the decision's lead), the hold, the plan's cool-down and the grace the
    hold's last iterations get, then the grace of the requests in flight when the row ends — so the users keep
    loading until the hold's last request ended."""
    from vtlab.core import constants
    from vtlab.measure import settle

    spec = load.LoadSpec("http://x", "closed", 10, 0, 5, 45, 15, 100, cooldown_s=3, settles=True)
    latest_stop = (5 + constants.CURRENT.k6_start_slack_s + 45 + 1 + settle.LEAD_S + 15 + 3 + 2 * settle.GRACE_S)
    assert spec.duration_s >= latest_stop
    (_, hold), env = spec.stages(), load.script_env(spec, "stdout")
    assert hold == [{"duration": f"{15 + spec.scheduled_cooldown_s}s", "target": 10}]
    assert env["COOLDOWN_S"] == str(spec.scheduled_cooldown_s)
    fixed = load.LoadSpec("http://x", "closed", 10, 0, 5, 45, 15, 100, cooldown_s=3)
    assert fixed.duration_s == 5 + 45 + 15 + 3  # a fixed warm-up's k6 ends the row itself, as planned


def test_a_real_k6_run_counts_the_holds_failures_by_status_and_their_latency():
    """orders.js against a server that fails a known share of ids slowly: the summary gives the failures
    by status, and p99 over every response sees the slow failures the successful-only p99 leaves out."""
    if build.find_k6() is None:
        pytest.skip("k6 not built yet (./vtlab setup builds it; ./vtlab test builds it before pytest)")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the stdlib's name)
            order = int(self.path.rsplit("/", 1)[1])
            status = {0: 503, 1: 404}.get(order % 4, 200)
            if status == 503:
                # the failures are the slow ones: 200 ms, as a success on a machine full of the other tests took up
                # to 55 ms (its p99 in a CI's units, 2026-12-07, when the failures took 50)
                time.sleep(0.2)
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        spec = load.LoadSpec(f"http://127.0.0.1:{server.server_port}", "closed", 4, 0, 1, 1, 3, 1000, cooldown_s=1)
        with tempfile.TemporaryDirectory() as folder:
            summary = Path(folder) / "summary.json"
            kept = Path(folder) / "series.k6.csv.gz"
            proc = load.start(build.K6_BIN, spec, summary, Path(folder) / "k6.log", None, kept)
            proc.wait(timeout=60)
            ownership.release(proc.pid)
            result = load.read_summary(summary, proc.returncode)
            k6 = store.read_k6(kept)
            from_series = store.load_result(k6, proc.returncode)
    finally:
        server.shutdown()
    failed = result.failures_by_status
    assert set(failed) == {"503", "404"}, failed
    assert result.ok_requests + sum(failed.values()) == result.requests
    assert 0.15 < failed["503"] / result.requests < 0.35 and 0.15 < failed["404"] / result.requests < 0.35
    assert result.p99_all_ms >= 200 > result.p99_ms  # only the failures were slow
    assert 0 < result.mean_ms <= result.p99_ms
    assert result.dropped_iterations == 0
    # the kept series gives k6's summary back: the same requests, the same values, the same percentile rule
    assert from_series == dataclasses.replace(result, p50_ms=pytest.approx(result.p50_ms, rel=1e-12),
                                              p99_ms=pytest.approx(result.p99_ms, rel=1e-12),
                                              p95_ms=pytest.approx(result.p95_ms, rel=1e-12),
                                              p999_ms=pytest.approx(result.p999_ms, rel=1e-12),
                                              mean_ms=pytest.approx(result.mean_ms, rel=1e-12),
                                              p99_all_ms=pytest.approx(result.p99_all_ms, rel=1e-12),
                                              ok_per_second=from_series.ok_per_second)  # the summary has none
    assert sum(from_series.ok_per_second) <= from_series.ok_requests and len(from_series.ok_per_second) in (2, 3)
    assert {r.phase for r in k6.requests} == {"warmup", "hold", "cooldown"} and k6.vus
    assert [line["ok"] + line["failed"] for line in store.per_second(k6)] and sum(
        line["ok"] + line["failed"] for line in store.per_second(k6)) == len(k6.requests)


def test_k6s_go_runtime_gets_half_the_cpus_and_a_lazier_collector_within_a_quarter_of_the_memory():
    assert load.go_runtime_env({}, 24.0, 2) == {"GOMAXPROCS": "1", "GOGC": "400", "GOMEMLIMIT": "6144MiB"}
    assert load.go_runtime_env({}, 64.0, 16)["GOMAXPROCS"] == "8"
    assert load.go_runtime_env({}, 8.0, 1)["GOMAXPROCS"] == "1"  # never none
    # no memory figure, no limit to grow within: Go's own collector settings
    assert load.go_runtime_env({}, None, 4) == {"GOMAXPROCS": "2"}


def test_a_users_go_settings_win():
    assert load.go_runtime_env({"GOMAXPROCS": "3"}, 24.0, 2) == {"GOGC": "400", "GOMEMLIMIT": "6144MiB"}
    # GOGC and GOMEMLIMIT are one policy: the user's either one replaces both of ours
    assert load.go_runtime_env({"GOGC": "100"}, 24.0, 2) == {"GOMAXPROCS": "1"}
    assert load.go_runtime_env({"GOMEMLIMIT": "2GiB"}, 24.0, 2) == {"GOMAXPROCS": "1"}


def test_k6_runs_on_half_the_cpus_the_core_map_gives_it(monkeypatch):
    monkeypatch.delenv("GOMAXPROCS", raising=False)
    env = load.env_for(load.LoadSpec("http://x", "closed", 10, 0, 5, 20, 30, 100), Path("s.json"), {0, 1, 2, 3})
    assert env["GOMAXPROCS"] == "2"


def test_every_runner_writes_its_live_counts_whether_or_not_the_warm_up_settles(monkeypatch, tmp_path):
    """The live line reads k6's own counts on every row: a fixed warm-up's runners write them too, and only a
    warm-up that settles is told where the hold's start will be written."""
    started = []
    monkeypatch.setattr(load.procs, "spawn", lambda argv, *, env, log, cpus: started.append(env) or object())
    spec = load.LoadSpec("http://x", "closed", 10, 0, 5, 20, 30, 100)
    series = tmp_path / "row.k6.csv.gz"
    runners = load.start_runners(Path("k6"), spec, 2, tmp_path / "row.json", tmp_path / "k6-row.log", None, series)
    assert [env["VTLAB_LIVE_FILE"] for env in started] == [str(tmp_path / "row.runner-1-of-2.csv.gz.live"),
                                                           str(tmp_path / "row.runner-2-of-2.csv.gz.live")]
    assert [str(runner.live) for runner in runners] == [env["VTLAB_LIVE_FILE"] for env in started]
    assert not any("VTLAB_HOLD_FILE" in env for env in started)
    started.clear()
    load.start_runners(Path("k6"), dataclasses.replace(spec, settles=True), 1, tmp_path / "row.json",
                       tmp_path / "k6-row.log", None, series, hold_file=tmp_path / "row.hold")
    assert (started[0]["VTLAB_LIVE_FILE"], started[0]["VTLAB_HOLD_FILE"]) == (str(tmp_path / "row.k6.csv.gz.live"),
                                                                             str(tmp_path / "row.hold"))
