"""The user's service (a jar or a URL) as the loop's target: PostgreSQL only when it asks for vtlab's database,
the stub only when its settings name {stub_url}; a JVM of their jar in the row's thread mode — fresh for a row, or
kept warm for the steps of a staircase (rows differing only in load), as vtlab's own service is — or the service at
--url as it runs; a preflight that must succeed (on a JVM's first row it proves the mode took), then the same load,
samplers and JFR read-back as a row of vtlab's own service. A staircase's steps share the fresh database its JVM
was started with."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vtlab.core import dimensions
from vtlab.core.dimensions import Row
from vtlab.measure import csvrow, drive, jfrdump, load
from vtlab.measure.target import Reporter, Turn
from vtlab.plan import planner
from vtlab.rig import procs, runtimes
from vtlab.targets import inturns, local, userjvm, userrow
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
        # the user's jar's JVMs, kept across their staircases' steps by family: one, or a paired plan's two arms
        self.jvms: dict[tuple[str, ...], userjvm.UserJvm] = {}

    def prepare(self, plan: planner.Plan, run_dir: Path) -> None:
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
            raise userrow.refused(self.rig.run_dir, turn, err) from err
        if self.service is None:
            self.service = info
        return values

    def measure_point(self, point: list[Turn], progress: Reporter) -> list[dict[str, object]]:
        """A paired point's blocks in turns (targets.inturns): each block's row a step of its arm's JVM of the jar. A
        JVM that would not start or answer fails the point as it fails a row (the run's first stops the run)."""
        rig, plan, target = self.rig, self.plan, self.target
        counted: dict[int, dict[str, int] | None] = {}  # each arm's JVM's (by id) count queries before the point

        def ready(turns: Sequence[Turn]) -> list[inturns.Armed]:
            armed: list[inturns.Armed] = []
            try:
                for turn in turns:  # a jar is not pre-warmed (userjvm.JAR_PREWARM): nothing to do together
                    jvm, spec, log_from = self._ready(turn.row, turn.position, turn.warmup_s)
                    armed.append(inturns.Armed(jvm, jvm.app, spec, jvm.read_meters, log_from))
                    counted[id(jvm)] = self._counted(jvm)
            except BaseException:
                for made in armed:
                    self._stop_jvm(made.jvm)
                raise
            return armed

        try:
            blocks = inturns.take(rig, plan, point, progress, ready, self._stop_jvm)
        except TargetError as err:
            if point[0].index == 0:
                raise
            raise userrow.refused(rig.run_dir, point[0], err) from err
        # an arm's writes over the point: its k6 ran across all its blocks
        writes = {id(block.armed.jvm): self._writes(block.armed.jvm, counted.get(id(block.armed.jvm)),
                                                    userrow.requests_of(block.arm_series))
                  for block in blocks if counted.get(id(block.armed.jvm)) is not None}
        rows = []
        for block in blocks:
            jvm, row = block.armed.jvm, block.turn.row
            self.meter_sources[dimensions.slug(row)] = jvm.meter_source
            info = userrow.runtime_facts(target, runtimes.java_for(row.jdk, plan.java_homes), rig.core_map["app"])
            rows.append({**block.row(rig, plan, info, userjvm.aot_log(rig, jvm.slug)), **writes.get(id(jvm), {})})
            if self.service is None:
                self.service = info
        return rows

    def revive(self, died: procs.TierDied) -> None:
        proxy = self.rig.toxiproxy
        self.rig.revive(died.tier, False)  # --keep is refused with a user's service
        if self.rig.toxiproxy is not proxy:
            # a new Toxiproxy has none of the old one's proxies: the JVMs kept for their next steps lost their database
            for jvm in list(self.jvms.values()):
                jvm.proxies = []  # gone with their Toxiproxy
                self._stop_jvm(jvm)

    def close(self) -> None:
        """The staircases' JVMs still up; the other tiers are stopped with every process of the run
        (procs.stop_all)."""
        for jvm in list(self.jvms.values()):
            self._stop_jvm(jvm)

    def _measure(self, turn: Turn, progress: Reporter) -> tuple[dict[str, object], dict]:
        rig, plan, row, target = self.rig, self.plan, turn.row, self.target
        partner = plan.partner(turn.position)  # a paired plan's other arm: up and proven before the pair's first block
        if (partner is not None and partner > turn.position and target.started_by_vtlab
                and plan.family(plan.rows[partner]) not in self.jvms):
            self._ready(plan.rows[partner], partner, turn.warmup_s)
        slug = dimensions.slug(row)
        jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
        java = runtimes.java_for(row.jdk, plan.java_homes)
        stepped = target.started_by_vtlab and plan.steps_on_one_jvm(row)
        jvm, spec, log_from = self._ready(row, turn.position, turn.warmup_s)
        before = self._counted(jvm)  # after its preflight and pre-warm, which write too
        jvm.steps += 1
        app = jvm.app
        try:
            self.meter_sources[slug] = jvm.meter_source
            watch = userjvm.stall_watch(jvm, rig, spec, java, slug)
            driven, window = jfrdump.recorded(
                lambda: drive.drive(rig, app, spec, slug, progress, watch, jvm.read_meters, rig.jcmds(java),
                                    jvm.jit_burst),
                rig.jcmds(java), app.pid, jfr, stepped)
        except BaseException:
            self._stop_jvm(jvm)
            raise
        jvm.jit_burst = driven.jit_burst  # the next step's warm-up judges its JIT against the JVM's busiest window
        if not (stepped and plan.next_step_follows(turn.position)):
            self._stop_jvm(jvm)  # SIGTERM: a JVM of its own writes its recording on exit, the row's
        info = userrow.runtime_facts(target, java, rig.core_map["app"]) if target.started_by_vtlab else {}
        values = csvrow.local_row_values(rig, row, plan, spec, driven, info, jfr if target.started_by_vtlab else None,
                                         app.log, log_from, window if stepped else None)
        values.update(self._writes(jvm, before, driven.k6.requests))
        if target.started_by_vtlab:
            values["aot_cache"] = jvm.start.outcome(userjvm.aot_log(rig, jvm.slug))
            values["jvm_step"] = jvm.steps
            values["prewarm_users"] = jvm.prewarmed_users or ""
        return values, info

    def _ready(self, row: Row, position: int, warmup_s: int) -> tuple[userjvm.UserJvm, load.LoadSpec, int]:
        """The JVM the row runs on, its preflight passed (on a fresh JVM proving its thread mode) and pre-warmed where
        due, with the row's load on it and where the row's lines begin in its log."""
        rig, plan, target = self.rig, self.plan, self.target
        slug = dimensions.slug(row)
        folder = rig.run_dir / "k6" / slug
        jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
        jfr.parent.mkdir(parents=True, exist_ok=True)
        jfr.unlink(missing_ok=True)
        java = runtimes.java_for(row.jdk, plan.java_homes)
        stepped = target.started_by_vtlab and plan.steps_on_one_jvm(row)
        jvm = self._jvm_for(row, slug, java, jfr, stepped)
        prewarming = stepped and jvm.prewarmed_users == 0 and userjvm.prewarm_due(jvm, plan, row, position)
        warm = stepped and (jvm.steps > 0 or prewarming or jvm.prewarmed_users > 0)  # steps, or a pre-warm, warmed it
        app, log_from = jvm.app, csvrow.log_offset(jvm.app.log)
        rig.idle_services = tuple(other.app.pid for other in self.jvms.values() if other is not jvm and other.app.pid)
        try:
            spec = load.LoadSpec(app.base_url, row.load_model, plan.users(row), row.target_rps,
                                 plan.ramp_for(row, warm), warmup_s, plan.hold_s, 1, plan.cooldown_s,
                                 row.workload, shape=plan.shape(row),
                                 script=target.call.entry_script(rig.run_dir / "k6"),
                                 script_env=tuple(target.call.k6_env().items()), settles=plan.settles(row),
                                 warm_step=warm)
            self._first_request(jvm, row, java, spec, folder)
            if prewarming:  # after the thread mode is proven, its load the row's own call
                userjvm.prewarm_now(jvm, rig, spec, plan, row, slug)
                log_from = csvrow.log_offset(app.log)  # the row's own lines: after its pre-warm's
        except BaseException:
            self._stop_jvm(jvm)
            raise
        return jvm, spec, log_from

    def _jvm_for(self, row: Row, slug: str, java: runtimes.Java, jfr: Path, stepped: bool) -> userjvm.UserJvm:
        """The JVM the row runs on: its staircase's, when the row is its next step and the JVM still runs; else a
        fresh one, or the service at --url. Every other JVM is stopped first, but for the other arm's where the plan
        keeps them together (Plan.together); with --db the two arms' JVMs get databases of their own (with --db-url they
        share the user's). A before/after's arm b runs the --vs jar."""
        if not self.target.started_by_vtlab:
            return userjvm.attached(self.target)
        kept, stale = self.plan.kept(self.jvms, row, stepped)
        if kept is not None:
            return kept
        for other in stale:
            self._stop_jvm(other)
        second = self.plan.arm(row) == "b"
        # a before/after's arm b is the other jar (--vs), started as the first is
        target = self.target.arm_b() if second and self.target.vs else self.target
        database = SERVICE_DATABASE + ("_b" if second else "")
        settings, proxies = self._database(database, row)
        try:
            jvm = userjvm.start(self.rig, self.plan, row, slug, target, java, settings, jfr, stepped)
        except BaseException:
            self.rig.unroute(proxies)
            raise
        jvm.database, jvm.proxies = (database if self.target.db == "vtlab" else ""), proxies
        self.jvms[self.plan.family(row)] = jvm
        return jvm

    def _first_request(self, jvm: userjvm.UserJvm, row: Row, java: runtimes.Java, spec: load.LoadSpec,
                       folder: Path) -> None:
        """The row's preflight, which must succeed; on a JVM's first row it also proves the thread mode took, and
        finds where the service's meters are read."""
        target = self.target

        def first_request() -> None:
            if target.call.script:
                userrow.script_preflight(self.rig.k6, spec, folder)
            else:
                userrow.preflight(jvm.app, target.call)

        if jvm.app.pid is None or jvm.mode_proven:  # a --url service runs the mode the user states
            first_request()
        else:
            started = userrow.virtual_threads_started(java, jvm.app.pid, first_request, folder)
            jvm.read_meters, jvm.meter_source = userrow.meters(jvm.app, target)
            reading = jvm.read_meters() if jvm.read_meters else None
            threads = (reading or {}).get("tomcat_threads_config")
            userrow.check_mode(row.thread_mode == "virtual", started, threads)
            jvm.request_threads = int(threads) if threads and threads > 0 else 0
            jvm.mode_proven = True
        if jvm.app.pid is None and not jvm.meter_source:
            jvm.read_meters, jvm.meter_source = userrow.meters(jvm.app, target)

    def _counted(self, jvm: userjvm.UserJvm) -> dict[str, int] | None:
        """The mix's count queries in the JVM's own database (--db), or None where nothing is counted."""
        return userrow.writes_before(self.rig.pg, self.target.call, jvm.database)

    def _writes(self, jvm: userjvm.UserJvm, before: dict[str, int] | None, requests: list) -> dict[str, object]:
        """The write check's columns: the count queries again, against what k6 saw succeed (none: not checked)."""
        return userrow.writes_after(self.rig.pg, self.target.call, jvm.database, before, requests)

    def _stop_jvm(self, jvm: userjvm.UserJvm) -> None:
        self.jvms = {key: kept for key, kept in self.jvms.items() if kept is not jvm}
        try:
            jvm.stop()
        finally:
            self.rig.unroute(jvm.proxies)

    def _database(self, name: str, row: Row) -> tuple[dict[str, str], list[str]]:
        """Spring's datasource settings for the user's service: a fresh database `name` of vtlab's PostgreSQL for each
        JVM (the same empty start every time), reached through Toxiproxy where the row adds latency (--db-latency),
        or the user's --db-url; nothing without either. Returns them with the proxies to remove with the JVM."""
        if self.target.db == "vtlab":
            assert self.rig.pg is not None
            credentials = self.rig.pg.fresh_database(name)
            url, proxies = self.rig.database_route(credentials.jdbc_url, row, name)
            return {"SPRING_DATASOURCE_URL": url, "SPRING_DATASOURCE_USERNAME": credentials.user,
                    "SPRING_DATASOURCE_PASSWORD": credentials.password}, proxies
        if self.target.db == "url" and self.target.db_url:
            return {"SPRING_DATASOURCE_URL": self.target.db_url}, []
        return {}, []
