"""A warm-up that ends when the row has settled: from the live series — successful requests a second (k6's live
file: measure.livecounts), the service's CPU (the CPU sampler) and its JIT compiler's own progress (measure.jit:
HotSpot's counters, the compiler threads' CPU from /proc where those cannot be read) — over sliding windows,
bounded below and above. The harness writes the hold's start to the file vtlab's k6 module reads
(load/k6build/hold); every request starting after it is the hold's. Once the hold is over and the last iteration
begun in it has ended, the harness ends the row: it writes that moment to the same file, from which no iteration
makes a request, and stops k6 once no request is in flight (k6 interrupts one it is stopped in: a write the service
stored would go unacknowledged). That wait is the row's cool-down, as long as its hold's last requests need and no
longer.

Settled, over the last WINDOWS windows of WINDOW_S seconds, all after the ramp:
- rate: the successful rate spreads by at most RATE_SPREAD of its mean;
- cpu: the CPU a request costs without the compiler's is at most CPU_FALL below the first window's;
- jit: the JIT no longer moves the answer — its compile time in the last window is at most JIT_SHARE of the
  service's CPU, or, where the host had room (busy below HOST_BUSY), the CPU per request has stopped falling and the
  compiler's burst is over (its last window at most JIT_DECAY of the JVM's busiest), whatever it is: it then
  neither makes requests cheaper nor takes a core they need. A fresh JVM at 1,000 req/s passed the other tests
  20 s after the ramp with its compiler at 69% of the service's CPU, 39 methods a second, 77% of its busiest
  window: mid-burst, its code still being replaced. The busiest window is the JVM's, not the row's (Burst): the
  row's own since its ramp, or one before it — its pre-warm's (targets.prewarm) or an earlier step's — where that
  compiled more a second. A pre-warmed jar's first step (24 users) was held to its bound as jit-not-settled when
  only the row's windows counted: its burst had been in the pre-warm, the busiest window the row saw was the tail
  itself (decay 100%), and at that load the tail was still above JIT_SHARE of a small service CPU.
A fresh JVM's JIT shows in all three: the rate climbs while requests queue behind interpreted code, the compiler
takes a large share of the CPU, and the CPU of a request falls as its code is compiled. Measured here: at 400 req/s
the compiler took 40% of the service's CPU for the first 20 s, then under 5%; at 100 req/s it still compiled ~8
methods a second after 75 s, at 41% of the service's CPU (6% of the machine), for minutes. A share alone would hold
such a row to its bound for a compiler that moves nothing but its own CPU (said in the row: warmup_jit_share_pct);
yet on a full host the same share is taken from the requests: a JIT-heavy third-party app (MVC, Thymeleaf, JPA; 10
users, CPU-bound on 2 cores) was called settled at 21 s under the old 25% rule with its compiler at 13% of its CPU,
and its platform row then measured 450 req/s against 622 after a 240 s warm-up. The CPU may rise (a GC, colder code
compiled): only a fall says the code is not compiled yet. A row that never settles is measured from the upper
bound, as a fixed warm-up would be, with the tests it failed recorded in the row: one whose JIT was still busy is
flagged (explain.validity: jit-not-settled), never silently held.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from vtlab.core import constants, cores
from vtlab.measure import jit, livecounts
from vtlab.series import windows

# The criterion's thresholds are the rig's constants (recorded in every run's metadata.json, "rig")
_RIG = constants.CURRENT
WINDOW_S = _RIG.settle_window_s
STEP_WINDOW_S = _RIG.settle_step_window_s  # a later step of a staircase, its JVM warm (constants say why)
WINDOWS = _RIG.settle_windows
MIN_WARMUP_S = WINDOW_S * WINDOWS  # the first moment there are WINDOWS windows after the ramp
RATE_SPREAD = _RIG.settle_rate_spread
JIT_SHARE = _RIG.settle_jit_share  # compiling at most this share of the service's CPU: whatever it compiles is noise
CPU_FALL = _RIG.settle_cpu_fall
HOST_BUSY = _RIG.saturated_share   # a host this busy is full: a compiler's time is then taken from the requests
JIT_DECAY = _RIG.settle_jit_decay  # the burst is over: the last window compiled at most this share of the busiest's
# the hold begins this long after the harness decides it: every k6 runner has read it by then (its module
# polls the file every 50 ms), so no request is tagged by a runner that has not yet seen the decision
LEAD_S = 0.3
# after the plan's cool-down, how long the hold's last iterations may still run before k6 is stopped anyway (the
# fixed warm-up's k6 gave them its cool-down and then its gracefulStop, the same 10 s)
GRACE_S = 10.0

SETTLED = "settled"
BOUND = "bound"  # never settled: the hold began at the upper bound
FIXED = "fixed"  # a warm-up of the plan's length: a shaped load, the open model, a cluster, --warmup-until fixed

# the tests of the criterion, as a row records those it did not meet at the bound
RATE, JIT, CPU = "rate", "jit", "cpu"


@dataclass(frozen=True)
class Burst:
    """A JVM's JIT at its busiest so far, carried from its pre-warm and its steps into the next row's judge: the
    compile time a second of its busiest window (jit.JitMeter.seconds' unit) and where it was read (jit.PERFDATA or
    jit.COMPILER_THREADS: elapsed compile time and compiler CPU are not one scale, so one never judges the other)."""
    per_s: float
    source: str

    def per_s_in(self, source: str) -> float:
        """The busiest compile time a second, for a row whose JIT is read from `source` (0: read another way)."""
        return self.per_s if source == self.source else 0.0


def busiest(before: Burst | None, seconds: Sequence[tuple[float, float]], source: str, since: float,
            window_s: float) -> Burst | None:
    """The JVM's burst after a stretch of readings (`seconds`, its compile time so far, read from `source`): the
    busiest of its whole windows of `window_s` from `since` on, or `before`'s where that was busier. None while
    nothing was read."""
    if not seconds or not source:
        return before
    start = max(since, seconds[0][0])  # from the first reading: a window before it reads nothing
    grown = _windows_since(seconds, start, seconds[-1][0], window_s)
    now = Burst(max(grown, default=0.0) / window_s, source)
    if before is None or before.source != source:
        return now
    return before if before.per_s >= now.per_s else now


@dataclass(frozen=True)
class Judgement:
    """The criterion's values at one reading: the rate's spread, the JIT's compile time as a share of the service's
    CPU and of the JVM's busiest window (None: not read), methods compiled a second (None: not read), and the tests
    not met."""
    rate_spread: float
    jit_share: float | None = None
    jit_decay: float | None = None
    compiles_per_s: float | None = None
    unmet: tuple[str, ...] = ()
    host_busy: float | None = None  # the machine's busy share over the last window (None: not read)

    @property
    def settled(self) -> bool:
        return not self.unmet


@dataclass(frozen=True)
class Warmup:
    """The warm-up as run: its seconds (from the ramp's end to the hold's start), why it ended, the criterion's
    values at its end (None: the warm-up was fixed, or ended before any judgement) and the JIT's source."""
    seconds: float
    end: str  # SETTLED, BOUND or FIXED
    judged: Judgement | None = None
    jit_source: str = ""

    def cells(self) -> dict[str, object]:
        judged = self.judged
        def pct(value: float | None) -> object:
            return "" if value is None else round(100 * value, 1)
        return {"warmup_s": round(self.seconds, 1), "warmup_end": self.end,
                "warmup_unsettled": ";".join(judged.unmet) if judged and self.end == BOUND else "",
                "warmup_jit_share_pct": pct(judged.jit_share) if judged else "",
                "warmup_jit_decay_pct": pct(judged.jit_decay) if judged else "",
                "warmup_compiles_per_s": ("" if judged is None or judged.compiles_per_s is None
                                          else round(judged.compiles_per_s, 1)),
                "warmup_jit_source": self.jit_source,
                "warmup_host_busy_pct": "" if judged is None or judged.host_busy is None else pct(judged.host_busy)}


