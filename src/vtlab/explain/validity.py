"""Whether a row can be trusted, as flags: the load generator's CPU, errors, missing samples, a noisy neighbour,
an unsteady hold, a write check that failed. A flag in NOTES, about what a user's service does not expose
(NOT_EXPOSED) or a generator's cost priced and bounded (GENERATOR_PRICED) is said without making the row invalid.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from vtlab.core import constants as rig_constants
from vtlab.core import measures
from vtlab.core.measures import given
from vtlab.explain.facts import user_service
from vtlab.explain.generatorprice import GENERATOR_PRICED, priced
from vtlab.explain.model import Context
from vtlab.results.rows import MeasuredRow

# The analysis reads the run's recorded error_rate_max (ctx.rig); this stands in only for the report's sentences
# that have no run's record at hand.
ERROR_THRESHOLD = rig_constants.CURRENT.error_rate_max
# Conditions worth saying that do not make a row's numbers wrong: it is still valid. The open model's offered load
# above the service's wall (the row measured that wall); a hold whose steadiness nothing recorded could show (a CSV
# without series or halves). A ceiling the row passed (CEILING_EXCEEDED) is a wrong prediction, not a wrong
# measurement: also a note.
STEADINESS_NOT_MEASURED = "steadiness-not-measured"
# A block of a paired point (explain.pairs.standing) flagged only for the machine's moving (MACHINE_DRIFT) whose pair
# counts at a point with an interval: the pairing answers for its drift, so it stands, its flags said beside this.
IN_A_PAIR = "counted-in-its-pair"
# A virtual-thread row whose scrapes of the service's meters went short while JFR saw as many pinned carriers as the
# hold served requests: the service's actuator runs on virtual threads too, and its scrapes waited for a carrier like
# every request did. The gap is the wall's own symptom, the CPU readings and k6's figures whole: said, not a void.
METERS_STARVED = "meters-starved-by-pins"
NOTES = ("offered-above-capacity", STEADINESS_NOT_MEASURED, IN_A_PAIR, METERS_STARVED)
CEILING_EXCEEDED = "ceiling-exceeded:"
# Flags of a user's service that say what it does not expose (its meters, its pool, its CPU behind --url): what
# could not be measured, reported as such, never a reason to distrust what was.
NOT_EXPOSED = "not-exposed:"
# A row measured with async-profiler attached (--profiles): said, as its CPU per request carries the profiler's
# cost (docs/costs-and-profiles.md: up to ~9% for cpu), but valid: it measured what it says.
PROFILED = "profiled:"
OUT_OF_MEMORY = "out-of-memory"
# A hold begun at the warm-up's bound with the JIT's test unmet (measure.settle): the compiler still took more than
# settle_jit_share of the service's CPU while the CPU per request was still falling or the host was full — its
# numbers are the compiler's as much as the thread model's: invalid. A hold begun with the compiler above that share
# on a host with room and a CPU per request no longer falling stands: its throughput and latency are the thread
# model's, and the note jit-busy:<% of the service's CPU> says how much of its CPU per request was the compiler's.
JIT_NOT_SETTLED = "jit-not-settled"
JIT_BUSY = "jit-busy:"
# A hold not steady (or too noisy) because the host's own speed moved (host_speed_note): its cause named beside the
# flag, which stands — the throughput measured was the machine's at each moment, not the service's steady rate.
HOST_SPEED = "host-speed:"
# The hold's steadiness flags (steadiness): the only invalidity a row the host's speed moved, or a point over its
# capacity, may carry and still be read for what it shows
UNSTEADY = ("not-steady", "too-noisy")


# Another process or guest took CPU the tiers would have had: the row's throughput is the shared machine's, while
# the CPU each tier spent a request stays its own (its ticks count only while it ran). The calibration, a cost per
# request, stands beside it: on a VM whose steal flagged its first step, CI's calibration failed (2026-11-28, ci94).
FOREIGN_CPU = ("noisy-neighbour", "hypervisor-steal")
# What the machine's own moving does to a row's hold: the foreign CPU, and the throughput drifting or swinging with
# the host's speed. Each makes a row invalid on its own; a comparison measured as one (explain.pairs) stands beside it.
MACHINE_DRIFT = (*UNSTEADY, *FOREIGN_CPU)


def invalidating_beyond(flags: Iterable[str], tolerated: tuple[str, ...]) -> list[str]:
    """The invalidating flags but the `tolerated` ones (FOREIGN_CPU, MACHINE_DRIFT)."""
    return [flag for flag in invalidating(flags) if flag not in tolerated]


def invalidating(flags: Iterable[str]) -> list[str]:
    """The flags that make a row invalid, in their order: every one but a note, what a user's service does not
    expose, a ceiling the row passed, a profiler attached and the generator's cost priced. A row is valid where
    there is none."""
    return [flag for flag in flags if flag not in NOTES and not flag.startswith(
        (NOT_EXPOSED, CEILING_EXCEEDED, PROFILED, JIT_BUSY, GENERATOR_PRICED, HOST_SPEED))]


def validity_flags(row: MeasuredRow, ctx: Context, throughput: float) -> list[str]:
    """The row's flags, in the order analysis.csv lists them: the load generator's, the requests', the samplers',
    then the hold's steadiness, the write check, k6's exit and whether a profiler was attached."""
    flags = [*_generator_flags(row, ctx), *_request_flags(row, throughput, ctx), *_sampling_flags(row, ctx)]
    hold = steadiness(row, ctx.rig)
    if hold != "steady":
        flags.append(hold)
    moved = host_speed_note(row, ctx.rig) if hold in UNSTEADY else ""
    if moved:
        flags.append(moved)
    jit = jit_flag(row, ctx)
    if jit:
        flags.append(jit)
    if out_of_memory_seen(row, ctx):
        flags.append(OUT_OF_MEMORY)  # the heap ran out: the row measured a JVM collecting or failing, not serving
    if stall_seen(row, ctx):
        flags.append("stall")  # users waited while next to nothing completed: the hold measured a stop, not a rate
    if row.writes_ok.lower() == "false":
        flags.append("writes-mismatch")  # acknowledged writes and stored rows differ
    exit_code = given(row.k6_exit, 0)
    if exit_code not in (0, ctx.rig.k6_thresholds_exit):
        flags.append(f"k6-exit-{int(exit_code)}")
    if row.profiles:
        flags.append(PROFILED + row.profiles)
    return flags


def _generator_flags(row: MeasuredRow, ctx: Context) -> list[str]:
    """Whether k6 could send the load: its CPU, its interference with the service, the arrivals it dropped."""
    flags = []
    load_allotment = ctx.load_cpus * 100
    load_peak = given(row.load_cpu_pct_max, row.load_cpu_pct)
    if math.isnan(row.load_cpu_pct):
        flags.append("generator-cpu-unknown")
    elif load_peak >= ctx.rig.saturated_share * load_allotment:
        flags.append("generator-saturated")
    else:
        # k6's cost beyond the noise floor on a busy shared host: a note where the cross-check bounds it (the row
        # carries the correction), interference where it cannot
        price = priced(row, ctx)
        if price:
            flags.append(price.note if price.bounded else "generator-interference")
    if given(row.dropped_iterations, 0) > 0:
        # k6 dropped arrivals: with CPU to spare it had no free user to send them with, because the service
        # answered slower than they arrived — the service's wall under an offered load above it, not k6's.
        flags.append("dropped-iterations" if "generator-saturated" in flags else "offered-above-capacity")
    return flags


def _request_flags(row: MeasuredRow, throughput: float, ctx: Context) -> list[str]:
    """Whether the requests were served: errors above error_rate_max, errors k6's count missed, none served."""
    flags = []
    if given(row.error_rate, 0) > ctx.rig.error_rate_max:
        flags.append("errors-above-threshold")
    ok = row.ok_requests
    hold = row.hold_s
    if not math.isnan(ok) and hold and throughput * hold > ok + 1:
        flags.append("errors-counted")
    if given(row.http_reqs, 0) <= 0 or throughput <= 0 or given(row.ok_requests, 1) <= 0:
        flags.append("no-successful-requests")
    return flags


