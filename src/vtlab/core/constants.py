"""The rig's own constants that a row's numbers depend on.

Each run writes them into metadata.json ("rig"); the analysis reads them back from there, so a CSV
analysed later or on another machine is judged by what that run really had. The values below are what
this version of vtlab measures with, and stand in for runs recorded before the record existed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields

from vtlab.core import generatorcheck, noisefloor
from vtlab.core.settings import LOAD

PINNING_SETTINGS = LOAD / "pinning.jfc"


def _jfc_threshold_ms() -> int:
    """jdk.VirtualThreadPinned's threshold as the recording settings file states it."""
    match = re.search(r'<setting name="threshold">\s*(\d+)\s*ms', PINNING_SETTINGS.read_text())
    if not match:
        raise ValueError(f"{PINNING_SETTINGS} states no threshold in ms")
    return int(match.group(1))


def _recorded_cv(column: str) -> float | None:
    """The floor's CV as metadata.json records it: null, not NaN (no JSON), where none was measured."""
    floor = noisefloor.current(column)
    return floor.cv_pct if floor.runs else None


@dataclass(frozen=True)
class Constants:
    cpu_interval_s: float = 0.25       # per-tier CPU and RSS sampler: 4 Hz
    meter_interval_s: float = 0.5      # the service's Prometheus meters: 2 Hz
    k6_start_slack_s: float = 2.0      # k6 initialises its VUs before its clock starts; kept out of the hold
    jfr_pinned_threshold_ms: int = field(default_factory=_jfc_threshold_ms)
    k6_thresholds_exit: int = 99       # k6's exit code when a threshold (validity, not speed) was crossed
    tomcat_max_threads: int = 200      # the service's request threads unless a row sets them (Spring Boot's default)
    pool_timeout_ms: int = 5000        # the service's DB_POOL_TIMEOUT_MS default: a borrow waiting longer fails
    # Machine CPU (100% = every CPU) that no tier used above which a row is flagged: a neighbour that
    # busy takes a tenth of a core's worth from a 2-core machine's tiers.
    foreign_cpu_flag_pct: float = 5.0
    # The warm-up that ends once the row has settled (measure.settle, whose docstring says why each): over the last
    # settle_windows windows of settle_window_s after the ramp, the successful rate spread by at most
    # settle_rate_spread; the CPU per request (the compiler's apart) at most settle_cpu_fall below the first
    # window's; the JIT's compile time at most settle_jit_share of the service's CPU, unless the host had room (busy
    # below saturated_share), the CPU per request had stopped falling and the compiler's burst was over (its last
    # window at most settle_jit_decay of its busiest).
    settle_window_s: float = 10.0
    settle_windows: int = 2
    # A later step of a staircase (its JVM warmed by the steps before): windows of this length, and k6's ramp this
    # long. Only the users changed: the new ones reach their cycle within a few downstream calls (each window still
    # holds five 1 s cycles), and the code was compiled by the steps before, so a 10 s window mostly waited.
    settle_step_window_s: float = 5.0
    step_ramp_s: int = 2
    # A staircase's fresh JVM runs this long at its top rate before its first step (targets.prewarm says why), after
    # a ramp this long; its first step is then judged as a later one.
    prewarm_s: int = 20
    prewarm_ramp_s: int = 3
    settle_rate_spread: float = 0.04
    settle_jit_share: float = 0.05
    settle_jit_decay: float = 0.5
    settle_cpu_fall: float = 0.10
    # Fixed and marginal costs apart (explain.costs): a staircase's steps whose rates lie within this share of each
    # other give its line no leverage (a platform staircase at its thread wall: 199 and 199 req/s) and are one point.
    cost_same_rate: float = 0.05
    # The live stall watch (measure.stalls): users waiting and fewer than stall_watch_rps successes a second for
    # stall_watch_s seconds in a row — a thread dump is taken while it lasts and the row says it stalled.
    stall_watch_rps: float = 1.0
    stall_watch_s: float = 5.0
    # A hold's statistics (series/): its per-second series cut into at most this many batch means for its interval and
    # trend — enough degrees of freedom for a usable t; batches span two seconds at least (a GC pause spans two
    # seconds, not two batches), so a series under 2 × hold_batches seconds gets fewer (windows.per_second_interval).
    hold_batches: int = 10
    # A spike recovered once the per-second p99 stayed within this multiple of the pre-spike p99 for this many seconds
    # in a row; a step kept up (below the knee) while its throughput grew by at least this share of its load's growth.
    spike_recovered_p99_ratio: float = 1.5
    spike_recovered_for_s: int = 3
    knee_growth_share: float = 0.9
    # The verdict's thresholds (explain/): what a row must show before a wall is named or a hold called steady.
    # GC pauses above this share of the hold's wall time: the collector, not a resource, held the row back.
    gc_pause_share: float = 0.10
    # Out of memory without an OutOfMemoryError yet: the collector's threads used at least gc_cpu_share of the
    # service's CPU over the hold while what survived its collections filled at least heap_live_full_share of the
    # long-lived heap — it ran most of the time and freed little (the JVM's own GC overhead limit, short of 98%).
    gc_cpu_share: float = 0.5
    heap_live_full_share: float = 0.9
    # A trend half-width above this (% of the hold's mean) cannot tell a steady hold from one that drifted by the
    # drift_max (10%) the steadiness test allows: the row is too noisy to show steadiness, not taken as steady.
    trend_noise_max_pct: float = 10.0
    # Latency within this share above the unloaded latency (the scenario's service time): nothing queued, so the
    # load (users ÷ latency) and, where it is most of the time, the downstream call set the throughput.
    unloaded_latency_margin: float = 0.20
    # A ceiling is exceeded (a wrong prediction) when the row's throughput less its comparison half-width (its 95%
    # interval, at least the between-run noise floor) passes it by
    # more than this share: the ceiling's own error (a p50, a fitted line) has no interval yet.
    ceiling_exceeded_margin: float = 0.05
    # A stall read from k6's series: at least this many seconds in a row with no success, in a hold whose own rate
    # would have completed at least stall_missed_requests in them (a slow row's quiet seconds are not a stall).
    stall_silence_s: float = 5.0
    stall_missed_requests: float = 20.0
    # Above this share of failed requests a row is invalid and, refused or failed, named overload or failures: its
    # throughput is what survived, not what it can serve.
    error_rate_max: float = 0.01
    # A hold whose throughput drifted by more than this share start to end, beyond its trend's 95% interval (halves
    # this far apart where no series was kept), is not steady: it still warmed up or wore down.
    drift_max: float = 0.10
    # A hold not steady (or too noisy) on a full host (saturated_share) whose batches' throughput followed k6's own CPU
    # per request inversely — a log-log slope within host_speed_slope_band of -1, explaining at least
    # host_speed_r2_min of its variance — is noted host-speed: the host's speed moved under every tier
    # (series.holdstats._host_speed); the row stays invalid, and says why. A service that slowed by itself leaves k6's
    # cost a request flat (slope ~0).
    host_speed_slope_band: float = 0.5
    host_speed_r2_min: float = 0.5
    # Fewer CPU readings, or meter scrapes, than these shares of what the hold (less k6's start) should hold: the
    # samplers missed the hold (a starved sampler, a service that answered no scrape).
    cpu_samples_min_share: float = 0.5
    meter_samples_min_share: float = 0.75
    # This share of a tier's CPU allotment, of a pool's connections, of Tomcat's max connections or of k6's VUs counts
    # as the resource full: sampled means never quite reach 100%.
    saturated_share: float = 0.90
    # The CPU is also the wall short of saturated_share where the kernel saw the tiers queue for it (PSI, the row's
    # cpu_pressure_pct): on 2 cores shared by the service, k6, PostgreSQL and the stub, a request's latency carries
    # CPU queueing long before the host reads 90% busy (measured: a virtual point failing its p99 at 83% busy). A
    # quarter of the hold with a runnable thread waiting for a CPU, on a host at least cpu_pressure_host_min_pct
    # busy: pressure on a mostly idle host is one burst (a JIT, a GC), not a queue the requests stand in.
    cpu_pressure_wall_pct: float = 25.0
    cpu_pressure_host_min_pct: float = 60.0
    # load/phases.js lets k6 grow to this many times the row's users (maxVUs) before it drops arrivals: its VU cap.
    k6_max_vus_factor: int = 2
    # A pool is the queue when waiters were seen in at least this share of its 2 Hz samples or, by its exact timers,
    # at least this many threads waited on average: a waiter in one sample is a hiccup, not the wall.
    pool_queue_sample_share: float = 0.5
    pool_queue_waiters: float = 1.0
    # Connections to the service that are not users' (the rig's runtime-info, one closed but not yet reaped): a
    # platform row with more open than threads plus these waited for a thread.
    rig_connections: int = 2
    # The designed wait (the downstream call, the sleep) at least this share of the latency: the time is the
    # downstream's, and a row at its unloaded latency is named downstream rather than users.
    downstream_latency_share: float = 0.5
    # A released connection's time per request where no timer measured it (the query alone): the pool's ceiling.
    query_time_s: float = 0.002
    # The CPU wall is predicted only through lower-load rows whose throughputs span at least this ratio: closer
    # points fit a line whose slope is their noise.
    cpu_fit_min_ratio: float = 1.2
    # Reps whose throughputs spread by at least this share of their median are warned of (pyperf's rule).
    spread_warning_share: float = 0.10
    # Where the time goes (report/wheretime.py): a layer's difference per request is named only beyond this many
    # standard errors (the normal's two-sided 95%: a profile's samples are many).
    difference_z: float = 1.96
    # The between-run noise floor (reference/noise-floor/, measured): one run's throughput strays from another's at
    # the same point by this coefficient of variation, over this many runs. A row of one rep is compared with
    # another only beyond t(runs - 1) times it, however narrow its within-row interval.
    noise_floor_cv_pct: float = field(default_factory=lambda: noisefloor.current().cv_pct)
    noise_floor_runs: int = field(default_factory=lambda: noisefloor.current().runs)
    # The same for the service's allocation per request and its GC pauses per 1,000 requests (vtlab compare judges
    # one rep's change in them by these); none (null over 0 runs) where the reference runs did not record the metric.
    noise_floor_alloc_cv_pct: float | None = field(default_factory=lambda: _recorded_cv("alloc_kb_per_req"))
    noise_floor_alloc_runs: int = field(default_factory=lambda: noisefloor.current("alloc_kb_per_req").runs)
    noise_floor_gc_cv_pct: float | None = field(default_factory=lambda: _recorded_cv("gc_pause_ms_per_1k_req"))
    noise_floor_gc_runs: int = field(default_factory=lambda: noisefloor.current("gc_pause_ms_per_1k_req").runs)
    # What k6's CPU costs a row on shared cores (reference/generator-crosscheck/, measured against wrk): from a host
    # this busy (%), the share of its throughput a row loses per share of the machine k6 takes, that slope's standard
    # error and 95% half-width, and the largest share of the machine (0–1) it was priced at. Where the loss is above
    # the between-run noise floor, a row whose k6 took no more than that share and whose loss's upper end is below
    # the whole throughput carries the loss as a correction (explain.generatorprice); any other interferes.
    generator_host_busy_pct: float = field(default_factory=lambda: generatorcheck.current().host_busy_pct)
    generator_loss_per_share: float = field(default_factory=lambda: generatorcheck.current().loss_per_share)
    generator_loss_per_share_se: float = field(default_factory=lambda: generatorcheck.current().loss_per_share_se)
    generator_loss_per_share_ci95: float = field(
        default_factory=lambda: generatorcheck.current().loss_per_share_ci95)
    generator_priced_share_max: float = field(default_factory=lambda: generatorcheck.current().share_max)
    # The report's sentence thresholds (report/): what a sentence needs before it says a thing. Rules of thumb, not
    # measurements; recorded so that a run reported again later is told by the thresholds it was told by.
    # A figure with no between-run noise of its own measured (RSS, GC pause time, a p99, CPU per request, a median
    # against the sleep it waited, two ratios that should agree) differs from another only beyond this share of it:
    # pyperf's 10% spread rule. Throughputs are never compared by it: their comparisons use the measured between-run
    # noise floor (noise_floor_cv_pct) and each row's interval.
    figure_noise_share: float = 0.10
    # A structured fan-out whose time in service is under this many times its slowest call approaches that call
    # (not the sum of the calls).
    fanout_slowest_call_factor: float = 1.5
    # Through a spike, a p99 this many times another (or the one before the spike) fared worse.
    spike_worse_factor: float = 1.5
    # A soak's RSS moving less than this many MB per minute is steady; a leak moves more.
    soak_steady_rss_mb_per_min: float = 1.0
    # An open-model row that delivered this share of its offered rate kept up with it.
    open_kept_up_share: float = 0.95
    # An open-model row whose p99 is this many times its time in service queued its requests.
    open_queued_factor: float = 2.0


