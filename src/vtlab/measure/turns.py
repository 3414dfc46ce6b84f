"""A paired point's blocks measured in turns: one k6 per arm, both started once with every user waiting, each block
its arm's turn (vtlab's k6 module holds a user until its arm's turn: load.Turns). A turn spreads its users' first
requests over one request's wait, as a ramp spreads them, settles, holds; then it ends. The other arm's turn begins
at once, its users' spread and settle overlapping this arm's last iterations as they drain, its hold not before they
have. Where an arm's next block follows its own (the middle of AB BA), its turn goes on: the next block's hold begins
as this one's ends. Each arm's users and their connections live for the whole point: a block pays no k6 start, no
ramp of new connections and no cool-down of its own.

Every block is then cut from its arm's series and written as a row's own (its requests, its hold tagged; its
samplers' readings), so that a re-cut of the run computes what the row did. The samplers run per arm for the whole
point: the arm's service JVM is `app` and its k6 `load`; the other arm's JVM and its waiting k6 are the rig's own
`idle`, never a neighbour's CPU."""

from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from vtlab.measure import drive, holdwatch, liveness, livecounts, load, samplers, sampling, settle, turncut
from vtlab.measure.drive import Drive
from vtlab.measure.target import Reporter
from vtlab.measure.tiers import LOAD, Rig
from vtlab.measure.turncut import Block, Taken
from vtlab.rig import procs, services

# How long an ended turn's last iterations may drain: k6's request timeout (60 s, the load scripts') and a margin.
DRAIN_BOUND_S = 70.0
# A turn's hold begins this long after the other arm's last iterations drained (they overlap its settle): the
# users they slowed have a moment to be back at their pace; one request's wait is ~1 s on the default profile.
DRAINED_GAP_S = 1.0
# k6 sets up every user before the first waits for its turn: thousands take seconds (10,000: ~5 s here).
START_BOUND_S = 120.0


@dataclass(frozen=True)
class ArmLoad:
    """One arm's side of a point: its service, the load on it, its meters, the name of its k6's files, how widely
    a turn spreads its users' first requests, and its JVM's JIT at its busiest so far (its pre-warm, earlier points:
    the first turn's settle judges the compiler's burst over against it, as a later step's warm-up does; None: none
    read)."""
    app: services.Tier
    spec: load.LoadSpec
    read_meters: Callable[[], dict[str, float] | None] | None
    slug: str
    spread_s: float
    burst: settle.Burst | None = None


def take(rig: Rig, arms: Sequence[ArmLoad], blocks: Sequence[Block], hold_s: int, begin: Callable[[int], None],
         progress: Reporter) -> list[tuple[Taken, Drive]]:
    """Every block of a point, in order, each in its arm's turn; how each ran and what it produced as a row's load
    (its Drive, on its own clock: seconds since its turn began). Each arm's whole series stays in the run's k6/
    folder. `begin(i)` is called as block i's turn begins. procs.TierDied where a tier or a k6 died: no block of the
    point is then kept."""
    series_dir, k6_dir = rig.run_dir / "series", rig.run_dir / "k6"
    series_dir.mkdir(exist_ok=True)
    k6_dir.mkdir(parents=True, exist_ok=True)
    # k6's users run at most this long: every turn at its longest (a first turn's settle to its bound)
    budget = math.ceil(START_BOUND_S + sum(max(block.settle_s, block.bound_s) + hold_s + DRAIN_BOUND_S
                                           for block in blocks))
    gates = [k6_dir / f"{arm.slug}.turn" for arm in arms]
    runners: list[load.Runner] = []
    arm_samplers: list[tuple[dict, samplers.Sampler, samplers.Sampler]] = []
    taken: list[Taken] = []
    stopped = False
    try:
        for arm, gate in zip(arms, gates, strict=True):
            _write_gate(gate, 0)
            turns = load.Turns(gate, round(arm.spread_s * 1000), budget)
            runners += load.start_runners(rig.k6, arm.spec, 1, k6_dir / f"{arm.slug}.json",
                                          rig.run_dir / "logs" / f"k6-{arm.slug}.log", rig.core_map["load"],
                                          turncut.whole_series(k6_dir, arm.slug), turns=turns)
        arm_samplers = [_samplers(rig, arms, runners, index) for index in range(len(arms))]
        origin = time.time() - time.monotonic()  # the samplers' monotonic clock in Unix seconds, read once
        for _, cpu, meters in arm_samplers:
            cpu.start()
            meters.start()
        probes = [probe for arm in arms for probe in rig.probes(arm.app)]
        _users_ready(runners, probes)
        draining: _Draining | None = None
        for index, block in enumerate(blocks):
            begin(index)
            after = taken[-1] if taken and taken[-1].block.arm == block.arm else None
            ends = index + 1 == len(blocks) or blocks[index + 1].arm != block.arm
            ran, drained_before = _turn(block, gates[block.arm], runners, probes, hold_s, progress,
                                        arm_samplers[block.arm][1], arms[block.arm], rig, after, draining, ends)
            if draining is not None:
                taken[-1] = replace(taken[-1], drained=drained_before)
            draining = _Draining(runner=runners[block.arm], off=ran.off) if ends else None
            taken.append(ran)
        if draining is not None:
            taken[-1] = replace(taken[-1], drained=draining.wait(runners, probes))
        for runner in runners:
            runner.proc.send_signal(signal.SIGINT)  # k6 ends as on Ctrl-C: its summary is written
        stopped = True
        _wait_ended(runners)
    finally:
        series = [(sampling.stopped(cpu), sampling.stopped(meters)) for _, cpu, meters in arm_samplers]
        pids = [tiers_sampled for tiers_sampled, _, _ in arm_samplers]
        _release(runners, gates)
    requests = [turncut.read_back(runner, stopped) for runner in runners]
    return [(t, turncut.block_drive(t, requests[t.block.arm], series[t.block.arm], pids[t.block.arm], origin,
                                    series_dir)) for t in taken]