def _sampling_flags(row: MeasuredRow, ctx: Context) -> list[str]:
    """Whether the samplers saw the hold: enough readings, no neighbour taking the CPU, every key figure read."""
    flags = []
    hold = row.hold_s
    if not math.isnan(hold):
        # The shares of the CPU readings and of the scrapes the hold (less k6's start) should hold.
        sampled_s = hold - ctx.rig.k6_start_slack_s
        no_meters = user_service(row) and given(row.meter_samples, 0) == 0
        if no_meters:
            flags.append(f"{NOT_EXPOSED}meters")
        cpu_wanted = ctx.rig.cpu_samples_min_share * sampled_s / ctx.rig.cpu_interval_s
        meters_wanted = ctx.rig.meter_samples_min_share * sampled_s / ctx.rig.meter_interval_s
        meters_short = given(row.meter_samples, 0) < meters_wanted and not no_meters
        if given(row.cpu_samples, 0) < cpu_wanted or (meters_short and not starved_by_pins(row)):
            flags.append("missing-samples")
        elif meters_short:
            flags.append(METERS_STARVED)
    foreign = given(row.foreign_cpu_pct, 0)
    if foreign > ctx.rig.foreign_cpu_flag_pct:
        # other processes (or, on a shared host, other guests) took CPU the tiers would have had — unless the
        # service itself is one vtlab does not run (--url): then its CPU cannot be told from a neighbour's, and
        # the row says so instead. Named by whichever took most: a process the user can stop, or the hypervisor.
        stolen = given(row.steal_cpu_pct, 0) > foreign / 2
        flags.append(f"{NOT_EXPOSED}neighbours" if ctx.service_unseen
                     else "hypervisor-steal" if stolen else "noisy-neighbour")
    starved = METERS_STARVED in flags
    for column in _EXPOSED:
        if starved and column in _FROM_METERS:
            continue  # the scrapes that would have read it waited for a carrier: the note says so
        if math.isnan(getattr(row, column)):
            # what a user's service does not expose is not measured, not broken: said, never guessed
            unseen = (ctx.service_unseen if column == "app_cpu_pct"
                      else user_service(row) and column != "p99_ms")
            flags.append(f"{NOT_EXPOSED}{column}" if unseen else f"missing-{column}")
    return flags


