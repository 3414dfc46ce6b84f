"""A warm-up that ends when the row has settled: from the live series — successful requests a second (k6's live
file, load/k6build/series), the service's CPU (the CPU sampler) and its JIT compiler threads' CPU (read here from
/proc) — over sliding windows, bounded below and above. The harness writes the hold's start to the file vtlab's
k6 module reads (load/k6build/hold); every request starting after it is the hold's. Once the hold is over and the
last iteration begun in it has ended, the harness ends the row: it writes that moment to the same file, from which
no iteration makes a request, and stops k6 once no request is in flight (k6 interrupts one it is stopped in: a
write the service stored would go unacknowledged). That wait is the row's cool-down, as long as its hold's last
requests need and no longer (a fixed cool-down waited the plan's seconds whether they were needed or not; the users
kept loading the service until the last of the hold's requests ended either way).

Settled, over the last WINDOWS windows of WINDOW_S seconds, all after the ramp:
- the successful rate spreads by at most RATE_SPREAD of its mean;
- the JIT's burst is over: its compiler threads used at most JIT_SHARE of the service's CPU in the last window;
- the CPU a request costs without the compiler's is at most CPU_FALL below the first window's.
A fresh JVM's JIT shows in all three: the rate climbs while requests queue behind interpreted code, the compiler
threads take a large share of the CPU, and the CPU of a request falls as its code is compiled. Measured here, by
5 s: at 400 req/s the compiler took 40% of the service's CPU for the first 20 s, then under 5%; at 50 req/s 70%,
then a tail of 15-25% that lasted past the 45 s a fixed warm-up gave it (colder code compiled at ~3 ticks a second
whatever the rate, a large share of a small service CPU). JIT_SHARE ends the warm-up after the burst, within that
tail, where the fixed warm-up ended too; 10% kept low-rate rows to the bound. Without the JIT's own CPU the CPU
per request alone was fooled at 100 req/s: steady within 10% at 27 s, yet the hold then cost 2.8 ms a request
against 1.0 ms after the fixed 75 s warm-up — the compiler was still in its burst. The CPU may rise (a GC, colder
code compiled): only a fall says the code is not compiled yet. A row that never settles is measured from the upper
bound, as a fixed warm-up would be, and the hold's own steadiness test judges it.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from vtlab.measure import samplers
from vtlab.series import windows

WINDOW_S = 10.0
WINDOWS = 2
MIN_WARMUP_S = WINDOW_S * WINDOWS  # the first moment there are WINDOWS windows after the ramp
RATE_SPREAD = 0.04
JIT_SHARE = 0.25
CPU_FALL = 0.10
# the hold begins this long after the harness decides it: every k6 runner has read it by then (its module
# polls the file every 50 ms), so no request is tagged by a runner that has not yet seen the decision
LEAD_S = 0.3
# after the plan's cool-down, how long the hold's last iterations may still run before k6 is stopped anyway (the
# fixed warm-up's k6 gave them its cool-down and then its gracefulStop, the same 10 s)
GRACE_S = 10.0

SETTLED = "settled"
BOUND = "bound"  # never settled: the hold began at the upper bound
FIXED = "fixed"  # a warm-up of the plan's length: a shaped load, the open model, a cluster, --warmup-until fixed


@dataclass(frozen=True)
class Warmup:
    """The warm-up as run: its seconds (from the ramp's end to the hold's start) and why it ended."""
    seconds: float
    end: str  # SETTLED, BOUND or FIXED

    def cells(self) -> dict[str, object]:
        return {"warmup_s": round(self.seconds, 1), "warmup_end": self.end}


@dataclass(frozen=True)
class Live:
    """One line of a k6 runner's live file: when (Unix s), successes and failures so far, the hold's iterations
    running, every iteration running."""
    at: float
    ok: int
    failed: int
    hold_running: int
    running: int


def parse_live(text: str) -> list[Live]:
    """A live file's complete lines (the last may be half written: it is left out)."""
    lines = text.split("\n")[:-1]
    out = []
    for line in lines:
        fields = line.split(",")
        if len(fields) == 5:
            out.append(Live(int(fields[0]) / 1000, *(int(field) for field in fields[1:])))
    return out


