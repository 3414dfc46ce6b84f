"""vtlab's own service as the loop's target: the seeded PostgreSQL and the stub kept up for the run (and
Toxiproxy when a row adds network latency), a service JVM in the row's configuration, checked against it — fresh
for the row, or warm from the earlier steps of its staircase (Plan.steps_on_one_jvm) — loaded with the samplers
beside it, the row's JFR recording read back and its writes counted."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vtlab.core import dimensions
from vtlab.measure import csvrow, drive, jfrdump, load, samplers
from vtlab.measure.target import Reporter, Turn
from vtlab.core.dimensions import Row
from vtlab.plan import planner
from vtlab.rig import procs, runtimes
from vtlab.targets import inturns, local, prewarm, servicejvm


class OwnService:
    """Measures vtlab's own service (Revives, OnThisMachine)."""

    def __init__(self, keep: bool, core_map: dict[str, set[int]], doctor: list[dict[str, str]] | None = None,
                 k6_dashboard: bool = False, profiles: tuple[str, ...] = ()):
        self.keep, self.core_map, self.doctor, self.k6_dashboard = keep, core_map, doctor or [], k6_dashboard
        self.profiles = profiles  # async-profiler's kinds for each row's hold (empty: none)
        self.service: dict | None = None  # the first measured row's runtime-info: the defaults the service runs with
        # the service JVMs kept between the steps of their staircases, by family: one, or a paired plan's two arms
        self.jvms: dict[tuple[str, ...], servicejvm.ServiceJvm] = {}

    def prepare(self, plan: planner.Plan, run_dir: Path) -> None:
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
        """One row: the service in the row's configuration — fresh, or the JVM the earlier steps of its staircase
        warmed — the load with samplers beside it, the JFR recording of the row read back. A paired plan's block
        first brings up its pair's other arm (planner.Plan.partner), the two pre-warmed together, so that both arms'
        JVMs are warm before the pair's first block and the pair's two blocks follow each other."""
        rig, plan, row = self.rig, self.plan, turn.row
        partner = plan.partner(turn.position)
        wanted = [(row, turn.position, turn.warmup_s)]
        if partner is not None and partner > turn.position and plan.family(plan.rows[partner]) not in self.jvms:
            wanted.insert(0, (plan.rows[partner], partner, turn.warmup_s))  # the row's last: the rig idles the other
        slug = dimensions.slug(row)
        jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
        java = runtimes.java_for(row.jdk, plan.java_homes)  # the row's runtime; the stub stays on the build JDK
        stepped = plan.steps_on_one_jvm(row)
        jvm, spec = self._ready_together(wanted)[-1]
        jvm.steps += 1
        app = jvm.app
        log_from = csvrow.log_offset(app.log)  # the row's own lines: after its pre-warm's
        assert rig.pg is not None
        if row.workload == "write":
            rig.pg.discard_written_orders()  # count from zero: only this row's writes
        try:
            # quiet through the ramp and one request's wait: on an 8 s downstream nothing can complete sooner
            watch = servicejvm.stall_watch(app, rig, max(spec.ramp_s, plan.wait_s(row)), java, slug)
            meters = samplers.meters_reader(app.management_url + "/actuator/prometheus")
            driven, window = jfrdump.recorded(
                lambda: drive.drive(rig, app, spec, slug, progress, watch, meters, rig.jcmds(java), jvm.jit_burst),
                rig.jcmds(java), app.pid, jfr, stepped)
        except BaseException:
            self._stop_jvm(jvm)
            raise
        jvm.jit_burst = driven.jit_burst  # the next step's warm-up judges its JIT against the JVM's busiest window
        if not (stepped and plan.next_step_follows(turn.position)):
            self._stop_jvm(jvm)  # SIGTERM: a JVM of its own writes its recording on exit, the row's
        values = {**csvrow.local_row_values(rig, row, plan, spec, driven, jvm.info, jfr, app.log, log_from,
                                            window if stepped else None),
                  "aot_cache": jvm.start.outcome(rig.run_dir / "logs" / f"aot-{jvm.slug}.log"),
                  "jvm_step": jvm.steps, "prewarm_users": jvm.prewarmed_users or ""}
        if self.service is None:
            self.service = jvm.info
        return values

    def measure_point(self, point: list[Turn], progress: Reporter) -> list[dict[str, object]]:
        """A paired point's blocks in turns (targets.inturns): each block's row a step of its arm's JVM."""
        rig, plan = self.rig, self.plan

        def ready(turns: Sequence[Turn]) -> list[inturns.Armed]:
            made = self._ready_together([(turn.row, turn.position, turn.warmup_s) for turn in turns])
            try:
                return [inturns.Armed(jvm, jvm.app, spec,
                                      samplers.meters_reader(jvm.app.management_url + "/actuator/prometheus"),
                                      csvrow.log_offset(jvm.app.log))
                        for jvm, spec in made]
            except BaseException:
                for jvm, _ in made:
                    self._stop_jvm(jvm)
                raise

        rows = []
        for block in inturns.take(rig, plan, point, progress, ready, self._stop_jvm):
            jvm = block.armed.jvm
            rows.append(block.row(rig, plan, jvm.info, rig.run_dir / "logs" / f"aot-{jvm.slug}.log"))
            if self.service is None:
                self.service = jvm.info
        return rows

    def _ready_together(self, wanted: Sequence[tuple[Row, int, int]]
                        ) -> list[tuple[servicejvm.ServiceJvm, load.LoadSpec]]:
        """The JVM each row (with its position and warm-up) runs on, in the row's connection mode, with the row's load
        on it (the row's JFR recording made ready, an earlier one removed); those fresh and wanting a pre-warm
        pre-warmed together, once all are up. Where one fails, every JVM readied here, a kept one too, is stopped, as a
        paired point's failure stops its arms."""
        made: list[tuple[servicejvm.ServiceJvm, load.LoadSpec]] = []
        warming: list[tuple[servicejvm.ServiceJvm, prewarm.Warming]] = []
        try:
            for row, position, warmup_s in wanted:
                jvm, spec, prewarming = self._set_up(row, position, warmup_s)
                made.append((jvm, spec))
                if prewarming:
                    warming.append((jvm, prewarm.Warming(spec, row, dimensions.slug(row), jvm.app.pid)))
            if warming:
                warmed = prewarm.warm_together(self.rig, self.plan, [one for _, one in warming])
                for (jvm, _), done in zip(warming, warmed, strict=True):
                    jvm.prewarmed_users, jvm.jit_burst = done.users, done.burst
        except BaseException:
            for jvm, _ in made:
                self._stop_jvm(jvm)
            raise
        return made

    def _set_up(self, row: Row, position: int, warmup_s: int) -> tuple[servicejvm.ServiceJvm, load.LoadSpec, bool]:
        """The JVM the row runs on, in the row's connection mode, with the row's load on it; and whether it is to be
        pre-warmed first (fresh and wanting it)."""
        rig, plan = self.rig, self.plan
        slug = dimensions.slug(row)
        jfr = rig.run_dir / "jfr" / f"{slug}.jfr"
        jfr.parent.mkdir(parents=True, exist_ok=True)
        jfr.unlink(missing_ok=True)
        java = runtimes.java_for(row.jdk, plan.java_homes)
        stepped = plan.steps_on_one_jvm(row)
        jvm = self._jvm_for(row, slug, java, jfr, stepped)
        prewarming = jvm.prewarmed_users == 0 and prewarm.wanted(plan, row, position, fresh=jvm.steps == 0)
        warm = stepped and (jvm.steps > 0 or prewarming or jvm.prewarmed_users > 0)  # steps, or a pre-warm, warmed it
        spec = load.LoadSpec(jvm.app.base_url, row.load_model, plan.users(row), row.target_rps,
                             plan.ramp_for(row, warm), warmup_s, plan.hold_s, rig.max_order_id, plan.cooldown_s,
                             row.workload, row.sleep_ms, row.cpu_work, rig.max_customer_id, plan.shape(row),
                             settles=plan.settles(row), warm_step=warm)
        rig.idle_services = tuple(other.app.pid for other in self.jvms.values() if other is not jvm and other.app.pid)
        try:
            servicejvm.run_as(jvm, row, plan.family_peak_users(row), plan.downstream_http)
        except BaseException:
            self._stop_jvm(jvm)
            raise
        return jvm, spec, prewarming

    def _jvm_for(self, row: Row, slug: str, java: runtimes.Java, jfr: Path, stepped: bool) -> servicejvm.ServiceJvm:
        """The JVM the row runs on: its staircase's, when the row is its next step and the JVM still runs; else a
        fresh one. Every other JVM is stopped first, but for the other arm's where the plan keeps them together (a
        paired plan, a search in turn: Plan.together)."""
        kept, stale = self.plan.kept(self.jvms, row, stepped)
        if kept is not None:
            return kept
        for other in stale:
            self._stop_jvm(other)
        taken = {up.port for up in self.jvms.values()}  # the other arm's, where the plan keeps it up
        jvm = servicejvm.start(self.rig, self.plan, row, slug, java, jfr, stepped, taken)
        self.jvms[self.plan.family(row)] = jvm
        return jvm

    def _stop_jvm(self, jvm: servicejvm.ServiceJvm) -> None:
        self.jvms = {key: kept for key, kept in self.jvms.items() if kept is not jvm}
        jvm.stop(self.rig)

    def revive(self, died: procs.TierDied) -> None:
        self.rig.revive(died.tier, self.keep)

    def close(self) -> None:
        """The staircases' JVMs still up; the other tiers are stopped with every process of the run
        (procs.stop_all), or kept (--keep)."""
        for jvm in list(self.jvms.values()):
            self._stop_jvm(jvm)


