"""Run a plan: bring the tiers up, measure each row (load + samplers), append it to the CSV."""

from __future__ import annotations

import datetime as dt
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.rig import build, machine, netdelay, ownership, postgres, prereqs, procs, runtimes, services
from vtlab.core import cores, dimensions
from vtlab.series import holdstats, store, shapestats, windows
from vtlab.measure import liveness, load, neighbours, samplers, stalls, writecheck
from vtlab.results import cells, table
from vtlab.targets import userservice
from vtlab.core import constants as rig_constants
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan, estimated_row_s
from vtlab.measure.jfr import pinned_by_reason
from vtlab.measure.progress import Progress
from vtlab.core.settings import APP_PORT, HOST, PG_HOST, STUB_HOST, STUB_PORT, Java

# The first row of a run also warms the tiers every later row finds warm (the stub's JIT, PostgreSQL's
# buffers): with the profile's warm-up alone it was the one row whose hold still climbed (pools:
# 318 -> 354 req/s between the halves; pinning: 399 -> 462).
FIRST_ROW_EXTRA_WARMUP_S = 30
# A dead tier fails its row and the run goes on with fresh tiers; this many failures in a row point at
# the machine or the setup, where going on would only fail every row.
MAX_CONSECUTIVE_FAILURES = 3
# The tiers as failed rows and the report name them.
SERVICE, STUB, DATABASE, PROXY, LOAD = "service", "stub", "PostgreSQL", "latency proxy", "load generator (k6)"
# The database a user's service gets in vtlab's PostgreSQL (--db), made afresh for every row.
SERVICE_DATABASE = "service"


@dataclass
class Rig:
    """The long-lived tiers of a run (PostgreSQL and the stub) and what each row needs."""
    java: Java
    k6: Path
    k6_version: str
    pg: postgres.Postgres | None   # None: a user's service that needs no database of vtlab's
    stub: services.Tier | None     # None: a user's service that calls no stub
    stub_settings: tuple[int, int]  # delay and jitter (ms): what a restarted stub needs
    core_map: dict[str, set[int]]
    max_order_id: int
    max_customer_id: int
    run_dir: Path
    toxiproxy: netdelay.Toxiproxy | None = None  # only when some row adds network latency
    k6_dashboard: bool = False   # export k6's own web dashboard of each row (it costs k6 CPU: opt-in)
    target: userservice.Target | None = None  # the user's service instead of vtlab's own
    # a user's service: each row's slug -> where its meters came from ("" when it exposes none)
    meter_sources: dict[str, str] = field(default_factory=dict)
    runners: int = 1  # k6 processes sharing each row's load (plan.runners)


