"""Is k6 the wall on shared cores? The same service point driven by vtlab's k6 (its own script and output, as a
row runs it) and by wrk, a dedicated client (C, epoll, a few threads), one after the other, with every tier's CPU
sampled and the throughput read from the service's own success counter over the same window for both clients.

    .venv/bin/python bench/generator-crosscheck/crosscheck.py --delay 0 --conns 4,16,64,256
    .venv/bin/python bench/generator-crosscheck/crosscheck.py --delay 1000 --conns 400,1000

Each point runs k6, wrk, wrk, k6 (so a drift over the point's minutes falls on both clients alike), each for the
phases a row has (ramp, warm-up, hold); the window is the hold's middle. Appends one line per client run to
reference/generator-crosscheck/results.csv, which the rig's generator_loss_per_share is fitted to (core/
generatorcheck.py). Run it on a quiet machine: every tier shares its cores, as `vtlab run` does by default.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from vtlab.core.settings import GENERATOR_CROSSCHECK  # noqa: E402
from vtlab.measure import load, samplers  # noqa: E402
from vtlab.rig import build, postgres, prereqs, procs, services  # noqa: E402
from vtlab.series import windows  # noqa: E402

RESULTS = GENERATOR_CROSSCHECK  # reference/generator-crosscheck/results.csv: what the rig's constant is fitted to
COLUMNS = ("delay_ms", "connections", "client", "rep", "window_s", "rps", "app_cpu_pct", "client_cpu_pct",
           "stub_cpu_pct", "pg_cpu_pct", "host_cpu_pct", "cpus")
RAMP_S, WARMUP_S, HOLD_S = 2, 8, 40
# the window: inside the hold whatever k6's start slack (it initialises its users before its clock starts)
WINDOW = (RAMP_S + WARMUP_S + 4, RAMP_S + WARMUP_S + HOLD_S - 4)
ORDER = ("k6", "wrk", "wrk", "k6")
WARM_S = 60


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=int, default=0, help="the stub's delay in ms (default 0: CPU-bound)")
    parser.add_argument("--conns", default="4,16,64,256", help="connections (k6 users, wrk connections)")
    args = parser.parse_args()
    wrk = shutil.which("wrk")
    if wrk is None:
        print("crosscheck: wrk is not installed: apt-get install wrk", file=sys.stderr)
        return 3
    procs.install_signal_handlers()
    try:
        run(Path(wrk), args.delay, [int(c) for c in args.conns.split(",")])
    finally:
        procs.stop_all()
    return 0


def run(wrk: Path, delay_ms: int, connections: list[int]) -> None:
    java = prereqs.find_jdk()
    pg = postgres.main_instance()
    if not (pg.initialised and pg.running()):
        procs.on_cleanup(pg.stop)
    build.setup(pg)
    k6 = build.build_k6()
    max_id = pg.max_seeded_order_id()
    work = Path(tempfile.mkdtemp(prefix="vtlab-crosscheck-"))
    stub = services.start_stub(java, procs.free_port(), delay_ms, 0, work / "stub.log", None)
    procs.on_cleanup(stub.stop)
    config = services.AppConfig(virtual=True, pool=50, conn_mode="released", path_mode="normal",
                                tomcat_max_threads=200)
    app = services.start_app(java, procs.free_port(), config, pg.credentials().service_env(), stub.base_url,
                             work / "app.log", work / "app.jfr", None)
    procs.on_cleanup(app.stop)
    meters = samplers.meters_reader(app.management_url + "/actuator/prometheus")
    # a fresh JVM's JIT settles under load first: a minute of wrk at the busiest point, not recorded
    warm = procs.spawn([str(wrk), "-t", "2", "-c", str(max(connections)), "-d", f"{WARM_S}s", "-s",
                        str(HERE / "random-order.lua"), app.base_url], env={**os.environ, "MAX_ID": str(max_id)},
                       log=work / "warm.log")
    warm.wait(timeout=WARM_S + 60)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    new_file = not RESULTS.exists()
    with RESULTS.open("a", newline="") as handle:
        out = csv.writer(handle)
        if new_file:
            out.writerow(COLUMNS)
        for count in connections:
            for rep, client in enumerate(ORDER, start=1):
                figures = hold(client, k6, wrk, app.base_url, count, max_id, meters, app.pid, stub.pid,
                               pg.postmaster_pid(), work)
                line = {"delay_ms": delay_ms, "connections": count, "client": client, "rep": rep, **figures,
                        "cpus": len(os.sched_getaffinity(0))}
                out.writerow([line[c] if not isinstance(line[c], float) else f"{line[c]:.2f}" for c in COLUMNS])
                handle.flush()
                print(", ".join(f"{c}={line[c]:.1f}" if isinstance(line[c], float) else f"{c}={line[c]}"
                                for c in COLUMNS), flush=True)


def hold(client: str, k6: Path, wrk: Path, base_url: str, count: int, max_id: int, meters, app_pid: int,
         stub_pid: int, pg_pid: int | None, work: Path) -> dict[str, float]:
    """One client's run at `count` connections: its CPU and every tier's over the window, and the service's
    successes per second over it."""
    seconds = RAMP_S + WARMUP_S + HOLD_S
    if client == "k6":
        spec = load.LoadSpec(base_url, "closed", count, 0, RAMP_S, WARMUP_S, HOLD_S, max_id)
        proc = load.start(k6, spec, work / "k6-summary.json", work / "k6.log", None, work / "k6-series.csv.gz")
    else:
        argv = [str(wrk), "-t", "2", "-c", str(count), "-d", f"{seconds}s", "--timeout", "60s",
                "-s", str(HERE / "random-order.lua"), base_url]
        proc = procs.spawn(argv, env={**os.environ, "MAX_ID": str(max_id)}, log=work / "wrk.log")
    forget = procs.on_cleanup(lambda: procs.terminate(proc))
    started = time.monotonic()
    time.sleep(WINDOW[0])
    sampler = samplers.Sampler(0.25, samplers.cpu_reader(
        lambda: {"app": app_pid, "stub": stub_pid, "pg": pg_pid, "client": proc.pid}))
    sampler.start()
    first, begun = meters(), time.monotonic()
    time.sleep(started + WINDOW[1] - time.monotonic())
    last, ended = meters(), time.monotonic()
    series = sampler.stop()
    proc.wait(timeout=seconds + 60)
    forget()
    if client == "wrk" and "Requests/sec" not in (work / "wrk.log").read_text():
        raise RuntimeError("wrk ended without its summary:\n" + procs.tail(work / "wrk.log"))
    window = ended - begun
    cpu = {tier: windows.cpu_percent(series, tier, begun, ended)[0] for tier in ("app", "client", "stub", "pg")}
    return {"window_s": window, "rps": (last["requests_ok_total"] - first["requests_ok_total"]) / window,
            "app_cpu_pct": cpu["app"], "client_cpu_pct": cpu["client"], "stub_cpu_pct": cpu["stub"],
            "pg_cpu_pct": cpu["pg"], "host_cpu_pct": windows.host_percent(series, begun, ended)}


if __name__ == "__main__":
    sys.exit(main())