# what a row must have measured, or say its service did not expose it
_EXPOSED = measures.declared("app_cpu_pct", "p99_ms", "hikari_active_max", "jvm_threads_max")
_FROM_METERS = measures.declared("hikari_active_max", "jvm_threads_max")  # read from the service's own meters


def starved_by_pins(row: MeasuredRow) -> bool:
    """Whether a virtual-thread row's carriers were pinned throughout: JFR's pinned events (over the row) at least the
    hold's requests."""
    requests = given(row.http_reqs, 0)
    return row.thread_mode == "virtual" and requests > 0 and given(row.pinned_events, 0) >= requests


def steadiness(row: MeasuredRow, rig: rig_constants.Constants) -> str:
    """"steady", "not-steady", "too-noisy" or STEADINESS_NOT_MEASURED. Not steady: the throughput drifted by more
    than drift_max from start to end, beyond what its noise explains (the trend test over the series). Too noisy:
    the trend's 95% half-width is above trend_noise_max_pct (% of the hold's mean), so the hold cannot show it was
    steady — not detecting a drift is no proof of its absence. A shaped load drifts by design (only a soak is
    judged), and a row measured before the series were kept is judged by its two halves; one without them was not
    shown steady, and says so."""
    if row.shape not in (None, "", "steady", "soak"):
        return "steady"
    drift, half_width = row.throughput_trend_pct, row.throughput_trend_ci95_pct
    if not math.isnan(drift):
        if abs(drift) > rig.drift_max * 100 and (math.isnan(half_width) or abs(drift) > half_width):
            return "not-steady"
        return "too-noisy" if not math.isnan(half_width) and half_width > rig.trend_noise_max_pct else "steady"
    first, second = row.throughput_first_half_rps, row.throughput_second_half_rps
    if not (first > 0 and second > 0):
        return STEADINESS_NOT_MEASURED
    return "not-steady" if abs(first - second) / ((first + second) / 2) > rig.drift_max else "steady"


