"""Run a plan: bring the tiers up, measure each row (load + samplers), append it to the CSV."""

from __future__ import annotations

import datetime as dt
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from vtlab import (build, cores, load, metadata, netdelay, postgres, procs, prereqs, results, sample, services,
                   writecheck)
from vtlab.plan import Plan, Row, estimated_row_s
from vtlab.settings import APP_PORT, HOST, STUB_PORT, Java

CPU_INTERVAL_S = 0.25     # 4 Hz
METER_INTERVAL_S = 0.5    # 2 Hz
K6_START_SLACK_S = 2.0    # k6 initialises its VUs before its clock starts; keep that out of the hold
# The first row of a run also warms the tiers every later row finds warm (the stub's JIT, PostgreSQL's
# buffers): with the profile's warm-up alone it was the one row whose hold still climbed (pools:
# 318 -> 354 req/s between the halves; pinning: 399 -> 462).
FIRST_ROW_EXTRA_WARMUP_S = 30


@dataclass
class Rig:
    """The long-lived tiers of a run (PostgreSQL and the stub) and what each row needs."""
    java: Java
    k6: Path
    k6_version: str
    pg: postgres.Postgres
    stub: services.Tier
    core_map: dict[str, set[int]]
    max_order_id: int
    max_customer_id: int
    run_dir: Path
    toxiproxy: netdelay.Toxiproxy | None = None  # only when some row adds network latency


def run(plan: Plan, run_dir: Path, keep: bool, core_map: dict[str, set[int]]) -> Path:
    """Measure every row of `plan` not yet in run_dir's CSV; returns the CSV path."""
    java = prereqs.find_jdk()
    pg = postgres.main_instance()
    # A server the user started (`vtlab db start`) stays up; one we start, we stop.
    if not (pg.initialised and pg.running()) and not keep:
        procs.on_cleanup(pg.stop)
    build.setup(pg, pg_cpus=core_map["pg"])
    k6 = build.build_k6()
    k6_version = load.k6_version(k6)
    run_dir.mkdir(parents=True, exist_ok=True)
    logs = run_dir / "logs"
    stub = services.start_stub(java, STUB_PORT, plan.stub_delay_ms, plan.stub_jitter_ms,
                               logs / "stub.log", core_map["stub"])
    if keep:
        print(f"vtlab: --keep: the stub (pid {stub.pid}) and PostgreSQL stay up after the run")
    else:
        procs.on_cleanup(stub.stop)
    rig = Rig(java, k6, k6_version, pg, stub, core_map, pg.max_seeded_order_id(), pg.max_customer_id(), run_dir)
    if any(_delayed(row) for row in plan.rows):
        # Shares the cores with the tiers it sits between; its CPU is sampled as its own tier.
        rig.toxiproxy = netdelay.start(build.build_toxiproxy(), logs / "toxiproxy.log", core_map["stub"])

    csv_path = run_dir / results.CSV_NAME
    writer = results.CsvWriter(csv_path)
    done = results.done_keys(csv_path)
    meta = metadata.collect(java.java, k6_version, cores.describe_map(core_map))
    meta.update(plan=plan.describe(), started=_now())
    results.write_metadata(run_dir, meta)

    todo = [row for row in plan.rows if results.scenario_key(_key_fields(row)) not in done]
    if len(todo) < len(plan.rows):
        print(f"vtlab: resuming: {len(plan.rows) - len(todo)} of {len(plan.rows)} rows already measured")
    progress = Progress(len(todo), estimated_row_s(plan))
    for index, row in enumerate(todo):
        progress.begin(index, row)
        measured = measure_row(rig, plan, row, progress, warmup_for(plan, index))
        writer.append(measured)
        progress.end(measured)
        if index == 0 and "service" not in meta:
            meta["service"] = measured.pop("_runtime_info", None)
            results.write_metadata(run_dir, meta)
    meta["finished"] = _now()
    results.write_metadata(run_dir, meta)
    return csv_path


def _key_fields(row: Row) -> dict[str, object]:
    return {"thread_mode": row.thread_mode, "hikari_pool": row.pool, "path_mode": row.path_mode,
            "conn_mode": row.conn_mode, "concurrency": _vus(row), "rep": row.rep,
            "load_model": row.model, "target_rps": row.rate, "stub_delay_ms": row.stub_delay_ms,
            "tomcat_max_threads": row.tomcat_max_threads, "workload": row.workload,
            "sleep_ms": row.sleep_ms, "cpu_work": row.cpu_work, "offload_executor": row.executor,
            "offload_pool": row.offload_pool, "fanout": row.fanout, "pool_impl": row.pool_impl,
            "context": row.context, "context_kb": row.context_kb, "db_latency_ms": row.db_latency_ms,
            "db_jitter_ms": row.db_jitter_ms, "downstream_latency_ms": row.downstream_latency_ms,
            "downstream_jitter_ms": row.downstream_jitter_ms}


