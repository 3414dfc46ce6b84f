"""Explain every row: its Little's-law ceiling, the limit that sets it, the bottleneck the
measurements point at, and whether the row can be trusted. Pure: CSV rows in, an `Analysis` (typed,
immutable verdicts and aggregates, see verdicts.py) out, no I/O.

Inputs are CSV rows as read (strings); any CSV with the published rig's 23 leading columns can be
analysed, and the extra vtlab columns sharpen the verdict where present.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from vtlab.core import cores, dimensions
from vtlab.explain import repetitions
from vtlab.measure import samplers
from vtlab.core import constants as rig_constants
from vtlab.explain.model import LIMITS, MEASURED_NUMBERS, Analysis, Ceilings, Failure, Measured, Verdict

BOTTLENECKS = ("thread-pool", "connection-pool", "cpu", "downstream", "load-generator", "overload")

# Above this share of failed requests a row is flagged (invalid) and, if the service refused or failed them,
# named overload: its throughput is what survived, not what it can serve.
ERROR_THRESHOLD = 0.01
# Conditions worth saying that do not make a row's numbers wrong: it is still valid.
NOTES = ("offered-above-capacity",)
# Flags of a user's service that say what it does not expose (its meters, its pool, its CPU behind --url): what
# could not be measured, reported as such, never a reason to distrust what was.
NOT_EXPOSED = "not-exposed:"
SATURATED = 0.90                 # share of a tier's CPU allotment that counts as saturated
UNSTEADY = 0.10                  # a hold drifting by more than this, start to end (beyond its noise): not steady
SPREAD_WARNING = repetitions.SPREAD_WARNING  # a difference within this share is within run-to-run noise
QUERY_TIME_S = 0.002             # connection time per request in released mode when unmeasured
POOL_QUEUE_SHARE = 0.5           # pool waiters in at least this share of the hold's samples: the pool is the queue
POOL_QUEUE_WAITERS = 1.0         # or, by the pool's exact timers, at least one thread waiting on average
TOMCAT_THREADS = rig_constants.CURRENT.tomcat_max_threads  # stands in only where no run's record is at hand


def num(row: Mapping[str, object], column: str, default: float = math.nan) -> float:
    value = row.get(column)
    if value in (None, ""):
        return default
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


@dataclass(frozen=True)
class Context:
    """What the analysis needs beyond one row: the run's machine and the low-load service times."""
    host_cpus: int
    shared_cores: bool
    load_cpus: float
    service_time_s: dict[tuple[str, ...], float]  # scenario_of(row) -> seconds
    rig: rig_constants.Constants = rig_constants.CURRENT  # what the run measured with (metadata.json)
    # scenario_of(row) -> (thread mode, users) of the row whose p50 is the scenario's service time
    service_time_point: dict[tuple[str, ...], tuple[str, float]] = field(default_factory=dict)
    cpu_points: dict[tuple[str, ...], tuple[CpuPoint, ...]] = field(default_factory=dict)  # cpu_group -> rows
    service_unseen: bool = False  # a --url service: not vtlab's process, so its CPU and RSS are not measured


@dataclass(frozen=True)
class CpuPoint:
    """One clean row's load and the CPU it cost: what predicts another row's CPU wall."""
    concurrency: float
    rps: float            # every response per second (failed ones cost CPU too)
    cpu_pct: float        # the CPU that competes for the service's cores (cpu_tiers)


