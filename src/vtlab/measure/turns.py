"""A paired point's blocks measured in turns: one k6 per arm, both started once with every user waiting, each block
its arm's turn (vtlab's k6 module holds a user until its arm's turn: load.Turns). A turn spreads its users' first
requests over one request's wait, as a ramp spreads them, settles, holds; then it ends, and the arm's last
iterations drain before the other arm's turn begins. Each arm's users and their connections live for the whole
point: a block pays no k6 start, no ramp of new connections and no cool-down of its own.

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

from vtlab.measure import jit, liveness, livecounts, load, samplers, settle
from vtlab.measure.drive import K6_EXTERNAL_ABORT, Drive
from vtlab.measure.target import Reporter
from vtlab.measure.tiers import LOAD, Rig
from vtlab.plan.planner import Plan
from vtlab.core import constants
from vtlab.rig import ownership, procs, services
from vtlab.series import store, windows

# A turn's unrecorded start beyond its users' spread and one request's wait (the last spread user's first answer):
# the live line's second and the samplers' first readings at the new load.
TURN_SETTLE_S = 2.0
# An arm's first turn at a point is its JVM's first run at that load since its last step (or its pre-warm): the
# warm-up a later step of a staircase settled in here (10-12 s, aa5-aa10), so that its JIT's work at the new load is
# not the hold's. Its hold is judged for a JIT still compiling like any row's (jit-not-settled).
FIRST_TURN_EXTRA_S = 10.0
# How long an ended turn's last iterations may drain: k6's request timeout (60 s, the load scripts') and a margin.
DRAIN_BOUND_S = 70.0
# k6 sets up every user before the first waits for its turn: thousands take seconds (10,000: ~5 s here).
START_BOUND_S = 120.0


@dataclass(frozen=True)
class ArmLoad:
    """One arm's side of a point: its service, the load on it, its meters, the name of its k6's files and how widely
    a turn spreads its users' first requests."""
    app: services.Tier
    spec: load.LoadSpec
    read_meters: Callable[[], dict[str, float] | None] | None
    slug: str
    spread_s: float


@dataclass(frozen=True)
class Block:
    """A block to measure: its arm (an index of the point's arms), its row's slug and its turn's unrecorded start."""
    arm: int
    slug: str
    settle_s: float


@dataclass(frozen=True)
class Taken:
    """A block as it ran, in Unix seconds: its turn's start, its hold, its turn's end and its last iteration's end."""
    block: Block
    on: float
    hold: tuple[float, float]
    off: float
    drained: float


def fits(plan: Plan) -> bool:
    """Whether a plan's paired points take turns: a paired plan of steady closed-model loads (a user held back by the
    gate is one arrival late in an open model, a shape's stages are k6's own clock), one k6 per arm, no writes (a
    block's writes are counted in the database, which both arms share), a JVM kept between blocks."""
    return (plan.arms is not None and plan.search_peak_users == 0 and plan.runners == 1 and not plan.jvm_per_row
            and all(row.load_model == "closed" and row.shape == "steady" and row.workload != "write"
                    for row in plan.rows))


def settle_s(spread_s: float, wait_s: float, first: bool) -> float:
    """A turn's unrecorded start: the spread, one request's wait, TURN_SETTLE_S, and FIRST_TURN_EXTRA_S for an arm's
    first turn at a point."""
    return spread_s + wait_s + TURN_SETTLE_S + (FIRST_TURN_EXTRA_S if first else 0.0)