def run(plan: Plan, run_dir: Path, keep: bool, core_map: dict[str, set[int]],
        doctor: list[dict[str, str]] | None = None, k6_dashboard: bool = False,
        target: userservice.Target | None = None) -> Outcome:
    """Measure every row of `plan` not yet in run_dir's CSV; returns the CSV path and how many rows failed."""
    java = prereqs.find_jdk()
    for jdk in sorted({row.jdk for row in plan.rows}):
        runtimes.java_for(jdk, plan.java_homes)  # installs vtlab's JDK 21 before any tier starts
    run_dir.mkdir(parents=True, exist_ok=True)
    rig = _own_rig(java, plan, run_dir, keep, core_map, k6_dashboard) if target is None \
        else _user_rig(java, plan, run_dir, core_map, k6_dashboard, target)
    csv_path = run_dir / table.CSV_NAME
    writer = table.CsvWriter(csv_path)
    done = table.done_keys(csv_path)
    meta = machine.collect(java.java, rig.k6_version, cores.describe_map(core_map))
    meta.update(plan=plan.describe(), rig=rig_constants.record(), started=now(),
                host_before_run=_watch_neighbours(rig).record(), doctor=doctor or [], k6_dashboard=k6_dashboard)
    if target is not None:
        meta["target"] = target.describe()
    table.write_metadata(run_dir, meta)

    todo = [row for row in plan.rows if dimensions.key(row) not in done]
    if len(todo) < len(plan.rows):
        print(f"vtlab: resuming: {len(plan.rows) - len(todo)} of {len(plan.rows)} rows already measured")
    progress = Progress(len(todo), estimated_row_s(plan))
    failed = consecutive = 0
    for index, row in enumerate(todo):
        progress.begin(index, row)
        try:
            measure = measure_row if target is None else measure_user_row
            values, runtime_info = measure(rig, plan, row, progress, warmup_for(plan, index))
        except userservice.TargetError as err:
            if index == 0:
                raise  # the first row: the jar, its settings or the call are wrong, not the moment
            # a later row of the user's service that would not start or answer: that row failed, the run goes on
            log = rig.run_dir / "logs" / f"app-{dimensions.slug(row)}.log"
            died = procs.TierDied(SERVICE, str(err).splitlines()[0], log if log.exists() else None)
            writer.append(failed_row(row, died))
            progress.failed(died)
            failed, consecutive = failed + 1, consecutive + 1
            if consecutive >= MAX_CONSECUTIVE_FAILURES:
                raise
            continue
        except procs.TierDied as died:
            writer.append(failed_row(row, died))
            progress.failed(died)
            failed, consecutive = failed + 1, consecutive + 1
            if consecutive >= MAX_CONSECUTIVE_FAILURES:
                raise RuntimeError(f"{consecutive} rows in a row failed (the last: the {died.tier} {died.how}); "
                                   "stopping: something is wrong with the machine or the setup, not one row") from died
            _revive(rig, died.tier, keep)
            continue
        consecutive = 0
        writer.append(values)
        progress.end(values)
        if rig.meter_sources:
            meta["target"]["meters"] = dict(rig.meter_sources)  # per row: its Prometheus, its actuator, or none
            table.write_metadata(run_dir, meta)
        if "service" not in meta:
            meta["service"] = runtime_info  # the defaults the service runs with, read from the live objects
            table.write_metadata(run_dir, meta)
    meta["finished"] = now()
    table.write_metadata(run_dir, meta)
    return Outcome(csv_path, failed)


def _own_rig(java: Java, plan: Plan, run_dir: Path, keep: bool, core_map: dict[str, set[int]],
             k6_dashboard: bool) -> Rig:
    """vtlab's own service's tiers: the seeded PostgreSQL, the stub and, when a row adds latency, Toxiproxy."""
    pg = postgres.main_instance()
    # A server the user started (`vtlab db start`) stays up; one we start, we stop.
    if not (pg.initialised and pg.running()) and not keep:
        procs.on_cleanup(pg.stop)
    build.setup(pg, pg_cpus=core_map["pg"])
    if keep:
        ownership.release(pg.postmaster_pid())  # the user's now, like one `vtlab db start` started
    k6 = build.build_k6()
    k6_version = load.k6_version(k6)
    logs = run_dir / "logs"
    stub_settings = (plan.stub_delay_ms, plan.stub_jitter_ms)
    stub = _start_stub(java, stub_settings, run_dir, core_map, keep)
    if keep:
        print(f"vtlab: --keep: the stub (pid {stub.pid}) and PostgreSQL stay up after the run")
    rig = Rig(java, k6, k6_version, pg, stub, stub_settings, core_map, pg.max_seeded_order_id(),
              pg.max_customer_id(), run_dir, k6_dashboard=k6_dashboard, runners=plan.runners)
    if any(_delayed(row) for row in plan.rows):
        # Shares the cores with the tiers it sits between; its CPU is sampled as its own tier.
        rig.toxiproxy = netdelay.start(build.build_toxiproxy(), logs / "toxiproxy.log", core_map["stub"])
    return rig


def _user_rig(java: Java, plan: Plan, run_dir: Path, core_map: dict[str, set[int]], k6_dashboard: bool,
              target: userservice.Target) -> Rig:
    """A user's service's tiers: PostgreSQL only when it asks for vtlab's database (no seed: the service owns
    its schema), the stub only when its settings name {stub_url}."""
    pg = None
    if target.db == "vtlab":
        pg = postgres.main_instance()
        if pg.start(core_map["pg"]):
            procs.on_cleanup(pg.stop)
    k6 = build.build_k6()
    if target.uses_stub:
        build.build_jars()
    stub = _start_stub(java, (plan.stub_delay_ms, plan.stub_jitter_ms), run_dir, core_map, False) \
        if target.uses_stub else None
    return Rig(java, k6, load.k6_version(k6), pg, stub, (plan.stub_delay_ms, plan.stub_jitter_ms), core_map, 0, 0,
               run_dir, k6_dashboard=k6_dashboard, target=target, runners=plan.runners)