def _samplers(rig: Rig, arms: Sequence[ArmLoad], runners: Sequence[load.Runner],
              index: int) -> tuple[dict, samplers.Sampler, samplers.Sampler]:
    """Arm `index`'s samplers: its JVM the app (its compiler threads read too), its k6 the load, the other arm's JVM
    and k6 the rig's idle."""
    others = [i for i in range(len(arms)) if i != index]
    idle = tuple(pid for i in others for pid in (arms[i].app.pid, runners[i].proc.pid) if pid)
    return sampling.samplers_of(rig, arms[index].app, [runners[index]], arms[index].read_meters, idle)


def _write_gate(gate: Path, turn_id: int) -> None:
    """An arm's turn (its id: the turn's start in Unix ms) or 0 (its users wait), renamed into place whole."""
    part = gate.with_name(gate.name + ".part")
    part.write_text(f"{turn_id}\n")
    os.replace(part, gate)


def _check(runners: Sequence[load.Runner], probes: Sequence[liveness.Probe]) -> None:
    liveness.check(probes)
    for runner in runners:
        if runner.proc.poll() is not None:
            raise procs.TierDied(LOAD, procs.ended(runner.proc.returncode) + " while the arms took turns", runner.log)


def _users_ready(runners: Sequence[load.Runner], probes: Sequence[liveness.Probe]) -> None:
    """Until every k6 has set its users up (its live counts' first line: its output runs, its users wait)."""
    deadline = time.monotonic() + START_BOUND_S
    while not all(livecounts.read([runner.live])[0] for runner in runners):
        _check(runners, probes)
        if time.monotonic() > deadline:
            raise procs.TierDied(LOAD, f"set its users up in no {START_BOUND_S:.0f} s", runners[0].log)
        time.sleep(0.2)


