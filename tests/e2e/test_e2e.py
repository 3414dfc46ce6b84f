"""`./vtlab run` end to end against the real tiers: PostgreSQL, stub, service JVMs with JFR, k6.

Each test uses its own cluster, ports and results folder, so it never touches a developer's
instance on 5544 or a run in progress.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import browser
import proofs
import pytest
import recordings
from liverig import (REPO, answering, assert_nothing_left, assert_opens_in_chromium, cmdline, isolated_rig,
                     rows_of, wait_for_row)

from vtlab.rig import postgres

TINY = ["--ramp", "2", "--warmup", "4", "--hold", "6", "--stub-delay", "100", "--conn-mode", "released"]
# A context per request large enough to matter (2 MB, 20 in flight), with three heaps (Serial GC; virtual, 20 users,
# 100 ms downstream, 6 s hold, measured here). GC_HEAP: room for what is live but a young generation of 6 MB, so the
# collector runs all the time and frees most of the heap each time (paused 15% of the hold; its threads 31% of the
# service's CPU; 83 of 250 MB of long-lived heap live; 16 MB: 11%). THRASH_HEAP: barely above what is live (96 MB:
# 64 of 64 MB live after collections, the collector 61% of the CPU, paused 41%, no error yet). OOM_HEAP: below it
# (48 MB) with 8 MB contexts: one fits beside what the service keeps, a second never does, so OutOfMemoryError is
# thrown and every request fails (175 log lines, twice in two runs). With the 2 MB contexts the collector could
# sometimes free enough between requests: it thrashed without throwing (once in CI, 2026-11-26).
GC_HEAP, GC_CONTEXT_KB = "-XX:+UseSerialGC -Xmx256m -Xmn6m", "2048"
THRASH_HEAP, OOM_HEAP, OOM_CONTEXT_KB = "-XX:+UseSerialGC -Xmx96m", "-XX:+UseSerialGC -Xmx48m", "8192"

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def rig_env():
    yield from isolated_rig()


def test_tiny_matrix_measures_both_modes_with_sane_values(rig_env, tmp_path, request):
    run_dir = tmp_path / "run"
    result = subprocess.run([str(REPO / "vtlab"), "run", "--conc", "20", "--out", str(run_dir), "--k6-dashboard",
                             "--profiles", "cpu,alloc,lock,wall", *TINY],
                            env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = proofs.tiny_matrix(run_dir)
    assert "## The answer" in result.stdout and "## Headline" not in result.stdout  # the answer printed, not all
    assert_dashboards_linked(run_dir, rows)
    assert_flame_graphs_name_the_services_frames(run_dir, rows)
    assert_nothing_left(rig_env, run_dir)
    assert_opens_in_chromium(run_dir, rows)  # it skips the test where Chromium is missing
    assert_flame_graph_drawn(run_dir)
    recordings.keep(request, "tiny-matrix", run_dir)


def assert_flame_graph_drawn(run_dir: Path) -> None:
    """A row's CPU flame graph as a person opens it: Chromium draws its frames (many colours), not an empty canvas."""
    from PIL import Image

    graph = next((run_dir / "profiles").glob("*-cpu.html"))
    shot = browser.screenshot(graph, run_dir.parent / "flame.png", run_dir.parent / "chromium-profile")
    colours = Image.open(shot).convert("RGB").getcolors(1 << 20)
    assert colours is not None and len(colours) > 50, len(colours or [])


def flame_frames(page: Path) -> set[str]:
    """The frame names an async-profiler flame graph draws: its string table, each entry the previous one's first
    (code - 32) characters plus its own rest."""
    text = page.read_text()
    table = text[text.index("const cpool = [") + len("const cpool = ["):]
    entries = re.findall(r"'((?:[^'\\]|\\.)*)'", table[:table.index("];")])
    names: list[str] = []
    for entry in entries:
        entry = entry.replace("\\'", "'").replace("\\\\", "\\")
        names.append(names[-1][:ord(entry[0]) - 32] + entry[1:] if names else entry)
    return set(names)


def assert_flame_graphs_name_the_services_frames(run_dir: Path, rows: list[dict[str, str]]) -> None:
    """Each row's flame graphs (the pages, which a recording does not keep) draw the service's own code and its
    JDBC driver."""
    from vtlab.core import dimensions

    for row in rows:
        slug = dimensions.slug(dimensions.parse(row))
        frames = set()
        for kind in ("cpu", "alloc", "lock", "wall"):
            frames |= flame_frames(run_dir / "profiles" / f"{slug}-{kind}.html")
        assert any(frame.startswith("dev/vtlab/app/") for frame in frames), slug
        assert any(frame.startswith("org/postgresql/") for frame in frames), slug


