"""`vtlab bench-stub`: how many requests per second the downstream stub serves on one core.

The stub must never be what limits a row. This measures it the conservative way: the stub's JVM
pinned to a single CPU (so it also sizes its event loop and GC for one core), answering with no
delay, while k6 runs on the other CPUs; the stub's own CPU share turns the rate into a per-core
capacity to set beside the service's best rate in a report.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from vtlab.rig import build, prereqs, procs, services
from vtlab.measure import samplers
from vtlab.series import windows
from vtlab.core.settings import LOAD

SCRIPT = LOAD / "stub-capacity.js"


def run(seconds: int, vus: int, delay_ms: int) -> dict[str, float]:
    java = prereqs.find_jdk()
    build.build_jars()
    k6 = build.build_k6()
    cpus = sorted(os.sched_getaffinity(0))
    stub_cpus, load_cpus = {cpus[0]}, (set(cpus[1:]) or {cpus[0]})
    workdir = Path(tempfile.mkdtemp(prefix="vtlab-stubbench-"))
    stub = services.start_stub(java, procs.free_port(), delay_ms, 0, workdir / "stub.log", stub_cpus)
    procs.on_cleanup(stub.stop)
    print(f"vtlab bench-stub: stub on CPU {cpus[0]}, k6 on CPUs {','.join(map(str, sorted(load_cpus)))}, "
          f"{vus} users, delay {delay_ms} ms; warming up {seconds} s, then measuring {seconds} s", flush=True)
    _k6(k6, stub.base_url, vus, seconds, workdir / "warmup.json", load_cpus)  # JIT: discarded
    sampler = samplers.Sampler(0.25, samplers.cpu_reader(lambda: {"stub": stub.pid}, rss_of="stub"))
    sampler.start()
    started = time.monotonic()
    summary = _k6(k6, stub.base_url, vus, seconds, workdir / "measure.json", load_cpus)
    series = sampler.stop()
    stub_cpu, _ = windows.cpu_percent(series, "stub", started, time.monotonic())
    metrics = summary["metrics"]
    rps = metrics["http_reqs"]["values"]["rate"]
    result = {"rps": rps, "stub_cpu_pct": stub_cpu,
              "error_rate": metrics["http_req_failed"]["values"]["rate"],
              "p99_ms": metrics["http_req_duration"]["values"]["p(99)"],
              "per_core_rps": rps / (stub_cpu / 100) if stub_cpu > 0 else float("nan")}
    print(f"stub: {rps:,.0f} req/s at {stub_cpu:.0f}% of its one CPU (errors {result['error_rate'] * 100:.2f}%, "
          f"p99 {result['p99_ms']:.1f} ms) -> about {result['per_core_rps']:,.0f} req/s per core")
    return result


def _k6(k6: Path, base_url: str, vus: int, seconds: int, summary: Path, cpus: set[int]) -> dict:
    env = {**os.environ, "BASE_URL": base_url, "VUS": str(vus), "SECONDS": str(seconds),
           "SUMMARY": str(summary), "K6_NO_USAGE_REPORT": "true"}
    proc = procs.spawn([str(k6), "run", "--quiet", "--no-color", "--address", "127.0.0.1:0", str(SCRIPT)],
                       env=env, log=summary.with_suffix(".log"), cpus=cpus)
    forget = procs.on_cleanup(lambda: procs.terminate(proc))
    try:
        proc.wait(timeout=seconds + 60)
    finally:
        forget()
    if not summary.exists():
        raise RuntimeError(f"k6 exited {proc.returncode} without a summary:\n"
                           + procs.tail(summary.with_suffix(".log")))
    return json.loads(summary.read_text())
