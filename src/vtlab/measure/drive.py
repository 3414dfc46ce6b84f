"""A local row's load: k6 run against the row's service with the CPU and meter samplers beside it, the tiers
watched, the stall watch fed, and what it produced read back on one clock."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.core import constants
from vtlab.measure import holdwatch, liveness, load, sampling, settle, stalls
from vtlab.measure.target import Reporter
from vtlab.measure.tiers import LOAD, Rig
from vtlab.rig import ownership, procs, services
from vtlab.series import store, windows


@dataclass
class Drive:
    """What one row's load produced: k6's reading of the hold, the samplers' series, and the window."""
    measured: load.LoadResult
    cpu: windows.Series
    meters: windows.Series
    pids: dict[str, int | tuple[int, ...] | None]  # the tiers whose CPU was sampled (k6: each runner)
    k6_hold_start: float         # when k6's hold began (store.hold_start_s)
    hold_start: float            # the samplers' hold: k6's, less the start-up slack at its front
    hold_end: float
    k6: store.K6Series          # every request; it and the samplers' series in seconds since k6 started
    stall: dict[str, str]        # the stall and thread-dump columns (empty when the row never stalled)
    watched: holdwatch.Watched = holdwatch.NOTHING  # the service's threads and profile over the hold
    warmup: settle.Warmup = settle.Warmup(0, settle.FIXED)  # the warm-up as run
    cooldown_s: float | None = None  # the cool-down as run, when the harness stopped k6 (else the plan's)
    memory: dict[str, object] = field(default_factory=dict)  # the memory probe's cells (holdwatch.MemoryProbe)
    # the JVM's JIT at its busiest after the row, its steps' and its pre-warm's included: the next step's reference
    jit_burst: settle.Burst | None = None


def drive(rig: Rig, app: services.Tier, spec: load.LoadSpec, slug: str, progress: Reporter,
          watch: stalls.Watch | None, read_meters: Callable[[], dict[str, float] | None] | None,
          jcmds: Sequence[Path] = (), jit_burst: settle.Burst | None = None) -> Drive:
    """Run k6 for the row with the CPU and meter samplers beside it; the hold window in monotonic time. With the rig's
    memory probe on, the service's memory is read by the first of `jcmds` there is, with the requests in flight
    when the hold's last request has ended (a row whose warm-up settles: the only rows with that moment). `jit_burst`
    is the service JVM's busiest JIT window before the row (its pre-warm, earlier steps; None: a fresh JVM), the
    warm-up's reference for the compiler's burst being over."""
    log, summary, series_dir, k6_series = _row_files(rig.run_dir, slug)
    current = constants.CURRENT
    hold_file = series_dir / f"{slug}.hold" if spec.settles else None
    started_unix = time.time()
    runners = load.start_runners(rig.k6, spec, rig.runners, summary, log, rig.core_map["load"], k6_series,
                                 summary.with_name(f"{slug}-dashboard.html") if rig.k6_dashboard else None,
                                 hold_file)
    started = time.monotonic()
    unix_of_monotonic = time.time() - time.monotonic()
    # k6 starts its clock (and its ramp) once its VUs are initialised: the slack keeps the ramp's tail out
    probe = holdwatch.MemoryProbe(jcmds, app.pid) if rig.memory_probe else None
    decider = (settle.HoldDecider(hold_file, [runner.live for runner in runners],
                                  spec.ramp_s + current.k6_start_slack_s, spec.warmup_s, spec.hold_s, spec.cooldown_s,
                                  started_unix, app.pid, probe.take if probe else None,
                                  settle.STEP_WINDOW_S if spec.warm_step else settle.WINDOW_S, jit_burst)
               if hold_file else None)
    stopped = False  # k6 told to stop: the hold, its cool-down and the hold's last iterations are over
    live = LiveLine(progress, started, None if decider else spec.hold_start_s + spec.hold_s)
    pids, cpu, meters = sampling.samplers_of(rig, app, runners, read_meters)
    probes = rig.probes(app)
    # a warm-up that settles: the hold is watched once it is decided
    during_hold = _hold_watch(rig, app, slug, spec, spec.hold_start_s) if decider is None else None
    cpu.start()
    meters.start()
    try:
        while any(runner.proc.poll() is None for runner in runners):
            liveness.check(probes)  # a dead tier ends the row now, not after k6 hammered a closed port
            if len(runners) > 1 and time.monotonic() - started < spec.duration_s - 5 and not stopped:
                _all_running(runners)  # runners end together
            each_second(live, watch, started, runners, meters.series)
            if decider is not None and not stopped:
                hold_unix = decider.tick(cpu.series, unix_of_monotonic)
                if hold_unix is not None and during_hold is None:
                    during_hold = _hold_watch(rig, app, slug, spec, hold_unix - unix_of_monotonic - started)
                    live.hold_end_s = hold_unix - unix_of_monotonic - started + spec.hold_s
                if decider.finished():
                    for runner in runners:
                        runner.proc.send_signal(signal.SIGINT)  # k6 ends as on Ctrl-C: its summary is written
                    stopped = True
            if during_hold is not None:
                during_hold.tick(time.monotonic() - started)
            if time.monotonic() - started > spec.duration_s + 120:
                raise RuntimeError(f"k6 did not finish in time; see {log}")
            time.sleep(1)
        liveness.check(probes)
    finally:
        if during_hold is not None:
            during_hold.stop(time.monotonic() - started)  # never raises: a row cut short leaves the JVM unprofiled
        # every reading on the clock of k6's start: the row and any later re-cut compute on the same numbers
        cpu_series, meter_series = store.since(cpu.stop(), started), store.since(meters.stop(), started)
        release(runners, hold_file)
        store.write_samples(store.samples_path(series_dir, slug), cpu_series, meter_series, started_unix)
    requests, measured = _read_back(runners, k6_series, started_unix, stopped)
    planned = spec.hold_start_s if decider is None or decider.hold_start is None else decider.hold_start - started_unix
    hold_start = store.hold_start_s(requests, planned)
    return Drive(measured, cpu_series, meter_series, pids, hold_start, hold_start + current.k6_start_slack_s,
                 hold_start + spec.hold_s, requests,
                 watch.record(rig.run_dir) if watch else {"stall": "", "thread_dump": ""},
                 during_hold.close() if during_hold else holdwatch.NOTHING,
                 decider.warmup() if decider else settle.Warmup(spec.warmup_s, settle.FIXED),
                 decider.cooldown_s() if decider else None, probe.cells(decider is not None) if probe else {},
                 decider.burst() if decider else jit_burst)