def context(rows: Sequence[Mapping[str, object]], metadata: Mapping[str, object]) -> Context:
    host = metadata.get("host", {}) if isinstance(metadata.get("host"), dict) else {}
    host_cpus = int(host.get("cpus_available") or host.get("cpu_count") or 0) or _guess_cpus(rows)
    core_map = str(metadata.get("core_map", ""))
    sets = {part.split("=", 1)[1] for part in core_map.split() if "=" in part}
    load_set = next((p.split("=", 1)[1] for p in core_map.split() if p.startswith("load=")), "")
    rig = rig_constants.from_metadata(metadata)
    # a cluster run's tiers have nodes of their own, and its runners the CPU their limits give them
    cluster = metadata.get("cluster") if isinstance(metadata.get("cluster"), dict) else {}
    shared = len(sets) <= 1 and not cluster
    load_cpus = (float(cluster["load_cpus"]) if cluster.get("load_cpus")
                 else len(cores.parse_cpu_list(load_set)) if load_set else host_cpus)
    lowest = _lowest_load_rows(rows, rig.tomcat_max_threads)
    return Context(host_cpus, shared, load_cpus,
                   {key: seconds for key, (_, seconds, _) in lowest.items()}, rig,
                   {key: (mode, users) for key, (users, _, mode) in lowest.items()}, cpu_points(rows, shared),
                   bool((metadata.get("target") or {}).get("url")))


def cpu_tiers(shared_cores: bool) -> tuple[str, ...]:
    """The tiers whose CPU competes for the service's cores: all of them when they share the cores."""
    return (("app_cpu_pct", "pg_cpu_pct", "stub_cpu_pct", "load_cpu_pct", "proxy_cpu_pct") if shared_cores
            else ("app_cpu_pct",))


def cpu_group(row: Mapping[str, object]) -> tuple[str, ...]:
    """Rows whose CPU per request is one quantity: one scenario, one thread model, one load model."""
    return (*scenario_of(row), str(row.get("thread_mode")), str(row.get("load_model") or "closed"))


def cpu_points(rows: Sequence[Mapping[str, object]], shared_cores: bool) -> dict[tuple[str, ...], tuple[CpuPoint, ...]]:
    """Per CPU group, the clean rows' load and CPU (no errors, CPU measured)."""
    points: dict[tuple[str, ...], list[CpuPoint]] = {}
    for row in rows:
        rps = _all_rps(row)
        pct = sum(num(row, column, 0) for column in cpu_tiers(shared_cores))
        if failed(row) or num(row, "error_rate", 0) > ERROR_THRESHOLD or not rps > 0 or not pct > 0:
            continue
        points.setdefault(cpu_group(row), []).append(CpuPoint(in_flight(row), rps, pct))
    return {key: tuple(group) for key, group in points.items()}


def predicted_cpu_ms(row: Mapping[str, object], ctx: Context) -> tuple[float, float]:
    """(fixed CPU %, marginal CPU ms per request) fitted over the rows of the row's CPU group at lower load —
    never the row itself — so that the CPU wall is a prediction, not its utilisation restated. A least-squares
    line through at least two points whose throughputs differ by a fifth or more; (nan, nan) without one.

    The fixed part is what the tiers burn whatever the load (samplers, the JIT, GC, idle loops); CPU per
    request at one low load counts it in and would predict far too low a wall."""
    load = in_flight(row)
    points = [p for p in ctx.cpu_points.get(cpu_group(row), ()) if p.concurrency < load]
    xs = [p.rps for p in points]
    if len(points) < 2 or max(xs) < 1.2 * min(xs):
        return math.nan, math.nan
    mean_x, mean_y = sum(xs) / len(xs), sum(p.cpu_pct for p in points) / len(points)
    slope = (sum((p.rps - mean_x) * (p.cpu_pct - mean_y) for p in points)
             / sum((x - mean_x) ** 2 for x in xs))
    if slope <= 0:
        return math.nan, math.nan
    return mean_y - slope * mean_x, slope * 10  # CPU % per (req/s) is ms per request / 10


def _guess_cpus(rows: Sequence[Mapping[str, object]]) -> int:
    return int(max((num(r, "app_cpus", 0) for r in rows), default=0)) or 1


def workload(row: Mapping[str, object]) -> str:
    return str(row.get("workload") or "order-summary")  # CSVs from before the workloads have none