def settled(ok: Sequence[tuple[float, float]], app_ticks: Sequence[tuple[float, float]],
            jit_ticks: Sequence[tuple[float, float]], since: float) -> bool:
    """Whether the row has settled by its latest reading: over the last WINDOWS windows of WINDOW_S (none before
    `since`, the ramp's end), the rate of successes steady, the JIT's share of the service's CPU small and the CPU
    ticks per success no longer falling. Each series is (time, count so far): `ok` the successes, `app_ticks` the
    service's CPU ticks, `jit_ticks` its compiler threads'; the last two are empty when the service's process is
    not ours (then the rate alone decides)."""
    if not ok:
        return False
    now = min(series[-1][0] for series in (ok, app_ticks, jit_ticks) if series)  # what every series has read
    if now - since < MIN_WARMUP_S:
        return False
    edges = [now - WINDOW_S * i for i in range(WINDOWS, -1, -1)]
    counts = _increments(ok, edges)
    if counts is None or min(counts) <= 0 or _spread(counts) > RATE_SPREAD:
        return False
    if not app_ticks:
        return True
    service = _increments(app_ticks, edges)
    jit = _increments(jit_ticks, edges) if jit_ticks else [0.0] * WINDOWS
    if service is None or jit is None:
        return False
    if jit[-1] > JIT_SHARE * service[-1]:
        return False
    per_request = [(cpu - compiling) / count for cpu, compiling, count in zip(service, jit, counts, strict=True)]
    return per_request[-1] >= (1 - CPU_FALL) * per_request[0]


def _increments(points: Sequence[tuple[float, float]], edges: Sequence[float]) -> list[float] | None:
    """How much a running count grew in each window between the edges; None where the readings do not reach."""
    values = [_at(points, edge) for edge in edges]
    if any(math.isnan(value) for value in values):
        return None
    return [b - a for a, b in zip(values, values[1:], strict=False)]


def compiler_ticks(pid: int, seen: dict[int, float], proc: Path = Path("/proc")) -> float | None:
    """The CPU ticks the JVM's JIT compiler threads (HotSpot's "C1/C2 CompilerThreadN") have used so far; `seen`
    keeps each thread's last reading, so that one the JVM ends (it adds and retires them as the queue grows and
    shrinks) still counts. None when the process is gone."""
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            if "CompilerThre" not in (task / "comm").read_text():
                continue
            stat = samplers.parse_stat((task / "stat").read_text())
        except OSError:
            continue  # the thread ended between the listing and the read
        seen[int(task.name)] = float(stat.own)
    return sum(seen.values())


def _at(points: Sequence[tuple[float, float]], when: float) -> float:
    """A cumulative count at `when`, interpolated between the readings either side; NaN outside them."""
    for (t0, v0), (t1, v1) in zip(points, points[1:], strict=False):
        if t0 <= when <= t1:
            return v0 if t1 == t0 else v0 + (v1 - v0) * (when - t0) / (t1 - t0)
    return math.nan


