"""The live smoke: every measuring path once on the real tiers, in a few minutes, at points sized from this machine's
calibration (`vtlab calibrate`: the CPU one request costs each tier here) — never at users fixed on another machine.

What it drives: vtlab's own service in both modes behind a thread wall (its virtual row's service killed mid-row, then
--resume), the two modes paired on two JVMs pre-warmed at once, a Spring Boot 3 `--service` jar on JDK 21 with a request
mix of reads and counted writes, a `--url` service vtlab did not start, JDK 21 against 25 on the pinning path, and the
report drawn in Chromium. The verdict classes themselves are proven on recorded runs (tests/replay/); every live proof
runs with `./vtlab test --live`."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import time
import zipfile
from dataclasses import dataclass

import proofs
import pytest
from liverig import (BOOT3_APP, REPO, answering, assert_nothing_left, assert_opens_in_chromium, boot3_jar, cmdline,
                     isolated_rig, rows_of, wait_for_row, wait_for_turns)

from vtlab.core import cores
from vtlab.explain import validity
from vtlab.plan import calibration

pytestmark = pytest.mark.smoke

DELAY_MS = 200  # the downstream's wait: each point's latency class comes from it, not from the machine's speed
# The share of the machine the largest point may take, all tiers together: far inside the cores on any machine of
# the kind (a host ~80% busy queued the latency past the rig's margins), and room for a thread wall to show.
SHARE = 0.35
MIN_USERS, MAX_USERS = 8, 160
PHASES = ["--ramp", "2", "--warmup", "6", "--hold", "6", "--reps", "1"]
# a service with no JIT to warm (the Python one the --url run measures): its warm-up waits for the users' first requests
NO_JIT_PHASES = ["--ramp", "2", "--warmup", "2", "--hold", "6", "--reps", "1"]
# What may set apart a row of a CPU-bound service sharing the machine's cores with k6 in a 6 s hold (docs/verdict.md)
CPU_BOUND_FLAGS = {*proofs.HOLD_NOISE_FLAGS, "noisy-neighbour", "generator-interference", "jit-not-settled"}


@dataclass(frozen=True)
class Points:
    """The smoke's loads on this machine: `users` at the 200 ms downstream take SHARE of its cores in virtual
    threads; `threads` platform threads are a wall at a quarter of that."""
    users: int
    threads: int
    calibration: calibration.Calibration

    @classmethod
    def of(cls, measured: calibration.Calibration) -> Points:
        users = calibration.users_at_share(measured, SHARE, DELAY_MS, MIN_USERS, MAX_USERS)
        return cls(users=users, threads=max(2, users // 4), calibration=measured)


def vtlab(env: dict[str, str], *argv: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([str(REPO / "vtlab"), *argv], env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def rig_env():
    yield from isolated_rig()


@pytest.fixture(scope="module")
def points(rig_env) -> Points:
    """This machine's upper bound (a whole calibration's where one is cached, else each mode's first calibration step
    measured on this module's tiers: a new machine's CI pays two steps, not six), and the points from it."""
    done = vtlab(rig_env, "calibrate", "--bound")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    measured = calibration.load_bound(len(cores.available()))
    assert measured is not None, done.stderr[-2000:]
    sized = Points.of(measured)
    print(f"smoke: {sized.users} users, {sized.threads} platform threads, from {measured.summary()}")
    return sized


def test_own_service_both_modes_as_staircases_a_killed_step_resumed_and_the_report_drawn(rig_env, points, tmp_path):
    run_dir = tmp_path / "own"
    lower = max(MIN_USERS // 2, points.users // 2)
    # not pre-warmed: the paired test pre-warms its two JVMs, the pre-warm's live proof; here its 20 s a JVM were a
    # quarter of the test (without it, every row valid and unflagged twice: 150 and 153 s against 205-211 s in CI)
    argv = [str(REPO / "vtlab"), "run", "--modes", "platform,virtual", "--conc", f"{lower},{points.users}",
            "--tomcat-threads", str(points.threads), "--stub-delay", str(DELAY_MS), "--conn-mode", "released",
            "--prewarm", "off", *PHASES, "--out", str(run_dir)]
    proc = subprocess.Popen(argv, env=rig_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        tiers = wait_for_row(proc, run_dir, 3, time.monotonic() + 600)  # the virtual JVM's second step is loading
        service = next(pid for pid in tiers if "app.jar" in cmdline(pid))
        time.sleep(2)
        os.kill(service, signal.SIGKILL)
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, out[-3000:] + err[-3000:]
    # each mode's loads are the rising steps of one JVM: the second step found it warm
    assert [(r["thread_mode"], int(r["concurrency"]), r["jvm_step"], r["failed_tier"]) for r in rows_of(run_dir)] == [
        ("platform", lower, "1", ""), ("platform", points.users, "2", ""), ("virtual", lower, "1", ""),
        ("virtual", points.users, "", "service")]
    assert "1 row(s) failed" in err
    assert_nothing_left(rig_env, run_dir)

    resumed = subprocess.run([*argv, "--resume"], env=rig_env, capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    measured = [r for r in proofs.judged(run_dir) if r["failed_tier"] == "" and int(r["concurrency"]) == points.users]
    assert [(r["thread_mode"], r["jvm_step"]) for r in measured] == [("platform", "2"), ("virtual", "1")]  # fresh
    platform, virtual = measured
    wall_rps, users_rps = points.threads * 1000 / DELAY_MS, points.users * 1000 / DELAY_MS
    for row in measured:
        assert float(row["error_rate"]) == 0 and int(row["http_reqs"]) > 0, row
        assert DELAY_MS <= float(row["p50_ms"]) <= float(row["p99_ms"]) <= float(row["max_ms"]), row
        assert float(row["app_cpu_pct"]) > 0 and float(row["load_cpu_pct"]) > 0 and float(row["rss_mb_max"]) > 50
        assert 0.8 < float(row["pool_borrows_per_s"]) / float(row["throughput_rps"]) < 1.2, row
        assert proofs.held_flags(row) <= proofs.HOLD_NOISE_FLAGS, (row["thread_mode"], row["flags"])
    # the platform threads are the wall: at most their rate, and named; virtual threads carry every user
    assert float(platform["throughput_rps"]) <= 1.05 * wall_rps, (platform["throughput_rps"], wall_rps)
    assert platform["bottleneck"] == "thread-pool", platform
    assert 2 * float(platform["throughput_rps"]) < float(virtual["throughput_rps"]) <= 1.05 * users_rps, virtual
    proofs.series_kept_and_drawn(run_dir)
    assert_nothing_left(rig_env, run_dir)
    assert_opens_in_chromium(run_dir, measured)  # it skips the test where Chromium is missing


def test_the_modes_measured_as_one_on_two_warm_jvms_answer_with_the_paired_ratio(rig_env, points, tmp_path):
    run_dir = tmp_path / "paired"
    argv = [str(REPO / "vtlab"), "run", "--paired", "--blocks", "2", "--conc", str(points.users), "--tomcat-threads",
            str(points.threads), "--stub-delay", str(DELAY_MS), "--conn-mode", "released", *PHASES[:-2],
            "--out", str(run_dir)]
    proc = subprocess.Popen(argv, env=rig_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        tiers = wait_for_turns(proc, time.monotonic() + 600)  # one k6 per arm, taking turns
        assert len([pid for pid in tiers if "app.jar" in cmdline(pid)]) == 2  # both arms' JVMs up together
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out[-3000:] + err[-3000:]
    rows = rows_of(run_dir)
    # each pair's two blocks follow each other, each arm's blocks the steps of its one JVM
    assert sorted((r["rep"], r["thread_mode"]) for r in rows[:2]) == [("1", "platform"), ("1", "virtual")]
    assert sorted((r["rep"], r["thread_mode"]) for r in rows[2:]) == [("2", "platform"), ("2", "virtual")]
    assert sorted((r["thread_mode"], r["jvm_step"]) for r in rows) == [
        ("platform", "1"), ("platform", "2"), ("virtual", "1"), ("virtual", "2")]
    assert {r["taken_in_turns"] for r in rows} == {"yes"}  # each block its arm's turn, not a k6 run of its own
    # the idle arm's JVM sampled as the rig's own, but beside the last block: the other's stopped after its last
    for row in rows[:-1]:
        stem = f"c{points.users}-released-normal-pool50-t{points.threads}-d{DELAY_MS}-rep{row['rep']}"
        samples = run_dir / "series" / f"{row['thread_mode']}-order-summary-{stem}.samples.csv.gz"
        assert ",idle_ticks," in gzip.open(samples, "rt").read(), samples.name
    (point,) = json.loads((run_dir / "report.json").read_text())["paired"]
    counted = [pair for pair in point["pairs"] if pair["left_out"] is None]
    assert counted, point
    # virtual threads carry the users, platform threads their quarter of them: virtual ÷ platform near 4
    assert 2 < point["ratio"] <= 1.1 * points.users / points.threads, point
    assert "paired, " in (run_dir / "report.md").read_text()
    assert_nothing_left(rig_env, run_dir)


def test_a_users_boot3_jar_with_a_mix_on_jdk21_and_a_service_vtlab_did_not_start_are_measured(rig_env, points,
                                                                                               tmp_path):
    jar = boot3_jar()  # Spring Boot 3.5.7, Java 17 bytecode: a user's service as most are today
    users = max(MIN_USERS, points.users // 4)  # no downstream wait: its own CPU sets its pace
    # its database a millisecond away each way, through Toxiproxy (--db-latency): a query's 2 ms leave 10 connections
    # 5,000 a second, beyond what its CPU serves on the machine's cores
    done = vtlab(rig_env, "run", "--service", str(jar), "--db", "--db-latency", "1", "--mix",
                 str(BOOT3_APP / "mix.yaml"), "--jdk", "21", "--modes", "virtual", "--conc", f"{users},{2 * users}",
                 *PHASES, "--out", str(tmp_path / "jar"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # the two loads are the steps of one JVM of the user's jar, each with its own JFR window
    rows, verdicts = rows_of(tmp_path / "jar"), proofs.verdicts_of(tmp_path / "jar")
    assert [(int(r["concurrency"]), r["jvm_step"]) for r in rows] == [(users, "1"), (2 * users, "2")], rows
    for row, verdict in zip(rows, verdicts, strict=True):
        assert row["spring_boot_version"] == "3.5.7" and row["jdk_version"].startswith("21"), row
        assert float(row["error_rate"]) == 0 and float(row["app_cpu_pct"]) > 0, row
        assert float(row["throughput_rps"]) > 0 and int(row["pinned_events"]) >= 0, row  # pinning read per row
        # every query through the proxy: its CPU sampled as its own tier, the latency a dimension of the row
        assert row["db_latency_ms"] == "1" and float(row["proxy_cpu_pct"]) > 0, row
        # every thing k6 saw made is in the JVM's database, and nothing more: the mix's count query, before and after
        written = int(row["writes_acknowledged"])
        assert row["writes_ok"].lower() == "true" and int(row["rows_inserted"]) == written > 0, row
        # a service with no downstream wait is CPU-bound at any load, k6 beside it on the machine's cores: the
        # machine's and the generator's flags may set a row apart, never one of the service's or the rig's reading
        assert set(validity.invalidating(proofs.held_flags(verdict))) <= CPU_BOUND_FLAGS, verdict
    assert (tmp_path / "jar" / "jfr").is_dir() and len(list((tmp_path / "jar" / "jfr").glob("*.jfr"))) >= 2
    # each entry told apart, at each load: the reads 80 of 100 by weight
    told = json.loads((tmp_path / "jar" / "report.json").read_text())["entries"]
    assert {(line["load"], line["entry"]) for line in told} == {
        (f"{load:,} users", entry) for load in (users, 2 * users) for entry in ("getThing", "makeThing")}, told
    for line in told:
        assert (line["share"] > 0.5) == (line["entry"] == "getThing") and line["failures"] == {}, line
    assert "Requests by entry of the mix" in (tmp_path / "jar" / "report.md").read_text()
    # its JDBC driver and pool, read from BOOT-INF/lib, told against the JDK 21 rows' pins in their frames
    with zipfile.ZipFile(jar) as archive:
        shipped = {name.rsplit("/", 1)[1] for name in archive.namelist() if name.startswith("BOOT-INF/lib/")}
    libraries = {told["artifact"]: told for told in json.loads((tmp_path / "jar" / "report.json").read_text())
                 ["libraries"]}
    assert {"postgresql", "HikariCP"} <= set(libraries), libraries
    for artifact, told in libraries.items():
        assert f"{artifact}-{told['version']}.jar" in shipped and told["looked_on"] == [21], told
    # the live line, k6's own counts whatever the service, read at each step's hold's end as its row's rate (a
    # CPU-bound service's rate swings from second to second: 7% apart seen in a 6 s hold)
    for row, shown in zip(rows, proofs.live_at_hold_end(done.stdout), strict=True):
        assert abs(shown - float(row["throughput_rps"])) <= 0.15 * float(row["throughput_rps"]), (shown, row)
    assert_nothing_left(rig_env, tmp_path / "jar")

    def after_the_wait() -> tuple[int, bytes]:  # a service of its own, answering after the downstream's wait
        time.sleep(DELAY_MS / 1000)
        return 200, b'{"id":1}'

    with answering(after_the_wait) as base_url:
        url = vtlab(rig_env, "run", "--url", base_url, "--endpoint", "GET /things/{id}", "--ids", "1-100", "--modes",
                    "virtual", "--conc", str(MIN_USERS), *NO_JIT_PHASES, "--out", str(tmp_path / "url"))
    assert url.returncode == 0, url.stdout[-3000:] + url.stderr[-3000:]
    [row], [verdict] = rows_of(tmp_path / "url"), proofs.verdicts_of(tmp_path / "url")
    assert row["app_cpu_pct"] == "" and float(row["error_rate"]) == 0, row  # its CPU is not vtlab's to see
    assert 0.5 * MIN_USERS * 1000 / DELAY_MS < float(row["throughput_rps"]) <= 1.05 * MIN_USERS * 1000 / DELAY_MS
    assert "not-exposed:app_cpu_pct" in proofs.flags_of(verdict), verdict
    assert "Not measured on your service" in (tmp_path / "url" / "report.md").read_text()


def test_the_pinning_path_pins_on_jdk21_and_not_on_jdk25(rig_env, points, tmp_path):
    run_dir = tmp_path / "pinning"
    users = min(10, points.users)
    done = vtlab(rig_env, "run", "--modes", "virtual", "--conc", str(users), "--path-mode",
                 "synchronized-platform-http", "--jdk", "21,25", "--stub-delay", "100", "--conn-mode", "released",
                 *PHASES, "--out", str(run_dir))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = {r["jdk"]: r for r in rows_of(run_dir)}
    for jdk, row in rows.items():
        assert row["jdk_version"].startswith(jdk), row  # each row ran on the JDK it names, as the live service said
    assert int(rows["21"]["pinned_events"]) > 0, rows["21"]
    # JEP 491: no pin from the synchronized block on 25; a rare failed freeze (a class loaded mid-request) may remain
    assert int(rows["25"]["pinned_events"]) <= 2, rows["25"]
    assert "JEP 491: before and after" in (run_dir / "report.md").read_text()
    assert_nothing_left(rig_env, run_dir)