def wait_s(row: Mapping[str, object]) -> float:
    """What one request waits on by design: the stub's delay (plus any latency injected on the way
    there and back; twice for a sequential fan-out), the sleep, or nothing (cpu)."""
    kind = workload(row)
    if kind == "sleep":
        return num(row, "sleep_ms", 0) / 1000
    if kind == "cpu":
        return 0.0
    call_s = (num(row, "stub_delay_ms", 0) + 2 * num(row, "downstream_latency_ms", 0)) / 1000
    return 2 * call_s if kind == "fanout" and row.get("fanout") == "sequential" else call_s


def scenario_of(row: Mapping[str, object]) -> tuple[str, ...]:
    """Rows that share a service time: equal in every dimension that changes what one request does (the
    registry's per_request ones), the same designed wait, and the reactive twin apart from the blocking app."""
    return (*dimensions.key(dimensions.parse(row), dimensions.PER_REQUEST),
            str(wait_s(row) if workload(row) != "cpu" else num(row, "cpu_work", 0)),
            "webflux" if row.get("thread_mode") == "webflux" else "blocking")


def queued(row: Mapping[str, object], default_threads: int = TOMCAT_THREADS) -> bool:
    """Whether the row's latency includes waiting for a thread or a connection by design: more users
    than request threads, or (held) than connections. Such a row cannot measure the service time."""
    users = in_flight(row)
    held_pool = num(row, "hikari_pool", math.inf) if row.get("conn_mode") == "held" else math.inf
    return (users > request_thread_cap(row, default_threads) or users > held_pool
            or pool_was_the_queue(row, pool_size(row)))


def user_service(row: Mapping[str, object]) -> bool:
    """A row of the user's own service: its pool and threads are what it reported, not what the row set."""
    return workload(row) == "service"


def pool_size(row: Mapping[str, object]) -> float:
    """The connections the row's pool had: set by the row for vtlab's service, read from the meters for a user's
    (NaN when it exposes none)."""
    return num(row, "pool_max") if user_service(row) else num(row, "hikari_pool")


def in_flight(row: Mapping[str, object]) -> float:
    """Requests in the service at once: the users of a closed model; for the open model its arrival rate
    times the time each request took (Little's law), never the users k6 pre-allocated to carry it."""
    if row.get("load_model") != "open" and not user_service(row):
        return num(row, "concurrency", 0)
    # a user's script may think between its requests: its users are not all in the service at once
    latency_ms = num(row, "mean_ms")
    latency_ms = num(row, "p50_ms", 0) if math.isnan(latency_ms) else latency_ms
    return num(row, "throughput_rps", 0) * latency_ms / 1000


def low_load_service_times(rows: Sequence[Mapping[str, object]],
                           default_threads: int = TOMCAT_THREADS) -> dict[tuple[str, ...], float]:
    """Per scenario: the median latency of the least-loaded clean row that did not queue (the
    fastest one on a tie).

    Little's law needs the time one request spends in the service when nothing queues; the
    lowest-concurrency row without errors or a queue in front of it is the closest measurement.
    Without one, the designed wait (stub delay, sleep) stands in.
    """
    return {key: seconds for key, (_, seconds, _) in _lowest_load_rows(rows, default_threads).items()}


def _lowest_load_rows(rows: Sequence[Mapping[str, object]],
                      default_threads: int) -> dict[tuple[str, ...], tuple[float, float, str]]:
    """Per scenario: (users, p50 seconds, thread mode) of the row low_load_service_times takes its time from."""
    candidates: dict[tuple[str, ...], tuple[float, float, str]] = {}
    for row in rows:
        if (failed(row) or num(row, "error_rate", 0) > 0 or math.isnan(num(row, "p50_ms"))
                or queued(row, default_threads)):
            continue
        key = scenario_of(row)
        candidate = (num(row, "concurrency", math.inf), num(row, "p50_ms") / 1000, str(row.get("thread_mode")))
        if key not in candidates or candidate < candidates[key]:
            candidates[key] = candidate
    return candidates


