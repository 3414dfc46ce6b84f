"""The user's service (a jar or a URL) as the loop's target: PostgreSQL only when it asks for vtlab's database,
the stub only when its settings name {stub_url}; per row a fresh JVM of their jar in the row's thread mode (or the
service at --url as it runs), a preflight that must succeed — and, for a jar, proves the mode took — then the same
load, samplers and JFR read-back as a row of vtlab's own service."""

from __future__ import annotations

from pathlib import Path

from vtlab.core import dimensions
from vtlab.measure import csvrow, drive, load, stalls, tiers
from vtlab.measure.target import Reporter, RowRefused, Turn
from vtlab.plan.planner import Plan
from vtlab.rig import procs, runtimes
from vtlab.targets import local, useraot, userrow
from vtlab.targets.userservice import Target, TargetError

# The database a user's service gets in vtlab's PostgreSQL (--db), made afresh for every row.
SERVICE_DATABASE = "service"


class UserService:
    """Measures the user's service (Revives, OnThisMachine)."""

    def __init__(self, target: Target, core_map: dict[str, set[int]], doctor: list[dict[str, str]] | None = None,
                 k6_dashboard: bool = False, profiles: tuple[str, ...] = ()):
        self.target, self.core_map, self.doctor, self.k6_dashboard = target, core_map, doctor or [], k6_dashboard
        self.profiles = profiles  # async-profiler's kinds for each row's hold (empty: none)
        self.meter_sources: dict[str, str] = {}  # each row's slug -> where its meters came from ("": none)
        self.service: dict | None = None  # the first measured row's runtime facts

    def prepare(self, plan: Plan, run_dir: Path) -> None:
        self.plan = plan
        self.rig = local.user_rig(plan, run_dir, self.core_map, self.k6_dashboard, self.target.db == "vtlab",
                                  self.target.uses_stub, self.target.local_database_port())
        self.rig.profiler = local.profiler(self.profiles, self.rig)
        self.machine = local.describe(self.rig)

    def describe(self) -> dict[str, object]:
        described = self.target.describe()
        if self.meter_sources:
            described["meters"] = dict(self.meter_sources)  # per row: its Prometheus, its actuator, or none
        return {**self.machine, "doctor": self.doctor, "k6_dashboard": self.k6_dashboard,
                "profiles": list(self.profiles),
                "target": described, **({"service": self.service} if self.service is not None else {})}

    def own_pids(self) -> set[int]:
        return self.rig.own_pids()

    def measure(self, turn: Turn, progress: Reporter) -> dict[str, object]:
        """One row; a row after the first that would not start or answer fails (the run goes on), while the
        first one's failure stops the run: the jar, its settings or the call are wrong, not the moment."""
        try:
            values, info = self._measure(turn, progress)
        except TargetError as err:
            if turn.index == 0:
                raise
            log = self.rig.run_dir / "logs" / f"app-{dimensions.slug(turn.row)}.log"
            raise RowRefused(tiers.SERVICE, str(err).splitlines()[0], log if log.exists() else None, err) from err
        if self.service is None:
            self.service = info
        return values

    def revive(self, died: procs.TierDied) -> None:
        self.rig.revive(died.tier, False)  # --keep is refused with a user's service

    def close(self) -> None:
        """Nothing: the tiers are stopped with every process of the run (procs.stop_all)."""

    def _measure(self, turn: Turn, progress: Reporter) -> tuple[dict[str, object], dict]:
        rig, plan, row, target = self.rig, self.plan, turn.row, self.target
        slug = dimensions.slug(row)
        folder = rig.run_dir / "k6" / slug
        jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
        jfr.parent.mkdir(parents=True, exist_ok=True)
        jfr.unlink(missing_ok=True)
        java = runtimes.java_for(row.jdk, plan.java_homes)
        virtual = row.thread_mode == "virtual"
        aot_log = rig.run_dir / "logs" / f"aot-{slug}.log"
        stub_url = rig.stub.base_url if rig.stub else None
        options = plan.service_options(row)
        if target.started_by_vtlab:
            start = (useraot.start_for(rig, target, java, virtual, self._database(), stub_url, options,
                                       plan.users(row), rig.run_dir / "logs", aot_log)
                     if plan.uses_aot(row) else useraot.WITHOUT)
            app = userrow.start(target, java, virtual, self._database(), stub_url,
                                rig.run_dir / "logs" / f"app-{slug}.log", jfr, rig.core_map["app"], options,
                                start.jar, start.flags)
        else:
            app = userrow.attach(target)
        forget = procs.on_cleanup(app.stop)
        try:
            spec = load.LoadSpec(app.base_url, row.load_model, plan.users(row), row.target_rps, plan.ramp_s,
                                 turn.warmup_s, plan.hold_s, 1, plan.cooldown_s, row.workload, shape=plan.shape(row),
                                 script=target.call.entry_script(rig.run_dir / "k6"),
                                 script_env=tuple(target.call.k6_env().items()), settles=plan.settles(row))

            def first_request() -> None:
                if target.call.script:
                    userrow.script_preflight(rig.k6, spec, folder)
                else:
                    userrow.preflight(app, target.call)

            if app.pid is None:  # a --url service runs the mode the user states: nothing to prove it by
                first_request()
                read_meters, source = userrow.meters(app, target)
            else:
                started = userrow.virtual_threads_started(java, app.pid, first_request, folder)
                read_meters, source = userrow.meters(app, target)
                reading = read_meters() if read_meters else None
                userrow.check_mode(virtual, started, (reading or {}).get("tomcat_threads_config"))
            self.meter_sources[slug] = source
            # the stall watch reads the service's request counter (Prometheus only): without it, every row would stall
            watch = stalls.Watch(spec.ramp_s, java, app.pid, rig.run_dir / "threads" / f"{slug}.json",
                                 fallback_jcmd=[rig.java.home / "bin" / "jcmd"]) \
                if app.pid and source.endswith("/prometheus") else None
            driven = drive.drive(rig, app, spec, slug, progress, watch, read_meters,
                                 rig.jcmds(java))
        finally:
            app.stop()  # SIGTERM: JFR writes the recording on exit
            forget()
        info = userrow.runtime_facts(target, java, rig.core_map["app"]) if target.started_by_vtlab else {}
        values = csvrow.local_row_values(rig, row, plan, spec, driven, info, jfr if target.started_by_vtlab else None,
                                         app.log)
        if target.started_by_vtlab:
            values["aot_cache"] = start.outcome(aot_log)
        return values, info

    def _database(self) -> dict[str, str]:
        """Spring's datasource settings for the user's service: a fresh database of vtlab's PostgreSQL for each row
        (the same empty start every row), or the user's --db-url; nothing without either."""
        if self.target.db == "vtlab":
            assert self.rig.pg is not None
            credentials = self.rig.pg.fresh_database(SERVICE_DATABASE)
            return {"SPRING_DATASOURCE_URL": credentials.jdbc_url, "SPRING_DATASOURCE_USERNAME": credentials.user,
                    "SPRING_DATASOURCE_PASSWORD": credentials.password}
        return {"SPRING_DATASOURCE_URL": self.target.db_url} if self.target.db == "url" and self.target.db_url else {}
