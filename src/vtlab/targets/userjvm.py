"""The user's jar as a JVM of the run, for a row or for the steps of a staircase: started in the row's thread mode,
the mode proven by its first request, its meters found once — and kept by the row loop's target (targets.user)
across the steps of a staircase, as vtlab's own service's JVM is (targets.servicejvm)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.core.dimensions import Row
from vtlab.measure import load, settle, stalls
from vtlab.measure.tiers import Rig
from vtlab.plan import planner
from vtlab.rig import procs, runtimes
from vtlab.rig.services import Tier
from vtlab.targets import aotcache, prewarm, useraot, userrow
from vtlab.targets.userservice import Target


@dataclass
class UserJvm:
    """A JVM of the user's jar and what it was started for (planner.jvm_family): one row, or a staircase's steps."""
    family: tuple[str, ...]
    slug: str        # the first row's: the JVM's logs are named for it
    app: Tier
    start: aotcache.Start
    forget: Callable[[], None]
    recording: Path  # the JVM's own JFR recording, written when it exits
    read_meters: Callable[[], dict[str, float] | None] | None = None
    meter_source: str = ""  # where its meters come from ("": none answered)
    steps: int = 0          # rows measured on it so far
    prewarmed_users: int = 0  # the users it ran at before its first step (targets.prewarm); 0: none
    jit_burst: settle.Burst | None = None  # its JIT's busiest window so far (pre-warm, steps): the warm-up's reference
    mode_proven: bool = False  # its thread mode checked, by its first row's first request
    request_threads: int = 0   # the request threads it reported then (0: none reported): a pre-warm's cap
    database: str = ""         # its own database in vtlab's PostgreSQL (--db), where a mix's writes are counted
    proxies: list[str] = field(default_factory=list)  # the Toxiproxy proxies to its database (--db-latency)

    def alive(self) -> bool:
        return self.app.proc is not None and self.app.proc.poll() is None

    def stop(self) -> None:
        """SIGTERM: JFR writes the JVM's recording on exit."""
        try:
            self.app.stop()
        finally:
            self.forget()


def start(rig: Rig, plan: planner.Plan, row: Row, slug: str, target: Target, java: runtimes.Java,
          database: dict[str, str], jfr: Path, stepped: bool) -> UserJvm:
    """A fresh JVM of the user's jar for `row` (a staircase's first step where `stepped`: its recording is then a file
    beside the row's, and each step dumps its own window, measure.jfrdump)."""
    virtual = row.thread_mode == "virtual"
    stub_url = rig.stub.base_url if rig.stub else None
    options = plan.service_options(row)
    recording = jfr.with_suffix(".jvm.jfr") if stepped else jfr
    recording.unlink(missing_ok=True)
    start_from = (useraot.start_for(rig, target, java, virtual, database, stub_url, options, plan.users(row),
                                    rig.run_dir / "logs", aot_log(rig, slug))
                  if plan.uses_aot(row) else useraot.WITHOUT)
    app = userrow.start(target, java, virtual, database, stub_url, rig.run_dir / "logs" / f"app-{slug}.log",
                        recording, rig.core_map["app"], options, start_from.jar, start_from.flags)
    return UserJvm(plan.family(row), slug, app, start_from, procs.on_cleanup(app.stop), recording)


def stall_watch(jvm: UserJvm, rig: Rig, spec: load.LoadSpec, java: runtimes.Java, slug: str) -> stalls.Watch | None:
    """The row's stall watch: it reads the service's request counter (Prometheus only); without one every row would
    look stalled, so none is kept."""
    if not jvm.app.pid or not jvm.meter_source.endswith("/prometheus"):
        return None
    return stalls.Watch(spec.ramp_s, java, jvm.app.pid, rig.run_dir / "threads" / f"{slug}.json",
                        fallback_jcmd=[rig.java.home / "bin" / "jcmd"])


# Withdrawn again: with the JVM's burst as the reference the jar smoke's pre-warmed first step still began its hold
# with the compiler at 53.3% of its CPU (a note) in one CI and hit its bound as jit-not-settled in the next (2026-11-28)
JAR_PREWARM = False


def prewarm_due(jvm: UserJvm, plan: planner.Plan, row: Row, position: int) -> bool:
    """Whether the jar's fresh JVM is run at its staircase's top rate before this, its first step (targets.prewarm:
    a JIT-heavy app's first step was measured on code still compiling): not while JAR_PREWARM is off."""
    return JAR_PREWARM and prewarm.wanted(plan, row, position, fresh=jvm.steps == 0)


def prewarm_now(jvm: UserJvm, rig: Rig, spec: load.LoadSpec, plan: planner.Plan, row: Row, slug: str) -> None:
    """The pre-warm, with the row's own call (`spec`), once the JVM's thread mode is proven; its JIT's busiest window
    the first step's reference (measure.settle.Burst)."""
    warmed = prewarm.warm(rig, spec, plan, row, slug, jvm.app.pid, jvm.request_threads)
    jvm.prewarmed_users, jvm.jit_burst = warmed.users, warmed.burst


def aot_log(rig: Rig, slug: str) -> Path:
    """Where the AOT cache's training and use are logged for the JVM started for the row `slug`."""
    return rig.run_dir / "logs" / f"aot-{slug}.log"


def attached(target: Target) -> UserJvm:
    """The service behind --url, as the rows see it: nothing of vtlab's to start, stop or keep."""
    return UserJvm(("url",), "", userrow.attach(target), aotcache.WITHOUT, lambda: None, Path())