def analyse_row(row: Mapping[str, object], ctx: Context) -> Verdict:
    """One measured row's verdict, in steps: the service time, the ceilings it implies, the lowest of them
    (the limit), the validity flags, and the bottleneck the measurements name."""
    throughput = num(row, "throughput_rps", 0)
    cpu_ms = _cpu_ms_per_request(row, ctx, _all_rps(row))
    service_s, source = service_time(row, ctx)
    ceilings = _ceilings(row, ctx, service_s, source, cpu_ms, throughput)
    limit, ceiling = _limit(ceilings)
    flags = validity_flags(row, ctx, throughput)
    return Verdict(
        row=dimensions.parse(row), measured=measured(row), service_time_ms=service_s * 1000,
        service_time_source=source, cpu_ms_per_req=cpu_ms, ceilings=ceilings, ceiling_rps=ceiling, limit=limit,
        attained=throughput / ceiling if ceiling and not math.isinf(ceiling) else math.nan,
        bottleneck=bottleneck(row, ctx, limit, flags),
        valid=not [flag for flag in flags if flag not in NOTES and not flag.startswith(NOT_EXPOSED)],
        flags=tuple(flags), queued=queued(row, ctx.rig.tomcat_max_threads))


def _all_rps(row: Mapping[str, object]) -> float:
    """Every response per second over the hold, failed ones too: what the tiers spent their CPU on."""
    hold = num(row, "hold_s", 0)
    return num(row, "http_reqs", 0) / hold if hold else num(row, "throughput_rps", 0)


def service_time(row: Mapping[str, object], ctx: Context) -> tuple[float, str]:
    """Seconds one request spends in the service when nothing queues, and which measurement says so."""
    kind = workload(row)
    delay_s = wait_s(row)
    measured_s = ctx.service_time_s.get(scenario_of(row))
    if kind == "cpu" and num(row, "app_cpu_ms_per_req", 0) > 0:
        # Pure computation: a thread is busy for its CPU time; latency would count the CPU queue too.
        service_s, source = num(row, "app_cpu_ms_per_req") / 1000, "app CPU per request"
    elif measured_s is not None and measured_s >= delay_s:
        service_s, source = measured_s, "p50 at lowest load"
    elif user_service(row):
        if measured_s is not None:  # no design to hold it against: what the service took is its time
            return max(measured_s, 1e-3), "p50 at lowest load"
        return math.nan, "not measured: every row queued or failed"  # nothing of its design to stand in
    else:
        service_s = max(delay_s + db_round_trip_s(row), measured_s or 0.0)
        source = "sleep" if kind == "sleep" else "stub delay" + (" + database latency" if db_round_trip_s(row) else "")
    return max(service_s, 1e-3), source