@dataclass(frozen=True)
class Outcome:
    csv: Path
    failed_rows: int  # rows of this invocation a dead tier ended


def _watch_neighbours(rig: Rig) -> neighbours.HostLoad:
    """Warn, before the first row, when other processes already use the machine the rows will measure on."""
    host = neighbours.watch({pid for pid in (rig.pg.postmaster_pid() if rig.pg else None,
                                             rig.stub.pid if rig.stub else None) if pid})
    if host.busy_pct > rig_constants.CURRENT.foreign_cpu_flag_pct:
        print(f"vtlab: warning: before the run, other processes kept {host.busy_pct:.0f}% of this machine busy "
              f"({host.describe()}); rows measured beside them are flagged (foreign_cpu_pct)", file=sys.stderr)
    return host


def failed_row(row: Row, died: procs.TierDied) -> dict[str, object]:
    """A row a dead tier ended: its dimensions and what died, every measurement empty — never a number."""
    return {**{column: "" for column in table.COLUMNS}, "ts_iso": now(), **dimensions.values(row),
            "failed_tier": died.tier, "failure": died.how, "failure_log": died.log_tail}


def _revive(rig: Rig, tier: str, keep: bool) -> None:
    """Fresh tiers for the next row: the service is fresh every row anyway; a dead stub, proxy or database
    is started again, or the run stops saying why."""
    if tier == STUB and rig.stub is not None and rig.stub.proc.poll() is not None:
        rig.stub = _start_stub(rig.java, rig.stub_settings, rig.run_dir, rig.core_map, keep)
    elif tier == PROXY and rig.toxiproxy is not None and rig.toxiproxy.proc.poll() is not None:
        rig.toxiproxy = netdelay.start(build.build_toxiproxy(), rig.run_dir / "logs" / "toxiproxy.log",
                                       rig.core_map["stub"])
    elif tier == DATABASE and rig.pg is not None and not rig.pg.running():
        try:
            rig.pg.start(rig.core_map["pg"])
        except RuntimeError as err:
            raise RuntimeError(f"PostgreSQL died during a row and could not be started again ({err}); every row "
                               "measured so far is in the CSV: fix the database, then --resume") from err
        print(f"vtlab: PostgreSQL died during a row and was started again (pid {rig.pg.postmaster_pid()})")


def _start_stub(java: Java, settings: tuple[int, int], run_dir: Path, core_map: dict[str, set[int]],
                keep: bool) -> services.Tier:
    stub = services.start_stub(java, STUB_PORT, *settings, run_dir / "logs" / "stub.log", core_map["stub"],
                               detached=keep)
    if not keep:
        procs.on_cleanup(stub.stop)
    return stub


def _delayed(row: Row) -> bool:
    return bool(row.db_latency_ms or row.db_jitter_ms or row.downstream_latency_ms or row.downstream_jitter_ms)


def warmup_for(plan: Plan, index: int) -> int:
    """Unrecorded warm-up of the index-th row measured by this invocation (a resumed run restarts the
    stub, so its first row is a first row too)."""
    return plan.warmup_s + (FIRST_ROW_EXTRA_WARMUP_S if index == 0 else 0)


@dataclass
class Drive:
    """What one row's load produced: k6's reading of the hold, the samplers' series, and the window."""
    measured: load.LoadResult
    cpu: windows.Series
    meters: windows.Series
    pids: dict[str, int | tuple[int, ...] | None]  # the tiers whose CPU was sampled (k6: each runner)
    k6_hold_start: float         # when k6's hold began (store.hold_start_s)
    hold_start: float            # the samplers' hold: k6's, less the start-up slack at its front
    hold_end: float
    k6: store.K6Series          # every request; it and the samplers' series in seconds since k6 started
    stall: dict[str, str]        # the stall and thread-dump columns (empty when the row never stalled)


