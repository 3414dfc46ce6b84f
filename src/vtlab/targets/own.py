"""vtlab's own service as the loop's target: the seeded PostgreSQL and the stub kept up for the run (and
Toxiproxy when a row adds network latency), a fresh service JVM per row in the row's configuration, checked
against it, loaded with the samplers beside it, its JFR recording read back and its writes counted."""

from __future__ import annotations

from pathlib import Path

from vtlab.core import dimensions
from vtlab.core.settings import APP_PORT
from vtlab.measure import csvrow, drive, load, samplers, stalls
from vtlab.measure.target import Reporter, Turn
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan
from vtlab.rig import procs, runtimes, services
from vtlab.targets import aotcache, local


class OwnService:
    """Measures vtlab's own service (Revives, OnThisMachine)."""

    def __init__(self, keep: bool, core_map: dict[str, set[int]], doctor: list[dict[str, str]] | None = None,
                 k6_dashboard: bool = False, profiles: tuple[str, ...] = ()):
        self.keep, self.core_map, self.doctor, self.k6_dashboard = keep, core_map, doctor or [], k6_dashboard
        self.profiles = profiles  # async-profiler's kinds for each row's hold (empty: none)
        self.service: dict | None = None  # the first measured row's runtime-info: the defaults the service runs with

    def prepare(self, plan: Plan, run_dir: Path) -> None:
        self.plan = plan
        self.rig = local.own_rig(plan, run_dir, self.core_map, self.keep, self.k6_dashboard)
        self.rig.profiler = local.profiler(self.profiles, self.rig)
        self.machine = local.describe(self.rig)

    def describe(self) -> dict[str, object]:
        return {**self.machine, "doctor": self.doctor, "k6_dashboard": self.k6_dashboard,
                "profiles": list(self.profiles),
                **({"service": self.service} if self.service is not None else {})}

    def own_pids(self) -> set[int]:
        return self.rig.own_pids()

    def measure(self, turn: Turn, progress: Reporter) -> dict[str, object]:
        """One row: a fresh service with the row's configuration, the load with samplers beside it, the JFR
        recording read back."""
        rig, plan, row = self.rig, self.plan, turn.row
        slug = dimensions.slug(row)
        jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
        jfr.parent.mkdir(parents=True, exist_ok=True)
        jfr.unlink(missing_ok=True)
        java = runtimes.java_for(row.jdk, plan.java_homes)  # the row's runtime; the stub stays on the build JDK
        db_env, stub_url, proxies = rig.route(row, slug)
        aot_log = rig.run_dir / "logs" / f"aot-{slug}.log"
        config, options = app_config(row, plan.peak_users(row), plan.downstream_http), plan.service_options(row)
        try:
            start = (aotcache.start_for(rig, java, config, options, row.workload, plan.users(row),
                                        (db_env, stub_url), rig.run_dir / "logs", aot_log)
                     if plan.uses_aot(row) else aotcache.WITHOUT)
            app = services.start_app(java, APP_PORT, config, db_env, stub_url,
                                     rig.run_dir / "logs" / f"app-{slug}.log", jfr, rig.core_map["app"], options,
                                     start.jar, start.flags)
        except BaseException:
            rig.unroute(proxies)
            raise
        forget = procs.on_cleanup(app.stop)
        assert rig.pg is not None
        if row.workload == "write":
            rig.pg.discard_written_orders()  # count from zero: only this row's writes
        try:
            info = services.runtime_info(app)
            problems = mismatches(info, row, plan.peak_users(row), plan.downstream_http)
            if runtimes.feature(info.get("jdkVersion", "")) != row.jdk:
                problems.append(f"jdk: asked {row.jdk}, service runs {info.get('jdkVersion')}")
            if problems:
                raise RuntimeError("the service does not run the row's configuration: " + "; ".join(problems))
            spec = load.LoadSpec(app.base_url, row.load_model, plan.users(row), row.target_rps, plan.ramp_s,
                                 turn.warmup_s, plan.hold_s, rig.max_order_id, plan.cooldown_s, row.workload,
                                 row.sleep_ms, row.cpu_work, rig.max_customer_id, plan.shape(row),
                                 settles=plan.settles(row))
            watch = stalls.Watch(spec.ramp_s, java, app.pid, rig.run_dir / "threads" / f"{slug}.json",
                                 fallback_jcmd=[rig.java.home / "bin" / "jcmd"])
            driven = drive.drive(rig, app, spec, slug, progress, watch,
                                 samplers.meters_reader(app.management_url + "/actuator/prometheus"),
                                 rig.jcmds(java))
        finally:
            app.stop()  # SIGTERM: JFR writes the recording on exit
            forget()
            rig.unroute(proxies)
        values = {**csvrow.local_row_values(rig, row, plan, spec, driven, info, jfr, app.log),
                  "aot_cache": start.outcome(aot_log)}
        if self.service is None:
            self.service = info
        return values

    def revive(self, died: procs.TierDied) -> None:
        self.rig.revive(died.tier, self.keep)

    def close(self) -> None:
        """Nothing: the tiers are stopped with every process of the run (procs.stop_all), or kept (--keep)."""


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