def _ceilings(row: Mapping[str, object], ctx: Context, service_s: float, source: str, cpu_ms: float,
              throughput: float) -> Ceilings:
    """Little's law per resource: how many requests each lets through per second at this service time."""
    pool = pool_size(row)
    restated, missing = [], []
    if workload(row) in ("sleep", "cpu"):
        pool_rps = math.inf  # sleep and cpu never borrow a connection
    elif math.isnan(pool):
        pool_rps = math.nan
        missing.append("pool: the service exposes no pool size (hikaricp_connections_max)")
    elif user_service(row):
        # no designed call to subtract: the pool's own time out per request where it keeps one (HikariCP), else
        # the whole request's time, the longest a borrow can last
        headroom = _pool_headroom_rps(row, throughput, pool)
        pool_rps = headroom if headroom > 0 else pool / service_s
        if headroom > 0:
            restated.append("pool")
    else:
        held_s = (service_s if row.get("conn_mode") == "held"
                  else _released_hold_s(service_s, wait_s(row), db_round_trip_s(row)))
        headroom = _pool_headroom_rps(row, throughput, pool)
        pool_rps = max(pool / held_s, headroom)
        if headroom > pool / held_s:
            restated.append("pool")  # the row's own throughput scaled by its connections out
    open_model = row.get("load_model") == "open"
    if (not open_model and source == "p50 at lowest load"
            and (row.get("thread_mode"), num(row, "concurrency", 0)) == ctx.service_time_point.get(scenario_of(row))):
        restated.append("concurrency")  # users ÷ its own p50 is its own throughput by Little's law
    cores_there = ctx.host_cpus if ctx.shared_cores else num(row, "app_cpus", ctx.host_cpus)
    fixed_pct, marginal_ms = predicted_cpu_ms(row, ctx)
    if ctx.service_unseen:
        cpu_rps = math.nan
        missing.append("cpu: the service's CPU was not measured (a --url service is not vtlab's process)")
    elif math.isnan(marginal_ms):
        cpu_rps = cores_there / (cpu_ms / 1000) if cpu_ms > 0 else math.inf
        if cpu_ms > 0:
            restated.append("cpu")  # cores ÷ its own CPU per request: the utilisation law
    else:
        cpu_rps = max(cores_there * 100 - fixed_pct, 0.0) / (marginal_ms / 10)
    threads = request_thread_cap(row, ctx.rig.tomcat_max_threads) / service_s
    if math.isnan(service_s):
        missing.append("concurrency, thread-pool: no row measured the service time (each queued or failed): add a "
                       "lower --conc")
    elif math.isnan(threads):
        missing.append("thread-pool: the service exposes no Tomcat max threads (tomcat_threads_config_max_threads)")
    return Ceilings(
        concurrency=(num(row, "target_rps") if open_model
                     else (in_flight(row) if user_service(row) else num(row, "concurrency")) / service_s),
        threads=threads, pool=pool_rps, cpu=cpu_rps, restated=tuple(restated), missing=tuple(missing))


def _limit(ceilings: Ceilings) -> tuple[str, float]:
    """The lowest ceiling that was computed (not NaN) and its name; a tie goes to the first in LIMITS."""
    known = [(name, getattr(ceilings, field)) for name, field in LIMITS
             if not math.isnan(getattr(ceilings, field))]
    return min(known, key=lambda pair: pair[1]) if known else ("", math.nan)


def measured(row: Mapping[str, object]) -> Measured:
    """The figures the report and the scenario sections quote beside the verdict, as they were measured."""
    numbers = {name: num(row, name) for name in MEASURED_NUMBERS}
    return Measured(**{**numbers, "throughput_rps": num(row, "throughput_rps", 0),
                       "error_rate": num(row, "error_rate", 0)},
                    pinned_reasons=str(row.get("pinned_reasons") or ""), writes_ok=str(row.get("writes_ok") or ""),
                    errors_by_status=str(row.get("errors_by_status") or ""),
                    steps_rps=str(row.get("steps_rps") or ""), steps_p99_ms=str(row.get("steps_p99_ms") or ""),
                    jdk_version=str(row.get("jdk_version") or ""), stall=str(row.get("stall") or ""),
                    thread_dump=str(row.get("thread_dump") or ""))


JEP491_JDK = 24  # from this JDK on, a virtual thread blocked inside synchronized unmounts (JEP 491)


def pins_every_request(row: Mapping[str, object]) -> bool:
    """A virtual-thread row whose every request keeps its carrier through the downstream call: the native-frame
    control on any JDK; a monitor held across the call before JEP 491. (A JDK 21 synchronized row whose
    completions need a carrier deadlocks instead: the ceiling still says what pinning allows at best.)"""
    path = str(row.get("path_mode") or "normal")
    return path == "pinned-control" or (path.startswith("synchronized") and num(row, "jdk", 25) < JEP491_JDK)


def request_thread_cap(row: Mapping[str, object], default_threads: int = TOMCAT_THREADS) -> float:
    """How many requests can be in the service at once: Tomcat's platform threads, the carrier
    threads when every request pins one, and for the offload workload also the fixed pool the work
    is handed to (the narrowest wins)."""
    caps = []
    if row.get("thread_mode") == "webflux":
        return math.inf  # an event loop never waits for a thread: it serves whatever is ready
    if row.get("thread_mode") == "platform":
        # a user's service: the threads its Tomcat reported (NaN when it exposes none)
        caps.append(num(row, "tomcat_threads_config") if user_service(row)
                    else num(row, "tomcat_max_threads", default_threads))
    elif pins_every_request(row):
        # a pinned virtual thread keeps its carrier for the whole call: the carriers become the pool
        caps.append(num(row, "vt_parallelism", math.inf))
    if workload(row) == "offload" and row.get("offload_executor") == "platform":
        caps.append(num(row, "offload_pool", math.inf))
    return min(caps, default=math.inf)