def measure_row(rig: Rig, plan: Plan, row: Row, progress: Progress, warmup_s: int
                ) -> tuple[dict[str, object], dict]:
    """One row: a fresh service with the row's configuration, the load with samplers beside it, the JFR
    recording read back. Returns the CSV values and the service's runtime-info."""
    slug = dimensions.slug(row)
    jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
    jfr.parent.mkdir(parents=True, exist_ok=True)
    jfr.unlink(missing_ok=True)
    config = app_config(row)
    java = runtimes.java_for(row.jdk, plan.java_homes)  # the row's runtime; the stub stays on the build JDK
    db_env, stub_url, proxies = _route(rig, row, slug)
    try:
        app = services.start_app(java, APP_PORT, config, db_env, stub_url, rig.run_dir / "logs" / f"app-{slug}.log",
                                 jfr, rig.core_map["app"], plan.jvm_opts)
    except BaseException:
        _unroute(rig, proxies)
        raise
    forget = procs.on_cleanup(app.stop)
    if row.workload == "write":
        rig.pg.discard_written_orders()  # count from zero: only this row's writes
    try:
        info = services.runtime_info(app)
        problems = services.check_effective(info, config)
        if runtimes.feature(info.get("jdkVersion", "")) != row.jdk:
            problems.append(f"jdk: asked {row.jdk}, service runs {info.get('jdkVersion')}")
        if problems:
            raise RuntimeError("the service does not run the row's configuration: " + "; ".join(problems))
        spec = load.LoadSpec(app.base_url, row.load_model, users(plan, row), row.target_rps, plan.ramp_s, warmup_s,
                             plan.hold_s, rig.max_order_id, plan.cooldown_s, row.workload, row.sleep_ms,
                             row.cpu_work, rig.max_customer_id, plan.shape(row))
        watch = stalls.Watch(spec.ramp_s, java, app.pid, rig.run_dir / "threads" / f"{slug}.json",
                             fallback_jcmd=[rig.java.home / "bin" / "jcmd"])
        drive = _drive(rig, app, spec, slug, progress, watch,
                       samplers.meters_reader(app.management_url + "/actuator/prometheus"))
    finally:
        app.stop()  # SIGTERM: JFR writes the recording on exit
        forget()
        _unroute(rig, proxies)
    values = _row(row, plan, spec, drive, info, rig, pinned_by_reason(rig.java.jfr, jfr))
    values.update(_write_check(rig.pg, row, drive.measured))
    return values, info


def measure_user_row(rig: Rig, plan: Plan, row: Row, progress: Progress, warmup_s: int
                     ) -> tuple[dict[str, object], dict]:
    """One row of the user's service: a fresh JVM of their jar in the row's thread mode (or the service at
    --url as it runs), a preflight that must succeed — and, for a jar, proves the mode took — then the same load,
    samplers and JFR read-back as a row of vtlab's own service."""
    target = rig.target
    assert target is not None
    slug = dimensions.slug(row)
    folder = rig.run_dir / "k6" / slug
    jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
    jfr.parent.mkdir(parents=True, exist_ok=True)
    jfr.unlink(missing_ok=True)
    java = runtimes.java_for(row.jdk, plan.java_homes)
    virtual = row.thread_mode == "virtual"
    if target.started_by_vtlab:
        app = userservice.start(target, java, virtual, _service_database(rig, target),
                                rig.stub.base_url if rig.stub else None, rig.run_dir / "logs" / f"app-{slug}.log", jfr,
                                rig.core_map["app"], plan.jvm_opts)
    else:
        app = userservice.attach(target)
    forget = procs.on_cleanup(app.stop)
    try:
        spec = load.LoadSpec(app.base_url, row.load_model, users(plan, row), row.target_rps, plan.ramp_s, warmup_s,
                             plan.hold_s, 1, plan.cooldown_s, row.workload, shape=plan.shape(row),
                             script=target.call.entry_script(rig.run_dir / "k6"),
                             script_env=tuple(target.call.k6_env().items()))

        def first_request() -> None:
            if target.call.script:
                userservice.script_preflight(rig.k6, spec, folder)
            else:
                userservice.preflight(app, target.call)

        if app.pid is None:  # a --url service runs the mode the user states: nothing to prove it by
            first_request()
            read_meters, source = userservice.meters(app, target)
        else:
            started = userservice.virtual_threads_started(java, app.pid, first_request, folder)
            read_meters, source = userservice.meters(app, target)
            reading = read_meters() if read_meters else None
            userservice.check_mode(virtual, started, (reading or {}).get("tomcat_threads_config"))
        rig.meter_sources[slug] = source
        # the stall watch reads the service's request counter (Prometheus only): without it, every row would stall
        watch = stalls.Watch(spec.ramp_s, java, app.pid, rig.run_dir / "threads" / f"{slug}.json",
                             fallback_jcmd=[rig.java.home / "bin" / "jcmd"]) \
            if app.pid and source.endswith("/prometheus") else None
        drive = _drive(rig, app, spec, slug, progress, watch, read_meters)
    finally:
        app.stop()  # SIGTERM: JFR writes the recording on exit
        forget()
    info = userservice.runtime_facts(target, java, rig.core_map["app"]) if target.started_by_vtlab else {}
    pinned = pinned_by_reason(rig.java.jfr, jfr) if target.started_by_vtlab else None
    values = _row(row, plan, spec, drive, info, rig, pinned)
    values.update(_write_check(rig.pg, row, drive.measured))
    return values, info