def host_speed_note(row: MeasuredRow, rig: rig_constants.Constants) -> str:
    """HOST_SPEED with the share of the hold's throughput variance the host's speed explains, or "": where the host
    was full (the CPU the wall) and the hold's batches' throughput followed k6's own CPU per request inversely
    (series.holdstats._host_speed: a log-log slope within host_speed_slope_band of -1, R² at least
    host_speed_r2_min) — the same work cost k6 more CPU exactly as the service served less."""
    slope, r2 = row.host_speed_slope, row.host_speed_r2
    full = given(row.host_cpu_pct, 0) >= rig.saturated_share * 100
    if full and abs(slope + 1) <= rig.host_speed_slope_band and r2 >= rig.host_speed_r2_min:
        return f"{HOST_SPEED}{r2 * 100:.0f}%"
    return ""


def jit_flag(row: MeasuredRow, ctx: Context) -> str:
    """JIT_NOT_SETTLED, a JIT_BUSY note, or "": whether the warm-up reached its bound with the JIT's test unmet
    (warmup_unsettled names it), or began the hold with the compiler above the settle criterion's share."""
    if row.warmup_end == "bound" and "jit" in row.warmup_unsettled.split(";"):
        return JIT_NOT_SETTLED
    share = row.warmup_jit_share_pct
    return f"{JIT_BUSY}{share:g}%" if share > 100 * ctx.rig.settle_jit_share else ""


def out_of_memory_seen(row: MeasuredRow, ctx: Context) -> str:
    """What shows the service ran out of memory, or "": lines of its log naming an OutOfMemoryError during the row,
    or its collector using most of its CPU while the long-lived heap stayed full after collections. A service whose
    log or meters vtlab cannot read shows neither: nothing is said of it here."""
    errors = given(row.oom_errors, 0)
    gc_cpu, app_cpu = row.gc_cpu_pct, row.app_cpu_pct
    live, most = row.heap_live_mb_max, row.heap_old_max_mb
    gc_share = gc_cpu / app_cpu if app_cpu > 0 else math.nan
    full = live / most if most > 0 else math.nan
    thrashing = gc_share >= ctx.rig.gc_cpu_share and full >= ctx.rig.heap_live_full_share
    if not errors > 0 and not thrashing:
        return ""
    said = [f"{errors:.0f} lines of the service's log name an OutOfMemoryError"] if errors > 0 else []
    if not math.isnan(gc_share):
        said.append(f"its collector used {gc_share * 100:.0f}% of its CPU (wall at {ctx.rig.gc_cpu_share * 100:.0f}%)")
    if not math.isnan(full):
        said.append(f"{live:.0f} of {most:.0f} MB of long-lived heap still live after collections "
                    f"({full * 100:.0f}%; full at {ctx.rig.heap_live_full_share * 100:.0f}%)")
    return "; ".join(said)


def stall_seen(row: MeasuredRow, ctx: Context) -> str:
    """What shows the row stalled, or "": the live watch's record (with its thread dump), or k6's series: a run of
    at least stall_silence_s seconds in which no success started, where the hold's own rate would have completed
    stall_missed_requests in them — users waiting on a service that answered nothing."""
    if row.stall:
        return row.stall
    silence, rate = row.longest_silence_s, given(row.throughput_rps, 0)
    if silence >= ctx.rig.stall_silence_s and rate * silence >= ctx.rig.stall_missed_requests:
        return (f"no request that succeeded started in {silence:.0f} s of the hold in a row, where its "
                f"{rate:.1f} req/s would have completed {rate * silence:.0f}")
    return ""