def take(rig: Rig, arms: Sequence[ArmLoad], blocks: Sequence[Block], hold_s: int, begin: Callable[[int], None],
         progress: Reporter) -> list[tuple[Taken, Drive]]:
    """Every block of a point, in order, each in its arm's turn; how each ran and what it produced as a row's load
    (its Drive, on its own clock: seconds since its turn began). Each arm's whole series stays in the run's k6/
    folder. `begin(i)` is called as block i's turn begins. procs.TierDied where a tier or a k6 died: no block of the
    point is then kept."""
    series_dir, k6_dir = rig.run_dir / "series", rig.run_dir / "k6"
    series_dir.mkdir(exist_ok=True)
    k6_dir.mkdir(parents=True, exist_ok=True)
    budget = math.ceil(START_BOUND_S + sum(block.settle_s + hold_s + DRAIN_BOUND_S for block in blocks))
    gates = [k6_dir / f"{arm.slug}.turn" for arm in arms]
    runners: list[load.Runner] = []
    sampling: list[tuple[dict, samplers.Sampler, samplers.Sampler]] = []
    taken: list[Taken] = []
    stopped = False
    try:
        for arm, gate in zip(arms, gates, strict=True):
            _write_gate(gate, 0)
            turns = load.Turns(gate, round(arm.spread_s * 1000), budget)
            runners += load.start_runners(rig.k6, arm.spec, 1, k6_dir / f"{arm.slug}.json",
                                          rig.run_dir / "logs" / f"k6-{arm.slug}.log", rig.core_map["load"],
                                          k6_dir / f"{arm.slug}{store.K6_SUFFIX}", turns=turns)
        sampling = [_samplers(rig, arms, runners, index) for index in range(len(arms))]
        for _, cpu, meters in sampling:
            cpu.start()
            meters.start()
        probes = [probe for arm in arms for probe in rig.probes(arm.app)]
        _users_ready(runners, probes)
        for index, block in enumerate(blocks):
            begin(index)
            taken.append(_turn(block, gates[block.arm], runners, probes, hold_s, progress))
        for runner in runners:
            runner.proc.send_signal(signal.SIGINT)  # k6 ends as on Ctrl-C: its summary is written
        stopped = True
        _wait_ended(runners)
    finally:
        series = [(cpu.stop(), meters.stop()) for _, cpu, meters in sampling]
        _release(runners, gates)
    origin = time.time() - time.monotonic()  # the samplers' monotonic clock in Unix seconds
    requests = [_read_back(runner, stopped) for runner in runners]
    return [(t, _block_drive(t, requests[t.block.arm], series[t.block.arm], sampling[t.block.arm][0], origin,
                             series_dir)) for t in taken]


def _samplers(rig: Rig, arms: Sequence[ArmLoad], runners: Sequence[load.Runner],
              index: int) -> tuple[dict, samplers.Sampler, samplers.Sampler]:
    """Arm `index`'s samplers: its JVM the app (its compiler threads read too), its k6 the load, the other arm's JVM
    and k6 the rig's idle."""
    current = constants.CURRENT
    app = arms[index].app
    others = [i for i in range(len(arms)) if i != index]
    idle = tuple(pid for i in others for pid in (arms[i].app.pid, runners[i].proc.pid) if pid)
    pids = {**rig.pids(app), "idle": idle, "load": (runners[index].proc.pid,),
            "proxy": rig.toxiproxy.pid if rig.toxiproxy else None}
    read_cpu = jit.with_compiler_cpu(samplers.cpu_reader(lambda: pids), app.pid)
    read_meters = arms[index].read_meters
    return (pids, samplers.Sampler(current.cpu_interval_s, read_cpu),
            samplers.Sampler(current.meter_interval_s, read_meters or (lambda: None)))


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
          progress: Reporter) -> Taken:
    """One block: its arm's turn through its settle and hold, then ended and its iterations drained."""
    runner = runners[block.arm]
    on = time.time()
    started = time.monotonic()
    _write_gate(gate, int(on * 1000))
    hold = (on + block.settle_s, on + block.settle_s + hold_s)
    shown = False
    while time.time() < hold[1]:
        _check(runners, probes)
        reading = load.live_reading([runner])
        ended = not shown and time.time() >= hold[1] - 1
        shown |= ended
        progress.tick(started, reading.ok_per_s, reading.failed_per_s, ended)
        time.sleep(min(1.0, max(0.05, hold[1] - time.time())))
    _write_gate(gate, 0)
    off = time.time()
    return Taken(block, on, hold, off, _drained(runner, runners, probes, off))