def _pool_headroom_rps(row: Mapping[str, object], throughput: float, pool: float) -> float:
    """What the pool can carry at least, measured in the row itself. Exactly where the pool times its
    borrows: pool ÷ the connection time one request used (mean connections out ÷ throughput). Otherwise from
    the samples: a pool that never had waiters delivered `throughput` with at most `hikari_active_max`
    connections out, so all of them carry proportionally more. Keeps a released-mode estimate (service time
    minus the call, which also holds any CPU queueing) honest."""
    out = num(row, "pool_out_mean")
    if not math.isnan(out) and not math.isnan(pool):
        return throughput * pool / out if out > 0 and throughput > 0 else 0.0
    active = num(row, "hikari_active_max", 0)
    if active <= 0 or num(row, "hikari_pending_max", 0) > 0 or math.isnan(pool):
        return 0.0
    return throughput * pool / active


def db_round_trip_s(row: Mapping[str, object]) -> float:
    """The network time one query adds when latency is injected between service and database (once
    each way); zero for workloads that never touch the database."""
    if workload(row) in ("sleep", "cpu"):
        return 0.0
    return 2 * num(row, "db_latency_ms", 0) / 1000


def _released_hold_s(service_s: float, delay_s: float, round_trip_s: float = 0.0) -> float:
    # Released: the connection is out only for the query (and its round trip), i.e. the service time minus the call.
    floor = QUERY_TIME_S + round_trip_s
    return max(service_s - delay_s, floor) if delay_s else floor


def _cpu_ms_per_request(row: Mapping[str, object], ctx: Context, all_rps: float) -> float:
    """CPU per request that competes for the service's cores: the app's own, plus every other
    tier's when the tiers share the CPUs."""
    if not all_rps or math.isnan(all_rps):
        return math.nan
    pct = sum(num(row, column, 0) for column in cpu_tiers(ctx.shared_cores))
    return pct * 10 / all_rps if pct else math.nan