def floor(constants: Constants, column: str) -> noisefloor.Floor | None:
    """The between-run floor of `column` the rig recorded (noisefloor.NONE, NaN over 0 runs, where it measured
    none); None for a column whose floor the rig does not record (noisefloor.RECORDED)."""
    if column not in noisefloor.RECORDED:
        return None
    prefix, _ = noisefloor.RECORDED[column]
    cv_pct, runs = getattr(constants, f"{prefix}_cv_pct"), getattr(constants, f"{prefix}_runs")
    return noisefloor.NONE if cv_pct is None or not runs else noisefloor.Floor(cv_pct, runs)


CURRENT = Constants()


def record() -> dict[str, object]:
    return asdict(CURRENT)


# Constants measured together with another: a run that recorded the first but not these (recorded before they
# were) has none of them. The generator's price was re-measured since such runs (its slope moved from 1.475 to
# 1.83): this version's uncertainty and range belong to its own slope, not to the one the run recorded, so that
# run's correction cannot be bounded and its rows are judged as they were.
MEASURED_WITH = {"generator_loss_per_share": ("generator_loss_per_share_se", "generator_loss_per_share_ci95",
                                              "generator_priced_share_max")}


def from_record(recorded: Mapping[str, object]) -> Constants:
    """The constants a run recorded (metadata.json's "rig"); any it did not record (older runs) are this version's,
    but those measured with one it did record (MEASURED_WITH), which are NaN. ValueError when a recorded value is
    not a number."""
    known = {f.name: str(f.type) for f in fields(Constants)}
    unknown = {name: math.nan for first, rest in MEASURED_WITH.items() if first in recorded
               for name in rest if name not in recorded}
    constants = Constants(**{name: None if recorded[name] is None and "None" in kind else
                             (float if "float" in kind else int)(recorded[name])
                             for name, kind in known.items() if name in recorded}, **unknown)
    for prefix, _ in noisefloor.RECORDED.values():
        runs = getattr(constants, f"{prefix}_runs")
        if runs < 0 or runs == 1:
            raise ValueError(f"{prefix}_runs {runs}: a floor needs two runs of a point at least (0: none measured)")
    return constants