def _drained(runner: load.Runner, runners: Sequence[load.Runner], probes: Sequence[liveness.Probe],
             off: float) -> float:
    """When the ended turn's last iteration had ended (Unix s): the first of the runner's live lines written after
    the turn's end with none running; DRAIN_BOUND_S after it at the latest."""
    while True:
        lines = livecounts.read([runner.live])[0]
        done = next((line.at for line in lines if line.at > off and line.running == 0), None)
        if done is not None:
            return done
        if time.time() > off + DRAIN_BOUND_S:
            return time.time()
        _check(runners, probes)
        time.sleep(0.1)


def _wait_ended(runners: Sequence[load.Runner]) -> None:
    deadline = time.monotonic() + 30
    while any(runner.proc.poll() is None for runner in runners) and time.monotonic() < deadline:
        time.sleep(0.1)


def _release(runners: Sequence[load.Runner], gates: Sequence[Path]) -> None:
    for runner in runners:
        if runner.proc.poll() is None:
            procs.terminate(runner.proc)
        ownership.release(runner.proc.pid)
        runner.live.unlink(missing_ok=True)
    for gate in gates:
        gate.unlink(missing_ok=True)


def _read_back(runner: load.Runner, stopped: bool) -> tuple[store.K6Series, int]:
    """An arm's requests in Unix seconds and its k6's exit code (the stop the harness asked for is no failure)."""
    if not runner.summary.exists() or not runner.series.exists():
        raise procs.TierDied(LOAD, procs.ended(runner.proc.returncode or 0) + " without a summary", runner.log)
    code = runner.proc.returncode or 0
    code = 0 if stopped and code == K6_EXTERNAL_ABORT else code
    return store.read_k6(runner.series, store.k6_start_unix_s(runner.series)), code


def cut(k6: store.K6Series, t: Taken) -> store.K6Series:
    """The block's requests — those that began in its turn — on its own clock (seconds since its turn began), each
    tagged with the block's phase it began in: its settle (warmup), its hold's halves, or after it (cooldown)."""
    hold_start, hold_end = t.hold
    middle = (hold_start + hold_end) / 2
    requests = []
    for r in k6.requests:
        start = r.start_s
        if not t.on <= start <= t.drained:
            continue
        phase, half = (("warmup", "none") if start < hold_start else ("cooldown", "none") if start >= hold_end
                       else ("hold", "a" if start < middle else "b"))
        requests.append(replace(r, end_s=r.end_s - t.on, phase=phase, half=half))
    vus = [(at - t.on, count) for at, count in k6.vus if t.on <= at <= t.drained]
    return store.K6Series(requests, vus, [])


def _block_drive(t: Taken, arm_requests: tuple[store.K6Series, int], series: tuple[windows.Series, windows.Series],
                 pids: dict, origin: float, series_dir: Path) -> Drive:
    """The block as a row's load: its cut written as the row's series and read back (the row computes on the
    numbers a re-cut reads), the samplers' readings of its turn on its clock."""
    k6, exit_code = arm_requests
    path = store.k6_path(series_dir, t.block.slug)
    store.write_k6(path, cut(k6, t), round(t.on * 1000), note="turn")
    requests = store.read_k6(path)
    mono_on = t.on - origin
    edge = constants.CURRENT.cpu_interval_s * 4
    cpu, meters = (windows.Series([(at - mono_on, reading) for at, reading in readings.points
                                   if -edge <= at - mono_on <= t.drained - t.on + edge]) for readings in series)
    store.write_samples(store.samples_path(series_dir, t.block.slug), cpu, meters, t.on)
    hold_start, hold_end = t.hold[0] - t.on, t.hold[1] - t.on
    return Drive(store.load_result(requests, exit_code), cpu, meters, pids, hold_start, hold_start, hold_end, requests,
                 {"stall": "", "thread_dump": ""}, warmup=settle.Warmup(t.block.settle_s, settle.FIXED),
                 cooldown_s=round(t.drained - t.hold[1], 1))