def validity_flags(row: Mapping[str, object], ctx: Context, throughput: float) -> list[str]:
    flags = []
    load_allotment = ctx.load_cpus * 100
    load_peak = num(row, "load_cpu_pct_max", num(row, "load_cpu_pct"))
    if math.isnan(num(row, "load_cpu_pct")):
        flags.append("generator-cpu-unknown")
    elif load_peak >= SATURATED * load_allotment:
        flags.append("generator-saturated")
    elif generator_interfered(row, ctx):
        flags.append("generator-interference")
    if num(row, "dropped_iterations", 0) > 0:
        # k6 dropped arrivals: with CPU to spare it had no free user to send them with, because the service
        # answered slower than they arrived — the service's wall under an offered load above it, not k6's.
        flags.append("dropped-iterations" if "generator-saturated" in flags else "offered-above-capacity")
    if num(row, "error_rate", 0) > ERROR_THRESHOLD:
        flags.append("errors-above-threshold")
    ok = num(row, "ok_requests")
    hold = num(row, "hold_s")
    if not math.isnan(ok) and hold and throughput * hold > ok + 1:
        flags.append("errors-counted")
    if num(row, "http_reqs", 0) <= 0 or throughput <= 0:
        flags.append("no-successful-requests")
    if not math.isnan(hold):
        # Half the CPU readings and three quarters of the scrapes the hold (less k6's start) should hold.
        sampled_s = hold - ctx.rig.k6_start_slack_s
        no_meters = user_service(row) and num(row, "meter_samples", 0) == 0
        if no_meters:
            flags.append(f"{NOT_EXPOSED}meters")
        if (num(row, "cpu_samples", 0) < 0.5 * sampled_s / ctx.rig.cpu_interval_s
                or (num(row, "meter_samples", 0) < 0.75 * sampled_s / ctx.rig.meter_interval_s and not no_meters)):
            flags.append("missing-samples")
    if num(row, "foreign_cpu_pct", 0) > ctx.rig.foreign_cpu_flag_pct:
        # other processes took CPU the tiers would have had — unless the service itself is one vtlab does not
        # run (--url): then its CPU cannot be told from a neighbour's, and the row says so instead
        flags.append(f"{NOT_EXPOSED}neighbours" if ctx.service_unseen else "noisy-neighbour")
    for column in ("app_cpu_pct", "p99_ms", "hikari_active_max", "jvm_threads_max"):
        if math.isnan(num(row, column)):
            # what a user's service does not expose is not measured, not broken: said, never guessed
            unseen = (ctx.service_unseen if column == "app_cpu_pct"
                      else user_service(row) and column != "p99_ms")
            flags.append(f"{NOT_EXPOSED}{column}" if unseen else f"missing-{column}")
    if not steady(row):
        flags.append("not-steady")
    if str(row.get("writes_ok", "")).lower() == "false":
        flags.append("writes-mismatch")  # acknowledged writes and stored rows differ
    exit_code = num(row, "k6_exit", 0)
    if exit_code not in (0, ctx.rig.k6_thresholds_exit):
        flags.append(f"k6-exit-{int(exit_code)}")
    return flags


def steady(row: Mapping[str, object]) -> bool:
    """A steady hold: its throughput did not drift by more than UNSTEADY from start to end, beyond what its
    noise explains (the trend test over the series). A shaped load drifts by design (only a soak is judged),
    and a row measured before the series were kept is judged by its two halves."""
    if row.get("shape") not in (None, "", "steady", "soak"):
        return True
    drift, half_width = num(row, "throughput_trend_pct"), num(row, "throughput_trend_ci95_pct")
    if not math.isnan(drift):
        return abs(drift) <= UNSTEADY * 100 or (not math.isnan(half_width) and abs(drift) <= half_width)
    first, second = num(row, "throughput_first_half_rps"), num(row, "throughput_second_half_rps")
    return not (first > 0 and second > 0 and abs(first - second) / ((first + second) / 2) > UNSTEADY)


def generator_interfered(row: Mapping[str, object], ctx: Context) -> bool:
    """On cores the tiers share, k6 cannot saturate its own allotment before the host is full: it interferes
    when the host is busy (every core taken) and k6 burned more of it than the service it measures. Then the
    wall the row met is as much the generator's cost as the service's. (At the hero point k6 takes about a
    third of a full host, the service more: a dedicated client — wrk — measured the same rate.)"""
    if not ctx.shared_cores or num(row, "host_cpu_pct", 0) < SATURATED * 100:
        return False
    return num(row, "load_cpu_pct", 0) > num(row, "app_cpu_pct", math.inf)


def bottleneck(row: Mapping[str, object], ctx: Context, limit: str, flags: Sequence[str]) -> str:
    """One name for what held the row back, decided from measurements, most decisive first."""
    if "generator-saturated" in flags or "dropped-iterations" in flags or "generator-interference" in flags:
        return "load-generator"
    pool = pool_size(row)
    if refused(row):
        return "overload"
    app_allotment = (ctx.host_cpus if ctx.shared_cores else num(row, "app_cpus", ctx.host_cpus)) * 100
    cpu_saturated = (num(row, "host_cpu_pct", 0) >= SATURATED * 100
                     or num(row, "app_cpu_pct", 0) >= SATURATED * app_allotment)
    if pool_was_the_queue(row, pool):
        # With every CPU busy a connection is held longer than its query needs (the thread that holds it
        # waits for a core), so the queue for connections is a symptom: more of them would not help.
        return "cpu" if num(row, "host_cpu_pct", 0) >= SATURATED * 100 and limit == "cpu" else "connection-pool"
    if cpu_saturated and limit == "cpu":
        return "cpu"  # e.g. CPU-bound work on a pool sized to the cores: more threads would not help
    cap = request_thread_cap(row, ctx.rig.tomcat_max_threads)
    if in_flight(row) > cap or (row.get("thread_mode") == "platform"
                                            and num(row, "tomcat_connections_max", 0) > cap):
        return "thread-pool"
    if cpu_saturated:
        return "cpu"
    if limit in ("thread-pool", "connection-pool", "cpu"):
        return limit
    return "downstream"