def _delayed(row: Row) -> bool:
    return bool(row.db_latency_ms or row.db_jitter_ms or row.downstream_latency_ms or row.downstream_jitter_ms)


def _vus(row: Row) -> int:
    return load.vus_for(row.model, row.concurrency, row.rate)


def warmup_for(plan: Plan, index: int) -> int:
    """Unrecorded warm-up of the index-th row measured by this invocation (a resumed run restarts the
    stub, so its first row is a first row too)."""
    return plan.warmup_s + (FIRST_ROW_EXTRA_WARMUP_S if index == 0 else 0)


def measure_row(rig: Rig, plan: Plan, row: Row, progress: Progress, warmup_s: int) -> dict[str, object]:
    slug = (f"{row.workload}{'-' + row.executor + str(row.offload_pool) if row.executor else ''}"
            f"{'-' + row.fanout if row.fanout else ''}-"
            f"{row.thread_mode}-t{row.tomcat_max_threads}-{row.conn_mode}-{row.path_mode}-"
            f"{row.pool_impl}{row.pool}-{'r' + str(row.rate) if row.model == 'open' else 'c' + str(row.concurrency)}"
            f"{'-ctx' + row.context + str(row.context_kb) if row.context != 'none' else ''}"
            f"{'-db' + str(row.db_latency_ms) + 'j' + str(row.db_jitter_ms) if row.db_latency_ms else ''}"
            f"{'-ds' + str(row.downstream_latency_ms) + 'j' + str(row.downstream_jitter_ms) if row.downstream_latency_ms else ''}"
            f"-rep{row.rep}")
    logs = rig.run_dir / "logs"
    jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
    jfr.parent.mkdir(parents=True, exist_ok=True)
    jfr.unlink(missing_ok=True)
    config = services.AppConfig(row.thread_mode == "virtual", row.pool, row.conn_mode, row.path_mode,
                                row.tomcat_max_threads, row.executor or "platform", row.offload_pool or 50,
                                row.fanout or "sequential", row.pool_impl if row.pool_impl != "r2dbc" else "hikari",
                                row.context, row.context_kb or 64, reactive=row.thread_mode == "webflux",
                                preview=row.workload == "fanout")
    db_env, stub_url, proxies = _route(rig, row, slug)
    try:
        app = services.start_app(rig.java, APP_PORT, config, db_env, stub_url, logs / f"app-{slug}.log", jfr,
                                 rig.core_map["app"])
    except BaseException:
        _unroute(rig, proxies)
        raise
    forget = procs.on_cleanup(app.stop)
    if row.workload == "write":
        rig.pg.discard_written_orders()  # count from zero: only this row's writes
    try:
        info = services.runtime_info(app)
        problems = services.check_effective(info, config)
        if problems:
            raise RuntimeError("the service does not run the row's configuration: " + "; ".join(problems))
        spec = load.LoadSpec(app.base_url, row.model, _vus(row), row.rate, plan.ramp_s, warmup_s,
                             plan.hold_s, rig.max_order_id, plan.cooldown_s, row.workload, row.sleep_ms,
                             row.cpu_work, rig.max_customer_id)
        summary = rig.run_dir / "k6" / f"{slug}.json"
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.unlink(missing_ok=True)

        k6_proc = load.start(rig.k6, spec, summary, logs / f"k6-{slug}.log", rig.core_map["load"])
        started = time.monotonic()
        pids = {"app": app.pid, "pg": rig.pg.postmaster_pid(), "stub": rig.stub.pid, "load": k6_proc.pid,
                "proxy": rig.toxiproxy.pid if rig.toxiproxy else None}
        cpu = sample.Sampler(CPU_INTERVAL_S, sample.cpu_reader(lambda: pids))
        meters = sample.Sampler(METER_INTERVAL_S, sample.meters_reader(app.management_url + "/actuator/prometheus"))
        cpu.start()
        meters.start()
        try:
            while k6_proc.poll() is None:
                progress.tick(started, sample.rate(meters.series, "requests_total"))
                if time.monotonic() - started > spec.duration_s + 120:
                    raise RuntimeError(f"k6 did not finish in time; see {logs / f'k6-{slug}.log'}")
                time.sleep(1)
        finally:
            cpu_series, meter_series = cpu.stop(), meters.stop()
            if k6_proc.poll() is None:
                procs.terminate(k6_proc)
        exit_code = k6_proc.returncode
        if not summary.exists():
            raise RuntimeError(f"k6 exited {exit_code} without a summary; see {logs / f'k6-{slug}.log'}:\n"
                               + procs.tail(logs / f"k6-{slug}.log"))
        measured = load.read_summary(summary, exit_code)
    finally:
        app.stop()  # SIGTERM: JFR writes the recording on exit
        forget()
        _unroute(rig, proxies)

    hold_start = started + spec.hold_start_s + K6_START_SLACK_S
    hold_end = started + spec.hold_start_s + plan.hold_s
    values = _row(row, plan, spec, measured, info, cpu_series, meter_series, hold_start, hold_end, rig,
                  sample.pinned_by_reason(rig.java.jfr, jfr))
    values.update(_write_check(rig.pg, row, measured))
    return values