def settled(ok: Sequence[tuple[float, float]], app_cpu: Sequence[tuple[float, float]],
            jit: Sequence[tuple[float, float]], since: float, compiles: Sequence[tuple[float, float]] = (),
            host_busy: Sequence[tuple[float, float]] = (), host_total: Sequence[tuple[float, float]] = ()) -> bool:
    """Whether the row has settled by its latest reading (judge)."""
    judged = judge(ok, app_cpu, jit, since, compiles, host_busy, host_total)
    return judged is not None and judged.settled


def judge(ok: Sequence[tuple[float, float]], app_cpu: Sequence[tuple[float, float]],
          jit: Sequence[tuple[float, float]], since: float,
          compiles: Sequence[tuple[float, float]] = (), host_busy: Sequence[tuple[float, float]] = (),
          host_total: Sequence[tuple[float, float]] = (),
          jit_cpu: Sequence[tuple[float, float]] = (), usable: float = 1.0,
          window_s: float = WINDOW_S, busiest_before_per_s: float = 0.0) -> Judgement | None:
    """The criterion at the latest reading: over the last WINDOWS windows of `window_s` (none before `since`, the
    ramp's end), the rate of successes, the CPU per success without the compiler's, and the JIT's compile time
    against the service's CPU — where the host had room, only as far as the CPU per request shows it. Each series is
    (time, count so far): `ok` the successes, `app_cpu` the service's CPU, `jit` its compiler's time (in app_cpu's
    unit), `compiles` the methods compiled, `host_busy` and `host_total` the machine's busy and total CPU, `jit_cpu`
    the compiler threads' CPU, taken out of the service's per request (`jit` where it is not given); app_cpu
    and jit are empty when the service's process is not ours (then the rate alone decides); `usable` the share of the
    machine the rig may use (cores.usable_share); `window_s` WINDOW_S, or STEP_WINDOW_S on a JVM the steps before
    warmed; `busiest_before_per_s` the compile time a second of the JVM's busiest window before the row (its pre-warm,
    earlier steps: Burst; 0 where none was read), against which the compiler's burst is over as much as against the
    row's own. None while there is nothing to judge yet (too early, or readings that do not reach back)."""
    if not ok:
        return None
    now = min(series[-1][0] for series in (ok, app_cpu, jit) if series)  # what every series has read
    if now - since < window_s * WINDOWS:
        return None
    edges = [now - window_s * i for i in range(WINDOWS, -1, -1)]
    counts = _increments(ok, edges)
    if counts is None:
        return None
    spread = _spread(counts) if min(counts) > 0 else math.inf
    unmet = [RATE] if spread > RATE_SPREAD else []
    if not app_cpu:
        return Judgement(spread, unmet=tuple(unmet))
    service = _increments(app_cpu, edges)
    compiling = _increments(jit, edges) if jit else [0.0] * WINDOWS
    if service is None or compiling is None:
        return None
    spent_cpu = _increments(jit_cpu, edges) if jit_cpu else compiling
    if min(counts) > 0 and spent_cpu is not None:
        per_request = [(cpu - spent) / count for cpu, spent, count in zip(service, spent_cpu, counts, strict=True)]
        if per_request[-1] < (1 - CPU_FALL) * per_request[0]:
            unmet.append(CPU)
    share = compiling[-1] / service[-1] if service[-1] > 0 else math.inf
    # the JVM's busiest window: a burst in the pre-warm or an earlier step is over as much as one since the ramp
    busiest = (max([compiling[-1], busiest_before_per_s * window_s, *_windows_since(jit, since, now, window_s)])
               if jit else 0.0)
    decay = compiling[-1] / busiest if busiest > 0 else 0.0
    host = _share(host_busy, host_total, edges[-2:])
    if host is not None:  # busy against what the rig may use: a cgroup's quota leaves the machine part idle
        host /= usable
    # the compiler's time moves the answer where it still makes requests cheaper (CPU), takes cores they need (a
    # full host), or is still in its burst (its code is being replaced as the hold would begin)
    room = host is not None and host < HOST_BUSY and CPU not in unmet and decay <= JIT_DECAY
    if share > JIT_SHARE and not room:
        unmet.append(JIT)
    compiled = _increments(compiles, edges[-2:]) if compiles else None
    return Judgement(spread, share if jit else None, decay if jit else None,
                     compiled[0] / window_s if compiled else None, tuple(unmet), host)