def users(plan: Plan, row: Row) -> int:
    """k6's users for a row: an open-model spike needs users for its peak rate, not only for the base one."""
    shape = plan.shape(row)
    return round(row.concurrency * shape.multiple) if row.load_model == "open" and row.shape == "spike" \
        else row.concurrency


def _service_database(rig: Rig, target: userservice.Target) -> dict[str, str]:
    """Spring's datasource settings for the user's service: a fresh database of vtlab's PostgreSQL for each row
    (the same empty start every row), or the user's --db-url; nothing without either."""
    if target.db == "vtlab":
        assert rig.pg is not None
        credentials = rig.pg.fresh_database(SERVICE_DATABASE)
        return {"SPRING_DATASOURCE_URL": credentials.jdbc_url, "SPRING_DATASOURCE_USERNAME": credentials.user,
                "SPRING_DATASOURCE_PASSWORD": credentials.password}
    return {"SPRING_DATASOURCE_URL": target.db_url} if target.db == "url" and target.db_url else {}


def app_config(row: Row) -> services.AppConfig:
    """The service's settings for a row; the twin takes only the pool size."""
    return services.AppConfig(row.thread_mode == "virtual", row.hikari_pool, row.conn_mode, row.path_mode,
                              row.tomcat_max_threads, row.offload_executor or "platform", row.offload_pool or 50,
                              row.fanout or "sequential", row.pool_impl if row.pool_impl != "r2dbc" else "hikari",
                              row.context, row.context_kb or 64, reactive=row.thread_mode == "webflux",
                              preview=row.workload == "fanout")