def _route(rig: Rig, row: Row, slug: str) -> tuple[dict[str, str], str, list[str]]:
    """The database environment and stub URL the service gets: direct on loopback, or through a
    Toxiproxy proxy adding the row's latency each way. Returns them with the proxies to remove."""
    db_env = rig.pg.credentials().service_env()
    stub_url = rig.stub.base_url
    proxies: list[str] = []
    if row.db_latency_ms or row.db_jitter_ms:
        assert rig.toxiproxy is not None
        port = rig.toxiproxy.add(f"pg-{slug}", rig.pg.port, row.db_latency_ms, row.db_jitter_ms)
        proxies.append(f"pg-{slug}")
        db_env["DB_URL"] = db_env["DB_URL"].replace(f":{rig.pg.port}/", f":{port}/")
    if row.downstream_latency_ms or row.downstream_jitter_ms:
        assert rig.toxiproxy is not None
        port = rig.toxiproxy.add(f"stub-{slug}", STUB_PORT, row.downstream_latency_ms, row.downstream_jitter_ms)
        proxies.append(f"stub-{slug}")
        stub_url = f"http://{HOST}:{port}"
    return db_env, stub_url, proxies


def _unroute(rig: Rig, proxies: list[str]) -> None:
    for name in proxies:
        if rig.toxiproxy is not None:
            rig.toxiproxy.remove(name)


def _write_check(pg: postgres.Postgres, row: Row, measured: load.LoadResult) -> dict[str, object]:
    """Write rows: the rows the database holds must equal the writes k6 saw acknowledged."""
    if row.workload != "write":
        return {"writes_ok": "", "rows_inserted": "", "writes_acknowledged": "", "writes_lost": ""}
    check = writecheck.compare(measured.acknowledged_writes, pg.written_orders())
    pg.discard_written_orders()
    return check