def _spread(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.inf if mean <= 0 else (max(values) - min(values)) / mean


class HoldDecider:
    """Ticked once a second by the drive loop: decides the hold's start when the row has settled (or at the
    upper bound), writes it for k6, and says when k6 may stop."""

    def __init__(self, hold_file: Path, live_files: Sequence[Path], ramp_s: float, max_warmup_s: float,
                 hold_s: float, cooldown_s: float, started_unix: float, pid: int | None = None,
                 before_end: Callable[[int], None] | None = None):
        self.hold_file, self.live_files = hold_file, list(live_files)
        # called with the requests in flight at the moment the hold's last request has ended, before the row is
        # ended: every user then waits on a request of the cool-down, none counted (measure.memprobe)
        self.before_end = before_end
        self.pid = pid  # the service's JVM, when it is ours: its compiler threads are read
        self.compilers: dict[int, float] = {}
        self.jit: list[tuple[float, float]] = []
        self.ramp_end = started_unix + ramp_s
        self.max_warmup_s, self.hold_s, self.planned_cooldown_s = max_warmup_s, hold_s, cooldown_s
        self.hold_start: float | None = None  # Unix s, once decided
        self.end = ""
        self.ending: float | None = None   # Unix s: when the row was ended (no iteration makes a request since)
        self.stopped: float | None = None  # Unix s: when no request was left in flight (k6 may stop)
        hold_file.unlink(missing_ok=True)

    def live(self) -> list[list[Live]]:
        return [parse_live(path.read_text()) if path.exists() else [] for path in self.live_files]

    def tick(self, cpu: windows.Series, monotonic_to_unix: float) -> float | None:
        """Decides the hold if it is time; returns its start (Unix s) once decided."""
        if self.hold_start is not None:
            return self.hold_start
        now = time.time()
        if self.pid is not None:
            compiled = compiler_ticks(self.pid, self.compilers)
            if compiled is not None:
                self.jit.append((now, compiled))
        runners = self.live()
        if now >= self.ramp_end + self.max_warmup_s:
            self._decide(now, BOUND)
        elif all(runners) and settled(_summed(runners), _ticks(cpu, monotonic_to_unix), self.jit, self.ramp_end):
            self._decide(now, SETTLED)
        return self.hold_start

    def _decide(self, now: float, why: str) -> None:
        start = now + LEAD_S
        self._write(f"{round(start * 1000)}\n")
        self.hold_start, self.end = start, why

    def _write(self, text: str) -> None:
        partial = self.hold_file.with_name(self.hold_file.name + ".part")
        partial.write_text(text)
        os.replace(partial, self.hold_file)  # k6's module never reads half a number

    def finished(self) -> bool:
        """Whether k6 may stop: the hold is over and no iteration begun in it still runs in any runner (or the
        plan's cool-down and GRACE_S have passed since: the fixed warm-up's k6 would have stopped them too), the
        row was ended then (no iteration makes a request since), and no request of any iteration is left in flight
        (or GRACE_S has passed since: k6's gracefulStop)."""
        if self.stopped is not None:
            return True
        if self.hold_start is None:
            return False
        now = time.time()
        over = self.hold_start + self.hold_s
        if self.ending is None:
            drained = now >= over and self._all_read(over, lambda line: line.hold_running == 0)
            if drained or now >= over + self.planned_cooldown_s + GRACE_S:
                if drained and self.before_end is not None:
                    self.before_end(sum(runner[-1].running for runner in self.live() if runner))
                    now = time.time()  # the row ends when it is written, after the probe
                self.ending = now
                self._write(f"{round(self.hold_start * 1000)}\n{round(now * 1000)}\n")
            return False
        # read after the module had seen the end (it polls every 50 ms): a line written before may count an
        # iteration that began just before the end and still sends its request
        if now >= self.ending + GRACE_S or self._all_read(self.ending + LEAD_S, lambda line: line.running == 0):
            self.stopped = now
        return self.stopped is not None

    def _all_read(self, since: float, condition) -> bool:
        """Every runner's latest live line is from `since` on and meets `condition`."""
        latest = [runner[-1] for runner in self.live() if runner]
        return len(latest) == len(self.live_files) and all(line.at >= since and condition(line) for line in latest)

    def cooldown_s(self) -> float | None:
        """The cool-down as run: from the hold's end to the stop (None before k6 may stop)."""
        if self.stopped is None or self.hold_start is None:
            return None
        return self.stopped - (self.hold_start + self.hold_s)

    def warmup(self) -> Warmup:
        """The warm-up as run (the hold never began: all of it, to the bound)."""
        if self.hold_start is None:
            return Warmup(self.max_warmup_s, BOUND)
        return Warmup(self.hold_start - self.ramp_end, self.end)


def _summed(runners: Sequence[Sequence[Live]]) -> list[tuple[float, float]]:
    """Every runner's successes on one timeline: the sum at each of the first runner's readings."""
    first = runners[0]
    if len(runners) == 1:
        return [(line.at, float(line.ok)) for line in first]
    others = [[(line.at, float(line.ok)) for line in runner] for runner in runners[1:]]
    summed = []
    for line in first:
        values = [_at(other, line.at) for other in others]
        if not any(math.isnan(value) for value in values):
            summed.append((line.at, line.ok + sum(values)))
    return summed


def _ticks(cpu: windows.Series, monotonic_to_unix: float) -> list[tuple[float, float]]:
    return [(t + monotonic_to_unix, v["app_ticks"]) for t, v in cpu.points if "app_ticks" in v]