def _turn(block: Block, gate: Path, runners: Sequence[load.Runner], probes: Sequence[liveness.Probe], hold_s: int,
          progress: Reporter, cpu: samplers.Sampler, arm: ArmLoad, rig: Rig, after: Taken | None,
          draining: _Draining | None, ends: bool) -> tuple[Taken, float]:
    """One block: its arm's turn through its settle (in an arm's first turn at a point, until the row has settled:
    settle.HoldDecider) and hold — the JVM's threads counted and, where asked for, profiled over it, as a row's
    (holdwatch) — then, where the arm's next block does not follow (`ends`), its turn ended. A block `after` its arm's
    last goes on from that one's hold: its users are at their load already, their next requests begin in its hold
    (a block counts the requests begun in it). A turn after the other arm's begins as that one's ended, its hold not
    before the other's last iterations (`draining`) have drained. With when they had (NaN: no other arm drained)."""
    runner = runners[block.arm]
    on = after.hold[1] if after is not None else time.time()
    started = time.monotonic() - (time.time() - on)
    if after is None:
        _write_gate(gate, int(on * 1000))

    def tick(ended: bool = False) -> None:
        _check(runners, probes)
        reading = load.live_reading([runner])
        progress.tick(started, reading.ok_per_s, reading.failed_per_s, ended)

    # An arm's first turn at a point is its JVM's first run at that load since its last step (or its pre-warm): its
    # settle goes on until the row has settled by the warm-up's own criterion (measure.settle.HoldDecider, over a later
    # step's windows: the rate steady, the CPU per request no longer falling, the JIT's burst over), at most to the
    # plan's warm-up bound; a hold begun at the bound with the JIT unmet is jit-not-settled, as a row's is. Seen without
    # it (a fixed 10 s more, 10 s holds): a virtual arm's first block at 1,000 users with its compiler at 40% of a core
    # and 825 req/s, its next three 885, 905 and 946 (2026-11-28, p2); an A/A's first block 800 req/s against 937
    # (aat1).
    decider = (settle.HoldDecider(gate.with_name(f"{block.slug}.hold"), [runner.live], block.spread_s,
                                  block.bound_s - block.spread_s, hold_s, 0, on, arm.app.pid,
                                  window_s=settle.STEP_WINDOW_S if arm.spec.warm_step else settle.WINDOW_S,
                                  burst=arm.burst)
               if block.bound_s else None)
    begins, drained_before = _settled(on if after is not None else on + block.settle_s, decider, draining, cpu, tick)
    hold = (begins, begins + hold_s)
    watch = (holdwatch.HoldWatch(arm.app.pid, rig.profiler, rig.run_dir / "profiles", block.slug, hold[0] - on,
                                 hold[1] - on) if arm.app.pid else None)
    shown = False
    try:
        while time.time() < hold[1]:
            ended = not shown and time.time() >= hold[1] - 1
            shown |= ended
            tick(ended)
            if watch is not None:
                watch.tick(time.monotonic() - started)
            time.sleep(min(1.0, max(0.05, hold[1] - time.time())))
    finally:
        if watch is not None:
            watch.stop(time.monotonic() - started)  # never raises: a turn cut short leaves the JVM unprofiled
    if ends:
        _write_gate(gate, 0)
    off = time.time() if ends else hold[1]
    warmup = decider.warmup() if decider is not None else settle.Warmup(max(0.0, hold[0] - on - block.spread_s),
                                                                          settle.FIXED)
    return (Taken(block, on, hold, off, math.nan if ends else hold[1], warmup,
                  decider.burst() if decider is not None else arm.burst,
                  watch.close() if watch is not None else holdwatch.NOTHING, went_on=after is not None),
            drained_before)


def _settled(begins: float, decider: settle.HoldDecider | None, draining: _Draining | None,
             cpu: samplers.Sampler, tick: Callable[[], None]) -> tuple[float, float]:
    """When a turn's hold begins (Unix s), once it has: not before `begins`, nor before the row has settled where a
    `decider` judges it, nor before the other arm's last iterations (`draining`) have drained and a moment more; with
    when they had (NaN: no other arm drained)."""
    drained_before = math.nan
    judging = decider is not None
    while time.time() < begins or judging or draining is not None:
        if draining is not None and (seen := draining.seen()) is not None:
            # the other arm's last requests took CPU this arm's users would have had: a moment more for them
            drained_before, draining = seen, None
            begins = max(begins, seen + DRAINED_GAP_S)
        if decider is not None and judging and time.time() >= begins:
            decided = decider.tick(cpu.series, time.time() - time.monotonic())
            if decided is not None:
                begins, judging = max(begins, decided), False
                decider.hold_file.unlink(missing_ok=True)
        tick()
        time.sleep(0.5 if judging else 0.2)  # a live line a second: the drain is seen within 0.2 s of it
    while time.time() < begins:
        time.sleep(max(0.0, begins - time.time()))
    return begins, drained_before


@dataclass(frozen=True)
class _Draining:
    """An ended turn's last iterations: drained at the first of its runner's live lines written after the turn's end
    with none running, DRAIN_BOUND_S after the end at the latest."""
    runner: load.Runner
    off: float

    def seen(self) -> float | None:
        """When they had drained (Unix s), or None while some still run."""
        lines = livecounts.read([self.runner.live])[0]
        done = next((line.at for line in lines if line.at > self.off and line.running == 0), None)
        return done if done is not None or time.time() <= self.off + DRAIN_BOUND_S else time.time()

    def wait(self, runners: Sequence[load.Runner], probes: Sequence[liveness.Probe]) -> float:
        while (done := self.seen()) is None:
            _check(runners, probes)
            time.sleep(0.1)
        return done


def _wait_ended(runners: Sequence[load.Runner]) -> None:
    deadline = time.monotonic() + 30
    while any(runner.proc.poll() is None for runner in runners) and time.monotonic() < deadline:
        time.sleep(0.1)


def _release(runners: Sequence[load.Runner], gates: Sequence[Path]) -> None:
    """Every k6 stopped and crossed off as a row's are (drive.release), the gates removed."""
    drive.release(runners, None)
    for gate in gates:
        gate.unlink(missing_ok=True)