def _share(busy: Sequence[tuple[float, float]], total: Sequence[tuple[float, float]],
           edges: Sequence[float]) -> float | None:
    """The machine's busy share between two edges; None where the readings do not reach."""
    if not busy or not total:
        return None
    grew, out_of = _increments(busy, edges), _increments(total, edges)
    return None if grew is None or out_of is None or out_of[0] <= 0 else grew[0] / out_of[0]


def _windows_since(points: Sequence[tuple[float, float]], since: float, now: float, window_s: float) -> list[float]:
    """How much a running count grew in each whole window of `window_s` from `since` up to `now` (the busiest of
    them is the JIT's burst)."""
    edges = [since + window_s * i for i in range(int((now - since) // window_s) + 1)]
    grown = _increments(points, edges) if len(edges) > 1 else []
    return [value for value in grown or [] if not math.isnan(value)]


def _increments(points: Sequence[tuple[float, float]], edges: Sequence[float]) -> list[float] | None:
    """How much a running count grew in each window between the edges; None where the readings do not reach."""
    values = [_at(points, edge) for edge in edges]
    if any(math.isnan(value) for value in values):
        return None
    return [b - a for a, b in zip(values, values[1:], strict=False)]


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
                 before_end: Callable[[int], None] | None = None, window_s: float = WINDOW_S,
                 burst: Burst | None = None):
        self.hold_file, self.live_files = hold_file, list(live_files)
        # called with the requests in flight at the moment the hold's last request has ended, before the row is
        # ended: every user then waits on a request of the cool-down, none counted (measure.memprobe)
        self.before_end = before_end
        self.meter = jit.JitMeter(pid) if pid is not None else None  # the service's JVM, when it is ours
        self.window_s = window_s  # judge's windows: STEP_WINDOW_S on a JVM the steps before warmed
        self.burst_before = burst  # the JVM's busiest JIT window before the row (its pre-warm, earlier steps)
        self.usable = cores.usable_share(os.cpu_count() or 0, cores.quota())  # read once: a row's quota holds
        self.judged: Judgement | None = None  # the criterion at the latest reading
        self.ramp_end = started_unix + ramp_s
        self.max_warmup_s, self.hold_s, self.planned_cooldown_s = max_warmup_s, hold_s, cooldown_s
        self.hold_start: float | None = None  # Unix s, once decided
        self.end = ""
        self.ending: float | None = None   # Unix s: when the row was ended (no iteration makes a request since)
        self.stopped: float | None = None  # Unix s: when no request was left in flight (k6 may stop)
        hold_file.unlink(missing_ok=True)

    def live(self) -> list[list[livecounts.Live]]:
        return livecounts.read(self.live_files)

    def tick(self, cpu: windows.Series, monotonic_to_unix: float) -> float | None:
        """Decides the hold if it is time; returns its start (Unix s) once decided."""
        if self.hold_start is not None:
            return self.hold_start
        now = time.time()
        if self.meter is not None:
            self.meter.read(now)
        runners = self.live()
        if all(runners):
            jit, compiles, jit_cpu = ((self.meter.seconds, self.meter.compiles, self.meter.cpu) if self.meter
                                      else ([], [], []))
            self.judged = judge(_summed(runners), _cpu_seconds(cpu, monotonic_to_unix) if self.meter else [],
                                jit, self.ramp_end, compiles, _readings(cpu, "host_busy", monotonic_to_unix),
                                _readings(cpu, "host_total", monotonic_to_unix), jit_cpu, self.usable,
                                self.window_s, self._before_per_s()) or self.judged
        if self.judged is not None and self.judged.settled and all(runners):
            self._decide(now, SETTLED)  # first: a criterion met on the bound's own tick is met, not timed out
        elif now >= self.ramp_end + self.max_warmup_s:
            self._decide(now, BOUND)
        return self.hold_start

    def _before_per_s(self) -> float:
        """The JVM's busiest compile time a second before the row, in the unit this row's meter reads."""
        return self.burst_before.per_s_in(self.meter.source) if self.burst_before and self.meter else 0.0

    def burst(self) -> Burst | None:
        """The JVM's burst after the row: the busiest window before it or since its ramp (the next step's
        reference)."""
        if self.meter is None:
            return self.burst_before
        return busiest(self.burst_before, self.meter.seconds, self.meter.source, self.ramp_end, self.window_s)

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
        source = self.meter.source if self.meter else ""
        if self.hold_start is None:
            return Warmup(self.max_warmup_s, BOUND, self.judged, source)
        return Warmup(self.hold_start - self.ramp_end, self.end, self.judged, source)


def _summed(runners: Sequence[Sequence[livecounts.Live]]) -> list[tuple[float, float]]:
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


def _readings(cpu: windows.Series, name: str, monotonic_to_unix: float) -> list[tuple[float, float]]:
    return [(t + monotonic_to_unix, v[name]) for t, v in cpu.points if name in v]


def _cpu_seconds(cpu: windows.Series, monotonic_to_unix: float) -> list[tuple[float, float]]:
    """The service's CPU so far, in seconds, on the Unix clock."""
    return [(t + monotonic_to_unix, v["app_ticks"] / jit.CLOCK_TICKS) for t, v in cpu.points if "app_ticks" in v]
