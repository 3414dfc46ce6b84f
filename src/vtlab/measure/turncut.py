"""A block taken in its arm's turn (measure.turns), cut from its arm's whole series: the requests begun in its turn,
on its own clock (seconds since its turn began), tagged with the phase of the block they began in; written in the
k6 output's form and with its samplers' readings as a row's own series, and read back as its load (a Drive), so that
the row computes on the numbers a re-cut of the run reads."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from vtlab.core import constants
from vtlab.measure import holdwatch, load, settle
from vtlab.measure.drive import Drive, exit_code
from vtlab.measure.tiers import LOAD
from vtlab.rig import procs
from vtlab.series import store, windows


@dataclass(frozen=True)
class Block:
    """A block to measure: its arm (an index of the point's arms), its row's slug, how widely its turn spreads its
    users' first requests and its turn's unrecorded start (the spread included)."""
    arm: int
    slug: str
    spread_s: float
    settle_s: float
    # an arm's first turn at a point: its settle goes on until the row has settled by the warm-up's criterion
    # (measure.settle, over a later step's windows), at most this long from the turn's start; 0: it is settle_s
    bound_s: float = 0.0


@dataclass(frozen=True)
class Taken:
    """A block as it ran, in Unix seconds: its turn's start, its hold, its turn's end and its last iteration's end
    (where its arm's next block went on from it: its hold's end, both)."""
    block: Block
    on: float
    hold: tuple[float, float]
    off: float
    drained: float
    # the turn's settle as a row's warm-up, from its users' spread to its hold: fixed, or (an arm's first turn at a
    # point) ended once the row settled by the warm-up's own criterion (measure.settle), or at its bound
    warmup: settle.Warmup = settle.Warmup(0.0, settle.FIXED)
    burst: settle.Burst | None = None  # its JVM's JIT at its busiest by the turn's end (the next point's reference)
    watched: holdwatch.Watched = holdwatch.NOTHING  # its JVM's threads (and profile) over the hold
    # its arm's block before went on into it: no spread, no settle, its hold from that one's end
    went_on: bool = False


def whole_series(k6_dir: Path, slug: str) -> Path:
    """An arm's whole series for a point (every turn's requests and the waits between), kept in the run's k6/ folder:
    series/ holds the rows' own."""
    return store.k6_path(k6_dir, slug)


def read_back(runner: load.Runner, stopped: bool) -> tuple[store.K6Series, int]:
    """An arm's requests in Unix seconds and its k6's exit code (the stop the harness asked for is no failure)."""
    if not runner.summary.exists() or not runner.series.exists():
        raise procs.TierDied(LOAD, procs.ended(runner.proc.returncode or 0) + " without a summary", runner.log)
    return (store.read_k6(runner.series, store.k6_start_unix_s(runner.series)),
            exit_code(runner.proc.returncode or 0, stopped))


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


def block_drive(t: Taken, arm_requests: tuple[store.K6Series, int], series: tuple[windows.Series, windows.Series],
                 pids: dict, origin: float, series_dir: Path) -> Drive:
    """The block as a row's load: its cut written as the row's series and read back (the row computes on the
    numbers a re-cut reads), the samplers' readings of its turn on its clock."""
    k6, code = arm_requests
    path = store.k6_path(series_dir, t.block.slug)
    store.write_k6(path, cut(k6, t), round(t.on * 1000), note="turn")
    requests = store.read_k6(path)
    mono_on = t.on - origin
    edge = constants.CURRENT.cpu_interval_s * 4
    cpu, meters = (windows.Series([(at - mono_on, reading) for at, reading in readings.points
                                   if -edge <= at - mono_on <= t.drained - t.on + edge]) for readings in series)
    store.write_samples(store.samples_path(series_dir, t.block.slug), cpu, meters, t.on)
    hold_start, hold_end = t.hold[0] - t.on, t.hold[1] - t.on
    return Drive(store.load_result(requests, code), cpu, meters, pids, hold_start, hold_start, hold_end, requests,
                 {"stall": "", "thread_dump": ""}, watched=t.watched, warmup=t.warmup,
                 cooldown_s=round(t.drained - t.hold[1], 1))

