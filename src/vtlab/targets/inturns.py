"""A paired point's blocks in turns (measure.turns) on a target's JVMs, vtlab's own service's and a user's jar's
alike: each arm's JVM made ready by the target for its first block (kept from its earlier steps, or fresh, proven
and pre-warmed), one k6 for each arm, every block its arm's turn; then each block's window of its JVM's JFR recording
dumped, and every JVM whose staircase has no later step stopped. The target turns each block into its CSV line."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtlab.core import dimensions
from vtlab.measure import csvrow, jfrdump, load, turncut, turns
from vtlab.measure.drive import Drive
from vtlab.measure.target import Reporter, Turn
from vtlab.measure.tiers import Rig
from vtlab.plan import blockturns
from vtlab.plan.planner import Plan
from vtlab.rig import runtimes, services


@dataclass(frozen=True)
class Armed:
    """An arm's JVM as the target made it ready: its handle (the target's own), its service, the load on it, its
    meters and where the point's lines begin in its log."""
    jvm: Any
    app: services.Tier
    spec: load.LoadSpec
    read_meters: Callable[[], dict[str, float] | None] | None
    log_from: int


@dataclass(frozen=True)
class Block:
    """A block as measured in its arm's turn: its turn, how it ran, its load's Drive, its arm and its JFR window."""
    turn: Turn
    ran: turns.Taken
    driven: Drive
    armed: Armed
    jfr: Path
    arm_series: Path  # its arm's whole series at the point: every turn's requests (measure.turncut)

    def row(self, rig: Rig, plan: Plan, info: dict, aot_log: Path) -> dict[str, object]:
        """The block's CSV line, a step more on its arm's JVM: a row's (csvrow, with its JFR window and its service's
        log from the point's start), then when it ran, its users' spread (its ramp) and the mark, and its JVM's AOT
        cache (its training's log `aot_log`), step and pre-warm."""
        jvm = self.armed.jvm
        jvm.steps += 1
        values = csvrow.local_row_values(rig, self.turn.row, plan, self.armed.spec, self.driven, info, self.jfr,
                                         jvm.app.log, self.armed.log_from, (self.ran.on, self.ran.drained))
        spread = 0 if self.ran.went_on else self.ran.block.spread_s  # a block its arm's last went on into: none
        return {**values, "ts_iso": csvrow.at(self.ran.drained), "ramp_s": spread,
                "taken_in_turns": "yes", "aot_cache": jvm.start.outcome(aot_log), "jvm_step": jvm.steps,
                "prewarm_users": jvm.prewarmed_users or ""}


def take(rig: Rig, plan: Plan, point: Sequence[Turn], progress: Reporter,
         ready: Callable[[Sequence[Turn]], list[Armed]], stop: Callable[[Any], None]) -> list[Block]:
    """The point's blocks measured in turns, in order. `ready` makes each arm's JVM ready for the turn given it (its
    first block; the target may pre-warm them together) or stops every JVM it started and raises; `stop` stops a JVM:
    every arm's where the point fails, and after it each one no later step needs."""
    firsts: dict[str, Turn] = {}
    for turn in point:
        firsts.setdefault(plan.arm(turn.row), turn)
    arms = list(firsts)
    made = ready([firsts[arm] for arm in arms])
    if len(made) != len(arms):
        for one in made:
            stop(one.jvm)
        raise RuntimeError(f"{len(made)} JVM(s) made ready for {len(arms)} arm(s)")
    armed: dict[str, Armed] = dict(zip(arms, made, strict=True))
    try:
        loads = [turns.ArmLoad(armed[arm].app, armed[arm].spec, armed[arm].read_meters,
                               f"turns-{dimensions.slug(firsts[arm].row)}", blockturns.spread_s(plan, firsts[arm].row),
                               armed[arm].jvm.jit_burst)
                 for arm in arms]
        blocks, seen = [], set()
        for turn in point:
            arm = plan.arm(turn.row)
            spread = loads[arms.index(arm)].spread_s
            # an arm's first turn at the point settles as a row's warm-up does (where the plan's warm-up settles),
            # within the turn's bound (the run's first with the first row's extra)
            judged = arm not in seen and plan.settles(turn.row)
            blocks.append(turns.Block(arms.index(arm), dimensions.slug(turn.row), spread,
                                      blockturns.settle_s(spread),
                                      spread + turn.warmup_s if judged else 0.0))
            seen.add(arm)
        taken = turns.take(rig, loads, blocks, plan.hold_s, lambda index: progress.begin(point[index]), progress)
        measured = []
        for turn, (ran, driven) in zip(point, taken, strict=True):
            block_armed = armed[arms[ran.block.arm]]
            if ran.block.bound_s:  # a first turn: the next point's first turn judges its JIT against its burst
                block_armed.jvm.jit_burst = ran.burst
            jfr = rig.run_dir / "jfr" / f"{ran.block.slug}.jfr"
            java = runtimes.java_for(turn.row.jdk, plan.java_homes)
            jfrdump.dump(rig.jcmds(java), block_armed.app.pid, ran.on, ran.drained, jfr)
            arm_series = turncut.whole_series(rig.run_dir / "k6", loads[ran.block.arm].slug)
            measured.append(Block(turn, ran, driven, block_armed, jfr, arm_series))
    except BaseException:
        for ready_arm in armed.values():
            stop(ready_arm.jvm)
        raise
    for arm, ready_arm in armed.items():
        if not plan.next_step_follows(max(turn.position for turn in point if plan.arm(turn.row) == arm)):
            stop(ready_arm.jvm)
    return measured

