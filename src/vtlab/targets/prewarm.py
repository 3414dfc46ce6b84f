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
no connection (k6 closes them as it ends, and no request is queued: platform pre-warm users ≤ threads).

vtlab's own service only, for now: a --service jar's first step still warms its JVM itself. Pre-warmed, a jar's
first step (24 users) was held to its bound as jit-not-settled: the warm-up's JIT test looks for the compiler's
burst to be over since the row's ramp, and the burst had happened in the pre-warm, outside the row's window."""

from __future__ import annotations

from dataclasses import replace

from vtlab.core import constants, shapes
from vtlab.core.dimensions import Row
from vtlab.measure import load
from vtlab.measure.tiers import Rig
from vtlab.plan.planner import Plan
from vtlab.rig import procs

PREWARM_RAMP_S = constants.CURRENT.prewarm_ramp_s
PREWARM_S = constants.CURRENT.prewarm_s


def users(plan: Plan, row: Row) -> int:
    """The pre-warm's users: the family's top step's, capped at the request threads on platform threads."""
    peak = plan.family_peak_users(row)
    return min(peak, row.tomcat_max_threads) if row.thread_mode == "platform" else peak


def wanted(plan: Plan, row: Row, position: int, fresh: bool) -> bool:
    """Whether a fresh JVM is pre-warmed before the row: the first step of a staircase of steady closed-model
    steps (a row on its own, a shaped load, the open model and a search's points warm as they did)."""
    return (fresh and plan.prewarm == "on" and plan.steps_on_one_jvm(row) and plan.settles(row)
            and plan.search_peak_users == 0 and plan.next_step_follows(position))


def warm(rig: Rig, row_spec: load.LoadSpec, plan: Plan, row: Row, slug: str) -> int:
    """k6 with the row's own call (`row_spec`) at the pre-warm's users for PREWARM_S, waited for; its users."""
    logs = rig.run_dir / "logs"
    spec = replace(row_spec, model="closed", concurrency=users(plan, row), rate=0, ramp_s=PREWARM_RAMP_S,
                   warmup_s=PREWARM_S, hold_s=1, cooldown_s=1, shape=shapes.Shape(), settles=False, warm_step=False)
    print(f"  pre-warming the {row.thread_mode}-thread JVM: {spec.concurrency} users for {PREWARM_S} s "
          "(its staircase's top rate; not recorded)", flush=True)
    k6 = load.start(rig.k6, spec, logs / f"prewarm-{slug}.json", logs / f"prewarm-{slug}.k6.log",
                    rig.core_map["load"], logs / f"prewarm-{slug}.k6.csv.gz")
    try:
        k6.wait(timeout=spec.duration_s + 60)
    finally:
        procs.terminate(k6)
    return spec.concurrency