def _drive(rig: Rig, app: services.Tier, spec: load.LoadSpec, slug: str, progress: Progress,
           watch: stalls.Watch | None, read_meters: Callable[[], dict[str, float] | None] | None) -> Drive:
    """Run k6 for the row with the CPU and meter samplers beside it; the hold window in monotonic time."""
    log = rig.run_dir / "logs" / f"k6-{slug}.log"
    summary = rig.run_dir / "k6" / f"{slug}.json"
    summary.parent.mkdir(parents=True, exist_ok=True)
    summary.unlink(missing_ok=True)
    series_dir = rig.run_dir / "series"
    series_dir.mkdir(exist_ok=True)
    k6_series = store.k6_path(series_dir, slug)
    constants = rig_constants.CURRENT
    started_unix = time.time()
    runners = load.start_runners(rig.k6, spec, rig.runners, summary, log, rig.core_map["load"], k6_series,
                                 summary.with_name(f"{slug}-dashboard.html") if rig.k6_dashboard else None)
    started = time.monotonic()
    pids = {"app": app.pid, "pg": rig.pg.postmaster_pid() if rig.pg else None,
            "stub": rig.stub.pid if rig.stub else None, "load": tuple(runner.proc.pid for runner in runners),
            "proxy": rig.toxiproxy.pid if rig.toxiproxy else None}
    cpu = samplers.Sampler(constants.cpu_interval_s, samplers.cpu_reader(lambda: pids))
    # a service that exposes no meters (or a --url without --metrics) is sampled for none: its columns stay empty
    meters = samplers.Sampler(constants.meter_interval_s, read_meters or (lambda: None))
    probes = _probes(rig, app)
    cpu.start()
    meters.start()
    try:
        while any(runner.proc.poll() is None for runner in runners):
            liveness.check(probes)  # a dead tier ends the row now, not after k6 hammered a closed port
            early = time.monotonic() - started < spec.duration_s - 5  # runners end within moments of each other
            for runner in runners:
                if len(runners) > 1 and early and runner.proc.poll() is not None:
                    # one runner gone: the row would go on at a share of its load
                    raise procs.TierDied(LOAD, procs.ended(runner.proc.returncode) + " before the others", runner.log)
            progress.tick(started, windows.rate(meters.series, "requests_total"))
            if watch is not None:
                # users waiting and nothing completing (a deadlock): a JSON thread dump, taken while it lasts
                watch.observe(time.monotonic() - started, windows.recent_rate(meters.series, "requests_total",
                                                                              time.monotonic()))
            if time.monotonic() - started > spec.duration_s + 120:
                raise RuntimeError(f"k6 did not finish in time; see {log}")
            time.sleep(1)
        liveness.check(probes)
    finally:
        # every reading on the clock of k6's start: the row and any later re-cut compute on the same numbers
        cpu_series, meter_series = store.since(cpu.stop(), started), store.since(meters.stop(), started)
        for runner in runners:
            if runner.proc.poll() is None:
                procs.terminate(runner.proc)
            ownership.release(runner.proc.pid)  # k6 ends on its own: cross it off like a stopped tier
        store.write_samples(store.samples_path(series_dir, slug), cpu_series, meter_series, started_unix)
    for runner in runners:
        if not runner.summary.exists() or not runner.series.exists():
            raise procs.TierDied(LOAD, procs.ended(runner.proc.returncode) + " without a summary", runner.log)
    if len(runners) > 1:  # the row's one series: every runner's requests on one clock
        store.merge([runner.series for runner in runners], k6_series)
    # The CSV's k6 figures come from the kept series (a re-cut computes them the same way); the summaries
    # vouch that k6 ended and carry the run-long count of acknowledged writes.
    exit_code = max((runner.proc.returncode for runner in runners), key=abs)
    writes = sum(load.read_summary(runner.summary, exit_code).acknowledged_writes for runner in runners)
    requests = store.read_k6(k6_series, store.k6_start_unix_s(k6_series) - started_unix)
    measured = store.load_result(requests, exit_code, acknowledged_writes=writes)
    hold_start = store.hold_start_s(requests, spec.hold_start_s)
    return Drive(measured, cpu_series, meter_series, pids, hold_start, hold_start + constants.k6_start_slack_s,
                 hold_start + spec.hold_s, requests,
                 watch.record(rig.run_dir) if watch else {"stall": "", "thread_dump": ""})


def _probes(rig: Rig, app: services.Tier) -> list[liveness.Probe]:
    """Every tier the row's numbers depend on, the database included."""
    probes = []
    if app.proc is not None:
        probes.append(liveness.child(SERVICE, app.proc, app.log))
    if rig.stub is not None:
        probes.append(liveness.child(STUB, rig.stub.proc, rig.stub.log))
    if rig.pg is not None:
        probes.append(liveness.daemon(DATABASE, rig.pg.postmaster_pid, rig.pg.log))
    if rig.toxiproxy is not None:
        probes.append(liveness.child(PROXY, rig.toxiproxy.proc, rig.toxiproxy.log))
    return probes


