"""vtlab's own service as the loop's target: the seeded PostgreSQL and the stub kept up for the run (and
Toxiproxy when a row adds network latency), a fresh service JVM per row in the row's configuration, checked
against it, loaded with the samplers beside it, its JFR recording read back and its writes counted."""

from __future__ import annotations

from pathlib import Path

from vtlab.core import constants as rig_constants
from vtlab.core import cores, dimensions
from vtlab.core.settings import APP_PORT, HOST, PG_HOST, STUB_HOST, STUB_PORT
from vtlab.measure import drive, load, record, samplers, stalls, tiers
from vtlab.measure.target import Reporter, Turn
from vtlab.plan.expansion import Plan, Row
from vtlab.rig import build, machine, netdelay, ownership, postgres, procs, runtimes, services


class OwnService:
    """Measures vtlab's own service (Revives, OnThisMachine)."""

    def __init__(self, keep: bool, core_map: dict[str, set[int]], doctor: list[dict[str, str]] | None = None,
                 k6_dashboard: bool = False):
        self.keep, self.core_map, self.doctor, self.k6_dashboard = keep, core_map, doctor or [], k6_dashboard
        self.service: dict | None = None  # the first measured row's runtime-info: the defaults the service runs with

    def prepare(self, plan: Plan, run_dir: Path) -> None:
        """The seeded PostgreSQL, the stub and, when a row adds latency, Toxiproxy."""
        java = tiers.find_java(plan, run_dir)
        self.plan = plan
        pg = postgres.main_instance()
        # A server the user started (`vtlab db start`) stays up; one we start, we stop.
        if not (pg.initialised and pg.running()) and not self.keep:
            procs.on_cleanup(pg.stop)
        build.setup(pg, pg_cpus=self.core_map["pg"])
        if self.keep:
            ownership.release(pg.postmaster_pid())  # the user's now, like one `vtlab db start` started
        k6 = build.build_k6()
        k6_version = load.k6_version(k6)
        stub_settings = (plan.stub_delay_ms, plan.stub_jitter_ms)
        stub = tiers.start_stub(java, stub_settings, run_dir, self.core_map, self.keep)
        if self.keep:
            print(f"vtlab: --keep: the stub (pid {stub.pid}) and PostgreSQL stay up after the run")
        self.rig = tiers.Rig(java, k6, k6_version, pg, stub, stub_settings, self.core_map, run_dir,
                             k6_dashboard=self.k6_dashboard, runners=plan.runners)
        self.max_order_id, self.max_customer_id = pg.max_seeded_order_id(), pg.max_customer_id()
        if any(_delayed(row) for row in plan.rows):
            # Shares the cores with the tiers it sits between; its CPU is sampled as its own tier.
            self.rig.toxiproxy = netdelay.start(build.build_toxiproxy(), run_dir / "logs" / "toxiproxy.log",
                                                self.core_map["stub"])
        self.machine = machine.collect(java.java, k6_version, cores.describe_map(self.core_map))

    def describe(self) -> dict[str, object]:
        return {**self.machine, "rig": rig_constants.record(), "doctor": self.doctor, "k6_dashboard": self.k6_dashboard,
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
        config = app_config(row)
        java = runtimes.java_for(row.jdk, plan.java_homes)  # the row's runtime; the stub stays on the build JDK
        db_env, stub_url, proxies = self._route(row, slug)
        try:
            app = services.start_app(java, APP_PORT, config, db_env, stub_url, rig.run_dir / "logs" / f"app-{slug}.log",
                                     jfr, rig.core_map["app"], plan.jvm_opts)
        except BaseException:
            self._unroute(proxies)
            raise
        forget = procs.on_cleanup(app.stop)
        assert rig.pg is not None
        if row.workload == "write":
            rig.pg.discard_written_orders()  # count from zero: only this row's writes
        try:
            info = services.runtime_info(app)
            problems = services.check_effective(info, config)
            if runtimes.feature(info.get("jdkVersion", "")) != row.jdk:
                problems.append(f"jdk: asked {row.jdk}, service runs {info.get('jdkVersion')}")
            if problems:
                raise RuntimeError("the service does not run the row's configuration: " + "; ".join(problems))
            spec = load.LoadSpec(app.base_url, row.load_model, drive.users(plan, row), row.target_rps, plan.ramp_s,
                                 turn.warmup_s, plan.hold_s, self.max_order_id, plan.cooldown_s, row.workload,
                                 row.sleep_ms, row.cpu_work, self.max_customer_id, plan.shape(row))
            watch = stalls.Watch(spec.ramp_s, java, app.pid, rig.run_dir / "threads" / f"{slug}.json",
                                 fallback_jcmd=[rig.java.home / "bin" / "jcmd"])
            driven = drive.drive(rig, app, spec, slug, progress, watch,
                                 samplers.meters_reader(app.management_url + "/actuator/prometheus"))
        finally:
            app.stop()  # SIGTERM: JFR writes the recording on exit
            forget()
            self._unroute(proxies)
        values = record.row_values(row, plan, spec, driven, info, samplers.pinned_by_reason(rig.java.jfr, jfr),
                                   rig.toxiproxy is not None, rig.k6_version, cores.describe_map(rig.core_map))
        values.update(record.write_check(rig.pg, row, driven.measured))
        if self.service is None:
            self.service = info
        return values

    def revive(self, died: procs.TierDied) -> None:
        self.rig.revive(died.tier, self.keep)

    def close(self) -> None:
        """Nothing: the tiers are stopped with every process of the run (procs.stop_all), or kept (--keep)."""

    def _route(self, row: Row, slug: str) -> tuple[dict[str, str], str, list[str]]:
        """The database environment and stub URL the service gets: direct on loopback, or through a
        Toxiproxy proxy adding the row's latency each way. Returns them with the proxies to remove."""
        rig = self.rig
        assert rig.pg is not None and rig.stub is not None
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

    def _unroute(self, proxies: list[str]) -> None:
        for name in proxies:
            if self.rig.toxiproxy is not None:
                self.rig.toxiproxy.remove(name)


def app_config(row: Row) -> services.AppConfig:
    """The service's settings for a row; the twin takes only the pool size."""
    return services.AppConfig(row.thread_mode == "virtual", row.hikari_pool, row.conn_mode, row.path_mode,
                              row.tomcat_max_threads, row.offload_executor or "platform", row.offload_pool or 50,
                              row.fanout or "sequential", row.pool_impl if row.pool_impl != "r2dbc" else "hikari",
                              row.context, row.context_kb or 64, reactive=row.thread_mode == "webflux",
                              preview=row.workload == "fanout")


def _delayed(row: Row) -> bool:
    return bool(row.db_latency_ms or row.db_jitter_ms or row.downstream_latency_ms or row.downstream_jitter_ms)