def assert_dashboards_linked(run_dir: Path, rows: list[dict[str, str]]) -> None:
    """k6's own dashboard of each row, linked from its time chart, where asked for (--k6-dashboard: it costs k6 CPU)."""
    page = (run_dir / "report.html").read_text()
    assert page.count("k6's dashboard of this row") == len(list((run_dir / "k6").glob("*-dashboard.html"))) == len(rows)


def test_a_run_interrupted_then_killed_mid_row_keeps_its_rows_leaves_nothing_and_resumes(rig_env, tmp_path, request):
    """Ctrl-C in row 2: the run stops its tiers and keeps row 1. Resumed, it measures row 2; SIGKILL in row 3 gives
    the harness no chance to clean up: its spawned tiers stop on the parent-death signal, PostgreSQL (a daemon by
    design) is stopped by the next call, which then finishes the run."""
    run_dir = tmp_path / "run"
    argv = [str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "10,20,30", "--out", str(run_dir), *TINY]
    proc = subprocess.Popen(argv, env=rig_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wait_for_row(proc, run_dir, 1, time.monotonic() + 600)  # row 2's service and k6 are up
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGINT, output
    assert [r["concurrency"] for r in rows_of(run_dir)] == ["10"]
    assert_nothing_left(rig_env, run_dir)

    proc = subprocess.Popen([*argv, "--resume"], env=rig_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    tiers = wait_for_row(proc, run_dir, 2, time.monotonic() + 600)  # row 3's service and k6 are up
    postmaster = postgres.Postgres(Path(rig_env["VTLAB_PGDATA"]), int(rig_env["VTLAB_PG_PORT"])).postmaster_pid()
    assert len(tiers) >= 3 and postmaster, tiers  # the stub, the service and k6; the database apart
    proc.kill()
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in tiers):
        time.sleep(0.5)
    assert not [pid for pid in tiers if Path(f"/proc/{pid}").exists()], "spawned tiers outlived the harness"
    assert Path(f"/proc/{postmaster}").exists()  # the daemon is left for the next call

    resumed = subprocess.run([*argv, "--resume"], env=rig_env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"PostgreSQL (pid {postmaster})" in resumed.stderr  # found, verified and stopped, in one line
    assert "2 of 3 rows already measured" in resumed.stdout
    assert [r["concurrency"] for r in rows_of(run_dir)] == ["10", "20", "30"]
    assert not Path(f"/proc/{postmaster}").exists()
    assert_nothing_left(rig_env, run_dir)
    proofs.interrupted_and_resumed(run_dir)
    recordings.keep(request, "interrupted-resumed", run_dir)


def test_a_run_survives_a_busy_neighbour_a_killed_service_and_a_killed_database(rig_env, tmp_path, request):
    """Four rows, three faults: a CPU hog beside row 1 (flagged, still measured), the service SIGKILLed in
    row 2 and PostgreSQL's postmaster SIGKILLed in row 3 (both failed rows naming the tier, the database
    started again), row 4 measured; the run exits 1 and leaves nothing running."""
    run_dir = tmp_path / "run"
    argv = [str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "10,20,30,40", "--out", str(run_dir), *TINY]
    hog = subprocess.Popen(["python3", "-c", "while True: pass"])  # not ours: a neighbour
    proc = subprocess.Popen(argv, env=rig_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 900
        wait_for_row(proc, run_dir, 1, deadline)
        hog.kill()
        service = next(pid for pid in wait_for_row(proc, run_dir, 1, deadline) if "app.jar" in cmdline(pid))
        time.sleep(3)
        os.kill(service, signal.SIGKILL)
        wait_for_row(proc, run_dir, 2, deadline)
        time.sleep(3)
        postmaster = postgres.Postgres(Path(rig_env["VTLAB_PGDATA"]), int(rig_env["VTLAB_PG_PORT"])).postmaster_pid()
        os.kill(postmaster, signal.SIGKILL)
        out, err = proc.communicate(timeout=600)
    finally:
        hog.kill()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, out + err
    assert "other processes kept" in err  # the idle-host watch saw the hog before the first row
    assert "PostgreSQL died during a row and was started again" in out + err
    assert "2 row(s) failed" in err
    proofs.survived_faults(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "faults", run_dir)


def test_a_warm_up_ends_once_the_row_settled_and_the_service_starts_from_its_aot_cache(rig_env, tmp_path, request):
    """The warm-up as run, not as planned: the hold begins when the row's rate, its JIT's share of the service's CPU
    and its CPU per request say it settled (two 10 s windows after the ramp at least, at most --warmup), and k6
    stops once the hold's last request ended. The service starts from its AOT cache, as the JVM's own log says."""
    run_dir = tmp_path / "run"
    # 250 req/s (50 users, 200 ms) and a 60 s bound: at 500 req/s (100 ms) this VM's row was still climbing at its
    # 75 s bound (2026-11-27 in CI: ~380 -> 420 -> 450 req/s a 20 s apart, its own overhead falling 31 -> 10 ms a
    # request as C2 compiled), more than the 4% spread "settled" allows; the same absolute fall is half the share of
    # a 200 ms request
    warmup = 60
    result = subprocess.run([str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "50", "--out",
                             str(run_dir), "--aot", "on", "--ramp", "2", "--warmup", str(warmup), "--hold", "6",
                             "--stub-delay", "200", "--conn-mode", "released"],
                            env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    # trained for this command line now, or by an earlier run on this machine (the cache outlives a run)
    assert result.stdout.count("training the service's AOT cache") <= 1, result.stdout
    proofs.settled_warm_up(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "settled-warm-up", run_dir)


def test_jep491_synchronized_pins_on_jdk21_and_not_on_jdk25_and_the_control_pins(rig_env, tmp_path, request):
    run_dir = tmp_path / "run"
    result = subprocess.run([str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "10", "--path-mode",
                             "synchronized,synchronized-platform-http", "--jdk", "21,25", "--out", str(run_dir),
                             "--profiles", "cpu", *TINY], env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    deadlock = next(r for r in rows_of(run_dir) if (r["path_mode"], r["jdk"]) == ("synchronized", "21"))
    if deadlock["stall"]:  # the plain synchronized path on 21 may deadlock outright: the rig names it with a dump
        assert (run_dir / deadlock["thread_dump"]).exists()
    assert_nothing_left(rig_env, run_dir)

    # the positive control on 25, beside the same run's synchronized row: the capture works
    control = subprocess.run([str(REPO / "vtlab"), "run", "--resume", "--modes", "virtual", "--conc", "10",
                              "--path-mode", "pinned-control", "--out", str(run_dir), *TINY],
                             env=rig_env, capture_output=True, text=True, timeout=900)
    assert control.returncode == 0, control.stdout + control.stderr
    proofs.jep491(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "jep491", run_dir)


def test_writes_are_checked_against_the_database_and_a_lost_write_is_caught(rig_env, tmp_path, request):
    argv = [str(REPO / "vtlab"), "run", "--workload", "write", "--modes", "virtual", "--conc", "10", *TINY]
    honest = tmp_path / "honest"
    result = subprocess.run([*argv, "--out", str(honest)], env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    (row,) = rows_of(honest)
    assert row["workload"] == "write" and row["writes_ok"] == "true"
    assert int(row["rows_inserted"]) == int(row["writes_acknowledged"]) > 0
    pg = postgres.Postgres(Path(rig_env["VTLAB_PGDATA"]), int(rig_env["VTLAB_PG_PORT"]))
    pg.start()  # the run stopped the server it started
    try:
        assert pg.written_orders() == 0  # the run cleaned up after itself

        # Now lose writes behind the rig's back: delete acknowledged orders while the row runs.
        lossy = tmp_path / "lossy"
        stop = threading.Event()

        def lose_writes() -> None:
            while not stop.wait(1.0):
                try:
                    pg.discard_written_orders()
                except subprocess.CalledProcessError:
                    pass  # the server is between rows or stopping

        thief = threading.Thread(target=lose_writes, daemon=True)
        thief.start()
        try:
            # the server is ours now, so the run leaves it up for the thief until the row is counted
            result = subprocess.run([*argv, "--out", str(lossy)], env=rig_env, capture_output=True, text=True,
                                    timeout=900)
        finally:
            stop.set()
            thief.join(timeout=30)
        assert result.returncode == 0, result.stdout + result.stderr
        proofs.writes(honest, lossy)
    finally:
        pg.stop()
    recordings.keep(request, "writes", honest, lossy)


def test_fanout_pools_context_latency_and_the_reactive_twin_reach_the_service(rig_env, tmp_path, request):
    """One virtual row per variant: each must really run what it says (the rig checks runtime-info) and
    its measurements must show it — the structured fan-out under the sum of its calls, the proxied
    database slower by its latency, GC and heap read for a context, Agroal's and R2DBC's gauges in the pool
    columns."""
    run_dir = tmp_path / "run"
    argv = ["--modes", "virtual", "--conc", "20", "--out", str(run_dir), *TINY]
    fanout = subprocess.run([str(REPO / "vtlab"), "run", "--workload", "fanout", "--fanout", "sequential,structured",
                             *argv], env=rig_env, capture_output=True, text=True, timeout=900)
    assert fanout.returncode == 0, fanout.stdout + fanout.stderr

    variants = subprocess.run([str(REPO / "vtlab"), "run", "--resume", "--pool-impl", "agroal", "--context",
                               "scopedvalue", "--context-kb", "256", "--db-latency", "0,60", *argv],
                              env=rig_env, capture_output=True, text=True, timeout=900)
    assert variants.returncode == 0, variants.stdout + variants.stderr
    reactive = subprocess.run([str(REPO / "vtlab"), "run", "--resume", "--modes", "webflux", "--conc", "20",
                               "--out", str(run_dir), *TINY], env=rig_env, capture_output=True, text=True, timeout=900)
    assert reactive.returncode == 0, reactive.stdout + reactive.stderr
    proofs.variants(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "variants", run_dir)


def test_a_spike_reports_per_mode_its_failures_and_recovery_and_shows_in_the_series(rig_env, tmp_path, request):
    """20 users, a 4 s step to 60 and back, against 20 platform threads at 200 ms: the platform rows queue
    the burst behind their wall, virtual threads carry it; each row says what the spike did."""
    run_dir = tmp_path / "run"
    # a 14 s warm-up: after 4 s the virtual row was still warming on a slow 2-core VM (2026-11-27: base p99 284 ms at
    # 100 ms downstream, spike p99 640 against the platform row's 579). A 200 ms downstream, not 100: 60 virtual users
    # at 100 ms asked this VM for up to 600 req/s, its CPU queued them and their spike p99 (290 ms) came within 1.5x
    # of the platform row's (426 ms); at 200 ms they ask half that, and what the test shows is the thread wall.
    result = subprocess.run([str(REPO / "vtlab"), "run", "--conc", "20", "--out", str(run_dir), "--shape", "spike",
                             "--spike-multiple", "3", "--spike-s", "4", "--tomcat-threads", "20",
                             "--ramp", "2", "--warmup", "14", "--hold", "15", "--stub-delay", "200",
                             "--conn-mode", "released"],
                            env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    proofs.spike(run_dir)
    # k6's own dashboard only where asked for (--k6-dashboard: it costs k6 CPU); a recording keeps no pages
    assert "k6's dashboard of this row" not in (run_dir / "report.html").read_text()
    assert not list((run_dir / "k6").glob("*-dashboard.html"))
    assert_nothing_left(rig_env, run_dir)
    assert_opens_in_chromium(run_dir, rows_of(run_dir))  # it skips the test where Chromium is missing
    recordings.keep(request, "spike", run_dir)


def test_a_service_paused_in_its_hold_is_named_a_stall_and_never_valid(rig_env, tmp_path, request):
    """The service SIGSTOPped for 12 s in the middle of its hold: its users wait while nothing completes. The
    row is measured to the end (SIGCONT), named `stall` and invalid, whatever else it shows. The live watch reads
    the service's request counter over 5 s windows and calls a stall after 5 s under 1 req/s (~10 s of nothing: an
    8 s pause went unseen by it); the series' silence catches shorter ones (tests/explain: 8 s)."""

    run_dir = tmp_path / "run"
    argv = [str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "20", "--out", str(run_dir),
            *TINY[:4], "--hold", "24", *TINY[6:]]
    proc = subprocess.Popen(argv, env=rig_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    service = None
    try:
        tiers = wait_for_row(proc, run_dir, 0, time.monotonic() + 900)
        service = next(pid for pid in tiers if "app.jar" in cmdline(pid))
        # k6 is loading: its hold starts after the ramp and the first row's longer warm-up (twice the plan's: it
        # never settles that soon) and k6's start slack
        time.sleep(float(TINY[1]) + 2 * float(TINY[3]) + 2 + 4)
        os.kill(service, signal.SIGSTOP)
        time.sleep(12)
        os.kill(service, signal.SIGCONT)
        out, err = proc.communicate(timeout=600)
    finally:
        if service is not None and cmdline(service):
            os.kill(service, signal.SIGCONT)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    proofs.stall(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "stall", run_dir)


def test_a_service_answering_500_is_named_failures_not_overload(rig_env, tmp_path, request):
    """A user's service (--url) that answers one request in five with HTTP 500, far below any load it could not
    take: a failure, not an overload (503/504 and timed-out borrows are), and the row is invalid."""
    import itertools

    answered = itertools.count()

    def one_in_five_fails() -> tuple[int, bytes]:
        return (500, b'{"error":"boom"}') if next(answered) % 5 == 0 else (200, b'{"id":1}')

    run_dir = tmp_path / "run"
    with answering(one_in_five_fails) as url:
        result = subprocess.run([str(REPO / "vtlab"), "run", "--url", url, "--endpoint", "GET /things/{id}", "--ids",
                                 "1-100", "--modes", "virtual", "--conc", "5", "--out", str(run_dir),
                                 *TINY[:6]],  # its phases: the rest is ours
                                env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    proofs.failures(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "failures", run_dir)


def test_a_service_collecting_all_the_time_is_named_gc(rig_env, tmp_path, request):
    """A young generation far too small for the contexts in flight (Serial GC): the collector pauses the service
    for a large share of the hold while most of the heap stays free, and the row names it `gc`, with the share."""
    run_dir = tmp_path / "run"
    result = subprocess.run([str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "20", "--out", str(run_dir),
                             "--context", "threadlocal", "--context-kb", GC_CONTEXT_KB, "--jvm-opts", GC_HEAP, *TINY],
                            env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    proofs.gc(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "gc", run_dir)


def test_a_service_out_of_heap_is_named_out_of_memory_and_never_valid(rig_env, tmp_path, request):
    """The same load on a heap barely above what it keeps live: alive, collecting most of the time, no error yet;
    then on one below it: OutOfMemoryError, every request failed. Either row is named by its heap — never an
    overload, a stall or the CPU — and is never valid."""
    def measured(heap: str, folder: str, context_kb: str = GC_CONTEXT_KB) -> Path:
        run_dir = tmp_path / folder
        result = subprocess.run([str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "20", "--out",
                                 str(run_dir), "--context", "threadlocal", "--context-kb", context_kb,
                                 "--jvm-opts", heap, *TINY], env=rig_env, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        assert_nothing_left(rig_env, run_dir)
        return run_dir

    thrashing, thrown = measured(THRASH_HEAP, "thrashing"), measured(OOM_HEAP, "thrown", OOM_CONTEXT_KB)
    proofs.out_of_memory(thrashing, thrown)
    recordings.keep(request, "out-of-memory", thrashing, thrown)


def test_borrows_that_time_out_under_load_are_named_overload(rig_env, tmp_path, request):
    """40 users on 2 connections each held for the 1 s downstream call: the pool serves 2 requests a second and
    most borrows time out after 5 s (HTTP 503). That is refusal under load: `overload`, not `failures`."""
    run_dir = tmp_path / "run"
    result = subprocess.run([str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "40", "--pools", "2",
                             "--out", str(run_dir), *TINY[:4], "--hold", "10", "--conn-mode", "held",
                             "--stub-delay", "1000"],
                            env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    proofs.overload(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "overload", run_dir)


def test_a_generator_sharing_the_cores_of_a_full_host_is_named_load_generator(rig_env, tmp_path, request):
    """No downstream delay and 64 users on the 2 shared cores: the host is full, and k6 takes a share of it that
    the cross-check against wrk (reference/generator-crosscheck/) prices above the between-run noise. The row
    names the generator, not the CPU, and is invalid."""
    run_dir = tmp_path / "run"
    result = subprocess.run([str(REPO / "vtlab"), "run", "--modes", "virtual", "--conc", "64", "--out", str(run_dir),
                             *TINY, "--stub-delay", "0"],
                            env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    proofs.load_generator(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "load-generator", run_dir)


def test_the_memory_probe_sees_every_user_waiting_and_the_report_fits_it_per_thread_model(rig_env, tmp_path, request):
    """Both modes at 20 and 60 users, a thread per user for platform threads, the stub called over HTTP/2: each row
    is probed with every user's request in flight (none counted), a platform thread per waiting request shows in Native
    Memory Tracking and not a virtual one, and the report tells the memory per waiting request of each model."""
    run_dir = tmp_path / "run"
    result = subprocess.run([str(REPO / "vtlab"), "run", "--modes", "platform,virtual", "--conc", "20,60",
                             "--tomcat-threads", "60", "--memory-probe", "on", "--downstream-http", "http2",
                             "--out", str(run_dir), *TINY[:4], "--hold", "6", "--stub-delay", "1000",
                             "--conn-mode", "released"], env=rig_env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    proofs.memory_probe(run_dir)
    assert_nothing_left(rig_env, run_dir)
    recordings.keep(request, "memory-probe", run_dir)