def _row(row: Row, plan: Plan, spec: load.LoadSpec, measured: load.LoadResult, info: dict,
         cpu: sample.Series, meters: sample.Series, start: float, end: float, rig: Rig,
         pinned: dict[str, int] | None) -> dict[str, object]:
    app_cpu, app_cpu_max = sample.cpu_percent(cpu, "app", start, end)
    pg_cpu, _ = sample.cpu_percent(cpu, "pg", start, end)
    stub_cpu, _ = sample.cpu_percent(cpu, "stub", start, end)
    load_cpu, load_cpu_max = sample.cpu_percent(cpu, "load", start, end)
    proxy_cpu, _ = sample.cpu_percent(cpu, "proxy", start, end)
    gc_pause_s = sample.increase(meters, "gc_pause_s", start, end)
    heap = sample.maximum(meters, "heap_used_bytes", start, end)
    host_cpu = sample.host_percent(cpu, start, end)
    all_rps = measured.requests / plan.hold_s
    half = plan.hold_s / 2
    rss = sample.maximum(cpu, "rss_kb", start, end)
    row_values: dict[str, object] = {
        "ts_iso": _now(),
        "thread_mode": row.thread_mode,
        "hikari_pool": row.pool,
        "path_mode": row.path_mode,
        "conn_mode": row.conn_mode,
        "concurrency": spec.concurrency,
        "rep": row.rep,
        "throughput_rps": measured.throughput(plan.hold_s),
        "p50_ms": measured.p50_ms,
        "p95_ms": measured.p95_ms,
        "p99_ms": measured.p99_ms,
        "p999_ms": measured.p999_ms,
        "max_ms": measured.max_ms,
        "error_rate": measured.error_rate,
        "http_reqs": measured.requests,
        "app_cpu_pct": app_cpu,
        "pg_cpu_pct": pg_cpu,
        "load_cpu_pct": load_cpu,
        "hikari_active_max": sample.maximum(meters, "hikari_active", start, end),
        "hikari_pending_max": sample.maximum(meters, "hikari_pending", start, end),
        "jvm_threads_max": sample.maximum(meters, "jvm_threads", start, end),
        "rss_mb_max": rss / 1024 if not math.isnan(rss) else rss,
        "pinned_events": "" if pinned is None else sum(pinned.values()),
        "load_model": row.model,
        "target_rps": row.rate,
        "dropped_iterations": measured.dropped_iterations,
        "stub_delay_ms": row.stub_delay_ms,
        "tomcat_max_threads": row.tomcat_max_threads,
        "ramp_s": plan.ramp_s,
        "warmup_s": spec.warmup_s,
        "hold_s": plan.hold_s,
        "ok_requests": measured.ok_requests,
        "throughput_first_half_rps": measured.ok_half_a / half,
        "throughput_second_half_rps": measured.ok_half_b / half,
        "app_cpu_ms_per_req": app_cpu * 10 / all_rps if all_rps > 0 else float("nan"),
        "app_cpu_pct_max": app_cpu_max,
        "stub_cpu_pct": stub_cpu,
        "load_cpu_pct_max": load_cpu_max,
        "host_cpu_pct": host_cpu,
        "tomcat_connections_max": sample.maximum(meters, "tomcat_connections", start, end),
        "cpu_samples": len(cpu.window(start, end)),
        "meter_samples": len(meters.window(start, end)),
        "k6_exit": measured.exit_code,
        "jfr_pinned_threshold_ms": services.PINNED_THRESHOLD_MS,
        "app_cpus": info.get("availableProcessors", ""),
        "vt_parallelism": info.get("virtualThreadSchedulerParallelism", ""),
        "jdk_version": info.get("jdkVersion", ""),
        "spring_boot_version": info.get("springBootVersion", ""),
        "hikari_version": info.get("pool", {}).get("version", ""),
        "k6_version": rig.k6_version,
        "core_map": cores.describe_map(rig.core_map),
        "workload": row.workload,
        "sleep_ms": row.sleep_ms,
        "cpu_work": row.cpu_work,
        "cooldown_s": plan.cooldown_s,
        "pinned_reasons": "" if pinned is None else sample.format_reasons(pinned),
        "hikari_pending_share": sample.share_positive(meters, "hikari_pending", start, end),
        "offload_executor": row.executor,
        "offload_pool": row.offload_pool,
        "fanout": row.fanout,
        "pool_impl": row.pool_impl,
        "context": row.context,
        "context_kb": row.context_kb,
        "db_latency_ms": row.db_latency_ms,
        "db_jitter_ms": row.db_jitter_ms,
        "downstream_latency_ms": row.downstream_latency_ms,
        "downstream_jitter_ms": row.downstream_jitter_ms,
        "proxy_cpu_pct": proxy_cpu if rig.toxiproxy else "",
        "gc_pauses": sample.increase(meters, "gc_pauses", start, end),
        "gc_pause_ms": gc_pause_s * 1000,
        "heap_used_mb_max": heap / 2**20,
        "_runtime_info": info,
    }
    return row_values


class Progress:
    """One live line: current row, rows left, ETA, current request rate."""

    def __init__(self, total: int, row_estimate_s: float):
        self.total = total
        self.row_estimate_s = row_estimate_s
        self.durations: list[float] = []
        self.tty = sys.stdout.isatty()
        self.index = 0
        self.row: Row | None = None
        self.row_started = time.monotonic()
        self.last_print = 0.0

    def begin(self, index: int, row: Row) -> None:
        self.index, self.row, self.row_started = index, row, time.monotonic()
        if not self.tty:
            print(f"[{index + 1}/{self.total}] {row.label()}", flush=True)

    def tick(self, load_started: float, current_rps: float) -> None:
        now = time.monotonic()
        per_row = sum(self.durations) / len(self.durations) if self.durations else self.row_estimate_s
        left = max(0.0, per_row - (now - self.row_started)) + per_row * (self.total - self.index - 1)
        line = (f"[{self.index + 1}/{self.total}] {self.row.label() if self.row else ''} | "
                f"{now - load_started:4.0f} s | {current_rps:7.1f} req/s | "
                f"{self.total - self.index - 1} rows left, ETA {_clock(left)}")
        if self.tty:
            print("\r" + line[:160].ljust(160), end="", flush=True)
        elif now - self.last_print >= 15:
            print("  " + line, flush=True)
            self.last_print = now

    def end(self, row: dict[str, object]) -> None:
        self.durations.append(time.monotonic() - self.row_started)
        summary = (f"  -> {float(row['throughput_rps']):.1f} req/s ok, p99 {float(row['p99_ms']):.0f} ms, "
                   f"errors {float(row['error_rate']) * 100:.2f}%, app CPU {_pct(row['app_cpu_pct'])}, "
                   f"k6 CPU {_pct(row['load_cpu_pct'])}")
        print(("\n" if self.tty else "") + summary, flush=True)


def _pct(value: object) -> str:
    number = float(value)  # type: ignore[arg-type]
    return "n/a" if math.isnan(number) else f"{number:.0f}%"


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s"


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def default_run_dir(root: Path) -> Path:
    return root / dt.datetime.now().strftime("%Y%m%d-%H%M%S")