class LiveLine:
    """The live line each second, and once more as the row's hold ends: what the line showed then is the figure a
    user compares with the row's rate (a log read without a terminal sees one line in fifteen otherwise)."""

    def __init__(self, progress: Reporter, started: float, hold_end_s: float | None):
        self.progress, self.started = progress, started
        self.hold_end_s = hold_end_s  # seconds after k6's start; None until a settling warm-up decides the hold
        self.hold_end_shown = False
        self.users_began: float | None = None  # Unix s of k6's first running user, once its live counts show one
        self.ok_per_s = 0.0  # k6's successes a second lately, as the line last showed them

    def tick(self, runners: Sequence[load.Runner]) -> None:
        reading = load.live_reading(runners)  # read once a second: the line's rates and the stall watch's clock
        ok_per_s, failed_per_s = reading.ok_per_s, reading.failed_per_s
        self.ok_per_s = ok_per_s
        if self.users_began is None:
            self.users_began = reading.users_began
        ended = (not self.hold_end_shown and self.hold_end_s is not None
                 and time.monotonic() - self.started >= self.hold_end_s)
        self.hold_end_shown |= ended
        self.progress.tick(self.started, ok_per_s, failed_per_s, ended)


def each_second(live: LiveLine, watch: stalls.Watch | None, started: float, runners: Sequence[load.Runner],
                meters: windows.Series) -> None:
    """What the row shows and watches each second: the live line's successes and failures a second from k6's own
    counts, the same for every target (a user's service may have no request counter: the line read 0.0 req/s from
    it), and the stall watch from the service's own counter (a target watches only a service whose counter it
    reads) or k6's, whichever saw more complete: a service whose scrapes go unanswered completes nothing by its own
    counter, yet served a CPU-bound virtual row's 870 req/s by k6's, its meters starved (2026-11-28, cpu1, seq1)."""
    live.tick(runners)
    if watch is not None:
        # users waiting and nothing completing (a deadlock): a JSON thread dump, taken while it lasts. Its clock is
        # the users', not k6's process's: k6 set up 10,000 users for 5 s before the first ran, and a watch counting
        # from k6's start called an 8 s downstream's first answers, at 13 s, a stall (front8, 2026-11-28)
        if live.users_began is not None:
            watch.observe(time.time() - live.users_began,
                          max(windows.recent_rate(meters, "requests_total", time.monotonic()), live.ok_per_s))