def refused(row: Mapping[str, object]) -> bool:
    """Whether the service shed load: failed requests, borrows that timed out (503) or 503/504s above the
    error threshold — not a long queue, which a saturated wall makes too without failing anyone, nor the
    odd borrow of a queue's tail that outlasted the pool's timeout (2 of 1,500 at the held pool's wall)."""
    by_status = samplers.parse_reasons(str(row.get("errors_by_status") or ""))
    shed = sum(by_status.get(status, 0) for status in ("503", "504"))
    requests = num(row, "http_reqs", 0)
    return (num(row, "error_rate", 0) > ERROR_THRESHOLD or num(row, "pool_timeouts", 0) > ERROR_THRESHOLD * requests
            or shed > ERROR_THRESHOLD * requests)


def pool_was_the_queue(row: Mapping[str, object], pool: float) -> bool:
    """Every connection out and requests waiting for one — for most of the hold, not in one sample:
    a single GC pause or scheduling hiccup makes a momentary waiter without the pool being the wall.

    Decided from the pool's own timers where it keeps them (HikariCP, and the reactive twin's timed R2DBC
    borrows: connection-seconds out and acquire-seconds per second are, by Little's law, the mean
    connections out and the mean waiters); the
    2 Hz gauge samples are the fallback, and they rarely see a borrow that lasts a millisecond. Agroal
    times the waits (its blocking time) but not the connections out: in a fixed-size pool a thread waits
    only when every connection is out, so its mean waiters decide alone."""
    out, waiting = num(row, "pool_out_mean"), num(row, "pool_waiting_mean")
    if not math.isnan(waiting):
        full = math.isnan(out) or out >= SATURATED * pool
        return full and waiting >= POOL_QUEUE_WAITERS
    if num(row, "hikari_active_max", 0) < pool:
        return False
    share = num(row, "hikari_pending_share")
    if math.isnan(share):  # a CSV without the share (older vtlab, other rigs): the maxima alone
        return num(row, "hikari_pending_max", 0) > 0
    return share >= POOL_QUEUE_SHARE


def analyse(rows: Sequence[Mapping[str, object]], metadata: Mapping[str, object]) -> Analysis:
    """A verdict per measured row and an aggregate per scenario; rows a dead tier ended (failed_tier set)
    get a failed verdict and reach nothing else: not the service times, the aggregates nor any story."""
    measured_rows = [row for row in rows if not failed(row)]
    ctx = context(measured_rows, metadata)
    verdicts = tuple(analyse_row(row, ctx) for row in measured_rows)
    return Analysis(ctx, verdicts, repetitions.aggregate(verdicts),
                    tuple(failed_verdict(row) for row in rows if failed(row)))


def failed(row: Mapping[str, object]) -> bool:
    """A row a tier died in: its cells are not a measurement and it gets no verdict but "failed"."""
    return bool(row.get("failed_tier"))


def failed_verdict(row: Mapping[str, object]) -> Verdict:
    """A failed row's line: its dimensions and how it ended, no numbers, no bottleneck, never valid."""
    tier = str(row.get("failed_tier"))
    return Verdict(row=dimensions.parse(row), measured=Measured(), valid=False, flags=(f"failed:{tier}",),
                   failure=Failure(tier, str(row.get("failure") or ""), str(row.get("failure_log") or "")))
