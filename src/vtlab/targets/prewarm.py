"""A staircase's JVM warmed at its top rate before its first step: k6 for a fixed PREWARM_S at the most users the
family's steps reach (on platform threads no more than its request threads: beyond them users only queue), nothing
of it recorded but its own log and series (the run folder's logs/).

Why: the first step is its staircase's lowest load, where the JIT compiles slowest. At 100 users (~95 req/s) the
default run's first step settled after ~36 s with the compiler still at ~47% of the service's CPU, and kept
optimising through its hold: allocation per request, the scrape's taken out, fell 90.7 → 83.6 KiB (virtual) and
72.6 → 68.3 (platform) from one 10 s to the next (2026-11-28, def7), against 73.6 and 66.0 one step later at 400
users. Its per-request figures were the JIT's, not the thread model's: virtual − platform +16.7 KiB at 100 users
against +7.6 and +8.6 at 400 and 1,000. Warmed at the top rate, the compiler sees the hot paths ten times as often,
and every step, the first too, is measured on compiled code and settles over a later step's short windows.

What it leaves to the first step besides the JIT's work: a heap G1 sized for the top rate and, on platform threads,
request threads created up to the pre-warm's users, idle until the steps use them (Tomcat keeps idle ones ~60 s);
no connection (k6 closes them as it ends, and no request is queued: platform pre-warm users ≤ threads; a
--service jar's threads as it reported them, none capped where it reported none).

And the JIT's burst, read as the warm-up reads it (measure.jit, the JVM's compile time a second at its busiest
window): the first step's warm-up judges the compiler's burst over against it (measure.settle.Burst), not against
the busiest window since its own ramp, which after a pre-warm is already the burst's tail. Read against the row's
windows only, a pre-warmed --service jar's first step (24 users) was held to its bound as jit-not-settled, its
tail still above a twentieth of a small service CPU; the pre-warm was vtlab's own service's only until the burst
was the JVM's. With it, a jar's pre-warmed first step still began its hold with the compiler at 53.3% of its CPU in
one CI run and hit its bound as jit-not-settled in the next: a --service jar is not pre-warmed (targets.userjvm's
JAR_PREWARM), vtlab's own service is."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from vtlab.core import constants, shapes
from vtlab.core.dimensions import Row
from vtlab.measure import jit, load, settle
from vtlab.measure.tiers import Rig
from vtlab.plan.planner import Plan
from vtlab.rig import procs

PREWARM_RAMP_S = constants.CURRENT.prewarm_ramp_s
PREWARM_S = constants.CURRENT.prewarm_s


def users(plan: Plan, row: Row, reported_threads: int = 0) -> int:
    """The pre-warm's users: the family's top step's, capped at the request threads on platform threads — the row's,
    or where vtlab does not set them (a --service jar: 0) the ones the service reported (`reported_threads`; 0:
    none reported, no cap)."""
    peak = plan.family_peak_users(row)
    threads = row.tomcat_max_threads or reported_threads
    return min(peak, threads) if row.thread_mode == "platform" and threads > 0 else peak


def wanted(plan: Plan, row: Row, position: int, fresh: bool) -> bool:
    """Whether a fresh JVM is pre-warmed before the row: the first step of a staircase of steady closed-model
    steps (a row on its own, a shaped load, the open model and a search's points warm as they did)."""
    return (fresh and plan.prewarm == "on" and plan.steps_on_one_jvm(row) and plan.settles(row)
            and plan.search_peak_users == 0 and plan.next_step_follows(position))


@dataclass(frozen=True)
class Prewarmed:
    """What a pre-warm left its JVM: the users it ran at, and its JIT's busiest window (None: not read)."""
    users: int
    burst: settle.Burst | None


@dataclass(frozen=True)
class Warming:
    """One JVM to pre-warm: the row's own call (`spec`), the row and its slug, the JVM's pid (None: not ours, its JIT
    not read) and the request threads it reported (prewarm.users)."""
    spec: load.LoadSpec
    row: Row
    slug: str
    pid: int | None
    reported_threads: int = 0


def warm(rig: Rig, row_spec: load.LoadSpec, plan: Plan, row: Row, slug: str, pid: int | None,
         reported_threads: int = 0) -> Prewarmed:
    """One JVM pre-warmed (warm_together)."""
    return warm_together(rig, plan, [Warming(row_spec, row, slug, pid, reported_threads)])[0]


def warm_together(rig: Rig, plan: Plan, jvms: Sequence[Warming]) -> list[Prewarmed]:
    """Each JVM's k6 with its row's own call at the pre-warm's users (users) for PREWARM_S, all at once, waited for;
    the JIT of each JVM read each second meanwhile. A paired point's arms are pre-warmed together, sharing the
    machine's cores: neither is measured before both are, and one after the other the second arm's pre-warm took the
    first's ~26 s again (a new machine's first run, 2026-12-07)."""
    logs = rig.run_dir / "logs"
    specs = [_spec(plan, one) for one in jvms]
    meters = [jit.JitMeter(one.pid) if one.pid is not None else None for one in jvms]
    started: list[tuple[subprocess.Popen, Path]] = []
    try:
        for one, spec in zip(jvms, specs, strict=True):
            print(f"  pre-warming the {one.row.thread_mode}-thread JVM: {spec.concurrency} users for {PREWARM_S} s "
                  "(its staircase's top rate; not recorded)" + (", beside the other arm's" if len(jvms) > 1 else ""),
                  flush=True)
            log = logs / f"prewarm-{one.slug}.k6.log"
            started.append((load.start(rig.k6, spec, logs / f"prewarm-{one.slug}.json", log, rig.core_map["load"],
                                       logs / f"prewarm-{one.slug}.k6.csv.gz"), log))
        began, deadline = time.time(), time.monotonic() + max((spec.duration_s for spec in specs), default=0) + 60
        while running := [log for k6, log in started if k6.poll() is None]:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the pre-warm's k6 did not finish in time; see {running[0]}")
            for meter in meters:
                if meter is not None:
                    meter.read(time.time())
            time.sleep(1)
    finally:
        for k6, _ in started:
            procs.terminate(k6)
    return [Prewarmed(spec.concurrency, burst_of(meter, began)) for spec, meter in zip(specs, meters, strict=True)]


def _spec(plan: Plan, one: Warming) -> load.LoadSpec:
    """A JVM's pre-warm as a k6 run: the row's call, closed, at the pre-warm's users for PREWARM_S."""
    concurrency = users(plan, one.row, one.reported_threads)
    # over at least one request's wait, as a step's (Plan.spread_ramp_s): 10,000 users on an 8 s downstream in 3 s
    # would line them up into cohorts the first step would inherit
    ramp_s = max(PREWARM_RAMP_S, plan.spread_ramp_s(replace(one.row, concurrency=concurrency)))
    return replace(one.spec, model="closed", concurrency=concurrency, rate=0, ramp_s=ramp_s, warmup_s=PREWARM_S,
                   hold_s=1, cooldown_s=1, shape=shapes.Shape(), settles=False, warm_step=False)


def burst_of(meter: jit.JitMeter | None, began: float) -> settle.Burst | None:
    """The pre-warm's busiest JIT window, over the windows its first step's warm-up judges by: the step after a
    pre-warm is warm (settle.STEP_WINDOW_S)."""
    if meter is None:
        return None
    return settle.busiest(None, meter.seconds, meter.source, began, settle.STEP_WINDOW_S)
