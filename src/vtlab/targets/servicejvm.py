"""vtlab's own service JVM, for a row or for the steps of a staircase: started in the row's configuration (sized for
the largest step a staircase's JVM will see), checked against it through its runtime-info, and stopped with what it
was routed through. The row loop's target (targets.own) keeps one across the steps of a staircase."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vtlab.core.dimensions import Row
from vtlab.core.settings import APP_HOST, APP_PORT
from vtlab.measure import settle, stalls
from vtlab.measure.tiers import Rig
from vtlab.plan import planner
from vtlab.rig import procs, runtimes, services
from vtlab.targets import aotcache


@dataclass
class ServiceJvm:
    """A service JVM of the run and what it was started for: a row of its own, or the steps of a staircase (the
    rows of one family, planner.jvm_family), each a row measured on it in rising load."""
    family: tuple[str, ...]
    app: services.Tier
    start: aotcache.Start
    info: dict
    proxies: list[str]
    forget: Callable[[], None]
    recording: Path  # the JVM's own JFR recording, written when it exits
    slug: str        # the first row's: the JVM's logs are named for it
    steps: int = 0   # rows measured on it so far
    prewarmed_users: int = 0  # the users it ran at before its first step (targets.prewarm); 0: none
    jit_burst: settle.Burst | None = None  # its JIT's busiest window so far (pre-warm, steps): the warm-up's reference

    @property
    def port(self) -> int:
        return int(self.app.base_url.rsplit(":", 1)[1])

    def alive(self) -> bool:
        return self.app.proc is not None and self.app.proc.poll() is None

    def stop(self, rig: Rig) -> None:
        """SIGTERM (JFR writes the JVM's recording on exit), then its routes removed."""
        try:
            self.app.stop()
        finally:
            self.forget()
            rig.unroute(self.proxies)


def start(rig: Rig, plan: planner.Plan, row: Row, slug: str, java: runtimes.Java, jfr: Path,
          stepped: bool, taken: set[int] | frozenset[int] = frozenset()) -> ServiceJvm:
    """A fresh service JVM for `row` (a staircase's first step where `stepped`), checked to run the row's
    configuration; stopped again if it does not. It listens on the rig's port, or on a free one where a paired plan's
    other arm's JVM holds that (`taken`: the ports of the JVMs still up). Its JFR recording is the row's `jfr`, or,
    for a staircase, a file beside it that the JVM writes on exit (each step dumps its own window: measure.jfrdump)."""
    db_env, stub_url, proxies = rig.route(row, slug)
    aot_log = rig.run_dir / "logs" / f"aot-{slug}.log"
    users = plan.family_peak_users(row)  # a staircase's JVM is sized for its largest step
    config, options = app_config(row, users, plan.downstream_http), plan.service_options(row)
    recording = jfr.with_suffix(".jvm.jfr") if stepped else jfr
    recording.unlink(missing_ok=True)
    port = APP_PORT if APP_PORT not in taken else procs.free_port(APP_HOST)
    try:
        start_from = (aotcache.start_for(rig, java, config, options, row.workload, plan.users(row),
                                         (db_env, stub_url), rig.run_dir / "logs", aot_log)
                      if plan.uses_aot(row) else aotcache.WITHOUT)
        app = services.start_app(java, port, config, db_env, stub_url, rig.run_dir / "logs" / f"app-{slug}.log",
                                 recording, rig.core_map["app"], options, start_from.jar, start_from.flags)
    except BaseException:
        rig.unroute(proxies)
        raise
    jvm = ServiceJvm(plan.family(row), app, start_from, {}, proxies, procs.on_cleanup(app.stop), recording,
                     slug)
    try:
        info = services.runtime_info(app)
        problems = mismatches(info, row, users, plan.downstream_http)
        if runtimes.feature(info.get("jdkVersion", "")) != row.jdk:
            problems.append(f"jdk: asked {row.jdk}, service runs {info.get('jdkVersion')}")
        if problems:
            raise RuntimeError("the service does not run the row's configuration: " + "; ".join(problems))
    except BaseException:
        jvm.stop(rig)
        raise
    jvm.info = info
    return jvm


def run_as(jvm: ServiceJvm, row: Row, users: int, downstream_http: str = "http1") -> None:
    """The row's connection mode on a JVM whose step before ran another (planner.SWITCHED_AT_RUN_TIME): switched
    through the service's rig-only endpoint, then the whole configuration read back from runtime-info and refused
    as a JVM that started wrong would be."""
    if jvm.info.get("connMode") == row.conn_mode:
        return
    services.switch_conn_mode(jvm.app, row.conn_mode)
    info = services.runtime_info(jvm.app)
    problems = mismatches(info, row, users, downstream_http)
    if problems:
        raise RuntimeError("the service does not run the row's configuration after the switch: " + "; ".join(problems))
    jvm.info = info


def app_config(row: Row, users: int, downstream_http: str = "http1") -> services.AppConfig:
    """The service's settings for a row of `users`, calling the stub with `downstream_http`; the twin takes only the
    pool size."""
    max_connections, accept_count = services.connection_limits(users)
    return services.AppConfig(row.thread_mode == "virtual", row.hikari_pool, row.conn_mode, row.path_mode,
                              row.tomcat_max_threads, row.offload_executor or "platform", row.offload_pool or 50,
                              row.fanout or "sequential", row.pool_impl if row.pool_impl != "r2dbc" else "hikari",
                              row.context, row.context_kb or 64, reactive=row.thread_mode == "webflux",
                              preview=row.workload == "fanout", max_connections=max_connections,
                              accept_count=accept_count, heap_mb=services.service_heap_mb(users),
                              downstream_http=downstream_http, http_client=row.http_client,
                              client_pool=row.client_pool, server=row.server)


def mismatches(info: dict, row: Row, users: int, downstream_http: str = "http1") -> list[str]:
    """How a running service's runtime-info differs from the row's configuration (empty: it runs the row)."""
    return services.check_effective(info, app_config(row, users, downstream_http))


def stall_watch(app: services.Tier, rig: Rig, quiet_s: float, java: runtimes.Java, slug: str) -> stalls.Watch:
    """A row's stall watch on vtlab's service, quiet for its first `quiet_s` (the ramp and one request's wait: on an
    8 s downstream nothing can complete sooner), its thread dump kept as the row's."""
    return stalls.Watch(quiet_s, java, app.pid, rig.run_dir / "threads" / f"{slug}.json",
                        fallback_jcmd=[rig.java.home / "bin" / "jcmd"])