def _row_files(run_dir: Path, slug: str) -> tuple[Path, Path, Path, Path]:
    """The row's k6 log, its summary (none left from before), the series folder and the row's k6 series in it."""
    summary = run_dir / "k6" / f"{slug}.json"
    summary.parent.mkdir(parents=True, exist_ok=True)
    summary.unlink(missing_ok=True)
    series_dir = run_dir / "series"
    series_dir.mkdir(exist_ok=True)
    return run_dir / "logs" / f"k6-{slug}.log", summary, series_dir, store.k6_path(series_dir, slug)


def _hold_watch(rig: Rig, app: services.Tier, slug: str, spec: load.LoadSpec,
                hold_start_s: float) -> holdwatch.HoldWatch | None:
    """The hold's watch from `hold_start_s` (the loop's clock) less k6's start-up slack: what is profiled and whose
    threads are counted (the row's own hold is cut later from k6's tags, a moment later at most)."""
    slack = constants.CURRENT.k6_start_slack_s
    return (holdwatch.HoldWatch(app.pid, rig.profiler, rig.run_dir / "profiles", slug, hold_start_s + slack,
                                hold_start_s + spec.hold_s)
            if app.pid else None)


def _all_running(runners: Sequence[load.Runner]) -> None:
    """TierDied for a runner gone before the others: the row would go on at a share of its load."""
    for runner in runners:
        if runner.proc.poll() is not None:
            raise procs.TierDied(LOAD, procs.ended(runner.proc.returncode) + " before the others", runner.log)


def release(runners: Sequence[load.Runner], hold_file: Path | None) -> None:
    """Every runner stopped and crossed off (k6 ends on its own: like a stopped tier), the hold's file and the live
    counts removed."""
    for runner in runners:
        if runner.proc.poll() is None:
            procs.terminate(runner.proc)
        ownership.release(runner.proc.pid)
    if hold_file is not None:
        hold_file.unlink(missing_ok=True)
    for runner in runners:
        runner.live.unlink(missing_ok=True)  # read while the row ran: the row's series keeps every request


def _read_back(runners: Sequence[load.Runner], k6_series: Path, started_unix: float,
               stopped: bool) -> tuple[store.K6Series, load.LoadResult]:
    """The row's requests on the samplers' clock and what k6 measured of them, from the runners' kept series (merged
    into one where there are several). The CSV's k6 figures come from the series (a re-cut computes them the same
    way); the summaries vouch that k6 ended and carry the run-long count of acknowledged writes."""
    for runner in runners:
        if not runner.summary.exists() or not runner.series.exists():
            raise procs.TierDied(LOAD, procs.ended(runner.proc.returncode) + " without a summary", runner.log)
    if len(runners) > 1:  # the row's one series: every runner's requests on one clock
        store.merge([runner.series for runner in runners], k6_series)
    code = max((exit_code(runner.proc.returncode, stopped) for runner in runners), key=abs)
    writes = sum(load.read_summary(runner.summary, code).acknowledged_writes for runner in runners)
    requests = store.read_k6(k6_series, store.k6_start_unix_s(k6_series) - started_unix)
    return requests, store.load_result(requests, code, acknowledged_writes=writes)


K6_EXTERNAL_ABORT = 105  # k6's exit code after SIGINT (errext/exitcodes.ExternalAbort)


def exit_code(returncode: int, stopped: bool) -> int:
    """k6's exit code, except the one of the stop the harness asked for (its 'external abort' on SIGINT): once the
    hold is over, stopping k6 is how a warm-up that settled ends the row, not a failure."""
    return 0 if stopped and returncode == K6_EXTERNAL_ABORT else returncode


def of_requests(requests: store.K6Series, exit_code: int, cpu: windows.Series, meters: windows.Series,
                spec: load.LoadSpec, slack_s: float) -> Drive:
    """What a row's load produced when its requests and samples were gathered elsewhere (a cluster's runners and
    kubelet), as a local row's: the merged runners' requests, the samplers' series, the hold on their clock. The
    service's node is the host, so its CPU is what a neighbour would be measured against (the other tiers run on
    nodes of their own)."""
    measured = store.load_result(requests, exit_code)
    k6_hold = store.hold_start_s(requests, spec.hold_start_s)
    return Drive(measured, cpu, meters, {"app": 1}, k6_hold, k6_hold + slack_s, k6_hold + spec.hold_s, requests,
                 {"stall": "", "thread_dump": ""}, warmup=settle.Warmup(spec.warmup_s, settle.FIXED))