def _route(rig: Rig, row: Row, slug: str) -> tuple[dict[str, str], str, list[str]]:
    """The database environment and stub URL the service gets: direct on loopback, or through a
    Toxiproxy proxy adding the row's latency each way. Returns them with the proxies to remove."""
    db_env = rig.pg.credentials().service_env()
    stub_url = rig.stub.base_url
    proxies: list[str] = []
    if row.db_latency_ms or row.db_jitter_ms:
        assert rig.toxiproxy is not None
        port = rig.toxiproxy.add(f"pg-{slug}", PG_HOST, rig.pg.port, row.db_latency_ms, row.db_jitter_ms)
        proxies.append(f"pg-{slug}")
        db_env["DB_URL"] = db_env["DB_URL"].replace(f"//{PG_HOST}:{rig.pg.port}/", f"//{HOST}:{port}/")
    if row.downstream_latency_ms or row.downstream_jitter_ms:
        assert rig.toxiproxy is not None
        port = rig.toxiproxy.add(f"stub-{slug}", STUB_HOST, STUB_PORT, row.downstream_latency_ms,
                                 row.downstream_jitter_ms)
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


def _row(row: Row, plan: Plan, spec: load.LoadSpec, drive: Drive, info: dict, rig: Rig,
         pinned: dict[str, int] | None) -> dict[str, object]:
    return row_values(row, plan, spec, drive, info, pinned, rig.toxiproxy is not None, rig.k6_version,
                      cores.describe_map(rig.core_map))


def row_values(row: Row, plan: Plan, spec: load.LoadSpec, drive: Drive, info: dict, pinned: dict[str, int] | None,
               proxy: bool, k6_version: str, placement: str) -> dict[str, object]:
    """The CSV line: the row's dimensions, then what was measured during the hold, then the context
    (`placement`: where the tiers ran, a core map or a cluster). Columns a row has no figure for are empty."""
    hold = holdstats.Hold(drive.measured, drive.cpu, drive.meters, drive.hold_start, drive.hold_end, plan.hold_s,
                          tuple(tier for tier, pid in drive.pids.items() if pid), proxy)
    return {**{column: "" for column in table.COLUMNS}, "ts_iso": now(), **dimensions.values(row),
            **holdstats.columns(hold), **_pinning(pinned), **_conditions(plan, spec, info, k6_version, placement),
            **drive.stall, **_shape_figures(spec, drive), "failed_tier": "", "failure": "", "failure_log": ""}


def _shape_figures(spec: load.LoadSpec, drive: Drive) -> dict[str, object]:
    """The shape's settings and what it measured, from the row's series (on their clock: k6's start)."""
    return {"spike_multiple": spec.shape.multiple if spec.shape.name == "spike" else "",
            "spike_s": spec.shape.spike_s if spec.shape.name == "spike" else "",
            "step_count": spec.shape.steps if spec.shape.name == "steps" else "",
            **shapestats.figures(spec.shape, drive.k6, drive.meters, drive.cpu, spec.load, drive.k6_hold_start,
                                 spec.hold_s)}


def _pinning(pinned: dict[str, int] | None) -> dict[str, object]:
    """JFR's jdk.VirtualThreadPinned events of the whole row, by reason; empty when unreadable."""
    return {"pinned_events": "" if pinned is None else sum(pinned.values()),
            "pinned_reasons": "" if pinned is None else cells.format_reasons(pinned)}


def _conditions(plan: Plan, spec: load.LoadSpec, info: dict, k6_version: str, placement: str) -> dict[str, object]:
    """What the row ran with: phases, the service's runtime as it reported itself, versions, cores."""
    return {"ramp_s": plan.ramp_s, "warmup_s": spec.warmup_s, "hold_s": plan.hold_s, "cooldown_s": plan.cooldown_s,
            "jfr_pinned_threshold_ms": rig_constants.CURRENT.jfr_pinned_threshold_ms,
            "app_cpus": info.get("availableProcessors", ""),
            "vt_parallelism": info.get("virtualThreadSchedulerParallelism", ""),
            "jdk_version": info.get("jdkVersion", ""), "spring_boot_version": info.get("springBootVersion", ""),
            "hikari_version": info.get("pool", {}).get("version", ""), "k6_version": k6_version,
            "core_map": placement}


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def default_run_dir(root: Path) -> Path:
    return root / dt.datetime.now().strftime("%Y%m%d-%H%M%S")

