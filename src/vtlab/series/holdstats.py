"""What a row's hold measured, as the CSV's measured columns: k6's figures for the hold, each tier's CPU,
the service's meters — computed from one window of the row's series, whether the row was just measured or
its kept series are cut again (`vtlab report --hold-from/--hold-to`)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from vtlab.core import constants as rig_constants
from vtlab.core import cores
from vtlab.results import cells
from vtlab.series import windows
from vtlab.series.loadresult import LoadResult

# The CPU sampler's reading of the service JVM's JIT compiler threads: their CPU seconds so far (measure.jit), where the
# JVM is vtlab's to read in /proc
JIT_CPU = "jit_cpu_s"
# The CPU sampler's reading of the host's speed: the CPU µs one fixed piece of work took on its thread
# (measure.hostwork)
HOST_WORK = "host_work_us"
HOST_WORK_SPREAD = "host_work_spread_pct"


@dataclass(frozen=True)
class Hold:
    """One window of a row: what k6 measured in it, the samplers' series, and the window on their clock."""
    measured: LoadResult
    cpu: windows.Series
    meters: windows.Series
    start: float
    end: float
    hold_s: float                 # what the rates are per: the plan's hold, or the re-cut window's length
    tiers: tuple[str, ...]        # the tiers whose CPU was sampled: foreign CPU is what none of them used
    proxy: bool                   # a latency proxy ran: its CPU is a column of the row
    rig: rig_constants.Constants = rig_constants.CURRENT  # what the run measured with (a re-cut: what it recorded)
    quota_cores: float | None = None  # a cgroup's CPU quota on the rig, in cores (None: none binds it)
    cpus: int = 0                     # the machine's CPUs, which its busy share is of (0: not known)


def columns(hold: Hold) -> dict[str, object]:
    """The CSV's measured columns for the window."""
    batches = _batches(hold, 3)
    return {**_latency_and_rate(hold), **_tiers(hold), **_service_meters(hold), **_scrape_cost(hold),
            **_host_speed(batches), **_in_k6_units(batches)}


def _latency_and_rate(hold: Hold) -> dict[str, object]:
    measured, half = hold.measured, hold.hold_s / 2
    return {"throughput_rps": measured.ok_requests / hold.hold_s, "p50_ms": measured.p50_ms,
            "p95_ms": measured.p95_ms, "p99_ms": measured.p99_ms, "p999_ms": measured.p999_ms,
            "max_ms": measured.max_ms, "error_rate": measured.error_rate, "http_reqs": measured.requests,
            "mean_ms": measured.mean_ms, "p99_all_ms": measured.p99_all_ms,
            "errors_by_status": cells.format_reasons(measured.failures_by_status),
            "ok_requests": measured.ok_requests, "dropped_iterations": measured.dropped_iterations,
            "throughput_first_half_rps": measured.ok_half_a / half,
            "throughput_second_half_rps": measured.ok_half_b / half, "k6_exit": measured.exit_code,
            **_trend(measured, hold.rig.hold_batches)}


def _trend(measured: LoadResult, batches: int) -> dict[str, object]:
    """The hold's drift in successful requests per second, start to end, in % of its mean, with its 95%
    half-width: a row that still warmed up (or wore down) shows a drift its noise cannot explain."""
    drift, half_width = windows.trend(measured.ok_per_second, batches)
    return {"throughput_trend_pct": drift * 100, "throughput_trend_ci95_pct": half_width * 100,
            "longest_silence_s": longest_silence(measured.ok_per_second)}


# The tiers whose CPU, a request, is told in k6's units: every tier on a full host serves the same requests
K6_UNIT_TIERS = ("app", "pg", "stub", "load")


@dataclass(frozen=True)
class _Batch:
    """One batch of the hold: its seconds, the requests that succeeded in it, each tier's CPU over it (% of a core)."""
    seconds: int
    served: int
    cpu: dict[str, float]


def _batches(hold: Hold, fewest: int) -> list[_Batch]:
    """The hold's seconds cut into hold_batches runs of two seconds or more, as its interval's and trend's are, each
    with its successes and every K6_UNIT_TIERS tier's CPU, read once for both uses below; none where fewer than
    `fewest` fit."""
    ok = hold.measured.ok_per_second
    count = min(hold.rig.hold_batches, len(ok) // 2)
    if count < fewest:
        return []
    return [_Batch(b - a, sum(ok[a:b]), {tier: windows.cpu_percent(hold.cpu, tier, hold.start + a, hold.start + b)[0]
                                         for tier in K6_UNIT_TIERS})
            for a, b in windows.batch_bounds(len(ok), count)]


def _host_speed(batches: list[_Batch]) -> dict[str, object]:
    """How far the host's own speed moved the hold's throughput: the log of each batch's successes a second fitted
    against the log of k6's CPU per request in it — the slope (−1: the throughput moved exactly as the same work's
    cost to k6 did) and the share of the throughput's variance the fit explains (R²); nan under four batches, or
    where k6's CPU was not sampled. k6 does the same work for every request of a row, so where it kept its share of a
    full host while serving fewer, each request cost it more: the host slowed under every tier. A service that slowed
    by itself leaves k6 idle instead, its cost a request flat (slope ~0). On a full host a third-party app's batches
    gave r = −0.96, slope −1.04 (tp4, 2026-11-28: its CPU per request, PostgreSQL's and k6's rising and falling
    together by ±15%, steal read as 0.04%)."""
    unknown = {"host_speed_slope": math.nan, "host_speed_r2": math.nan}
    if len(batches) < 4 or not all(batch.served > 0 and batch.cpu["load"] > 0 for batch in batches):
        return unknown
    rates = [math.log(batch.served / batch.seconds) for batch in batches]
    costs = [math.log(batch.cpu["load"] * batch.seconds / batch.served) for batch in batches]
    try:
        slope = statistics.linear_regression(costs, rates).slope
        r = statistics.correlation(costs, rates)
    except statistics.StatisticsError:  # a constant throughput or cost: nothing moved that a fit could show
        return unknown
    return {"host_speed_slope": slope, "host_speed_r2": r * r}


def _in_k6_units(batches: list[_Batch]) -> dict[str, object]:
    """The service's CPU, and every tier's together, in units of k6's own CPU over the same batches — per request
    alike, as they served the same requests — each with the 95% half-width of its mean over the batches. k6 does the
    same work for every request, so where the host's speed moves, it moves every tier's CPU per request and k6's
    alike, and these ratios stay: a third-party app's service CPU per request was 0.484 and 0.639 ms in two runs 20
    min apart, 2.561 and 2.546 of k6's (tp3, tp4, 2026-11-28). nan under three batches, or where k6's or the
    service's CPU was not sampled."""
    if len(batches) < 3 or not all(batch.cpu["load"] > 0 and not math.isnan(batch.cpu["app"]) for batch in batches):
        return {column: math.nan for column in ("app_cpu_per_k6_cpu", "app_cpu_per_k6_cpu_ci95",
                                                 "tiers_cpu_per_k6_cpu", "tiers_cpu_per_k6_cpu_ci95")}
    service = [batch.cpu["app"] / batch.cpu["load"] for batch in batches]
    tiers = [sum(value for value in batch.cpu.values() if not math.isnan(value)) / batch.cpu["load"]
             for batch in batches]
    return {"app_cpu_per_k6_cpu": statistics.fmean(service), "app_cpu_per_k6_cpu_ci95": windows.half_width(service),
            "tiers_cpu_per_k6_cpu": statistics.fmean(tiers), "tiers_cpu_per_k6_cpu_ci95": windows.half_width(tiers)}


def longest_silence(per_second: tuple[int, ...]) -> int | float:
    """The longest run of consecutive seconds with no success in them (NaN without a series: not measured)."""
    if not per_second:
        return math.nan
    longest = current = 0
    for count in per_second:
        current = current + 1 if count == 0 else 0
        longest = max(longest, current)
    return longest


def _tiers(hold: Hold) -> dict[str, object]:
    """Each tier's CPU (100% = one core) and the service's RSS, over the hold."""
    cpu, start, end = hold.cpu, hold.start, hold.end
    app_cpu, app_cpu_max = windows.cpu_percent(cpu, "app", start, end)
    load_cpu, load_cpu_max = windows.cpu_percent(cpu, "load", start, end)
    all_rps = hold.measured.requests / hold.hold_s  # failed requests cost CPU too
    rss = windows.maximum(cpu, "rss_kb", start, end)
    pg_cpu, stub_cpu = windows.cpu_percent(cpu, "pg", start, end)[0], windows.cpu_percent(cpu, "stub", start, end)[0]

    def per_request(percent: float) -> float:  # % of one core over the hold → ms of CPU per request
        return percent * 10 / all_rps if all_rps > 0 else float("nan")
    return {"app_cpu_pct": app_cpu, "app_cpu_pct_max": app_cpu_max, "pg_cpu_pct": pg_cpu, "stub_cpu_pct": stub_cpu,
            "load_cpu_pct": load_cpu, "load_cpu_pct_max": load_cpu_max,
            "proxy_cpu_pct": windows.cpu_percent(cpu, "proxy", start, end)[0] if hold.proxy else "",
            # busy against what the rig could use: under a quota the machine is never all busy (cores.usable_share)
            "host_cpu_pct": windows.host_percent(cpu, start, end) / cores.usable_share(hold.cpus, hold.quota_cores),
            "cpu_quota_cores": "" if hold.quota_cores is None else round(hold.quota_cores, 3),
            "foreign_cpu_pct": windows.foreign_percent(cpu, list(hold.tiers), start, end),
            "steal_cpu_pct": windows.steal_percent(cpu, start, end),
            "cpu_pressure_pct": windows.pressure_percent(cpu, start, end),
            # the median reading: one landing on an interrupt or a migration moves it no more than any other
            HOST_WORK: windows.median(cpu, HOST_WORK, start, end),
            # and how far it moved: where the host's speed moved within seconds, the median lands on whichever speed
            # held longer, or between them, and is not the host's speed there
            HOST_WORK_SPREAD: windows.spread_pct(cpu, HOST_WORK, start, end),
            # the compiler's CPU is the JVM's, not its requests': what explain.compiler takes apart
            "jit_cpu_ms_per_s": windows.rate_over(cpu, JIT_CPU, start, end) * 1000,
            "app_cpu_ms_per_req": per_request(app_cpu), "pg_cpu_ms_per_req": per_request(pg_cpu),
            "stub_cpu_ms_per_req": per_request(stub_cpu), "load_cpu_ms_per_req": per_request(load_cpu),
            "rss_mb_max": rss / 1024 if not math.isnan(rss) else rss, "cpu_samples": len(cpu.window(start, end)),
            **_connection_limits(hold)}


def _connection_limits(hold: Hold) -> dict[str, object]:
    """The service's open files at their peak and its limit (from /proc where vtlab runs it, else its own meters),
    Tomcat's connection limit as it ran, and the connections the host's listening sockets dropped with their
    accept queue full during the whole row: users connect in its ramp, not its hold."""
    cpu, meters, start, end = hold.cpu, hold.meters, hold.start, hold.end
    files = windows.maximum(cpu, "open_files", start, end)
    limit = windows.maximum(cpu, "open_files_limit", start, end)
    if math.isnan(files):
        files, limit = windows.maximum(meters, "files_open", start, end), windows.maximum(meters, "files_max", start,
                                                                                          end)
    return {"open_files_max": files, "open_files_limit": limit,
            "max_connections": windows.maximum(meters, "max_connections", start, end),
            "listen_overflows": windows.increase(cpu, "listen_overflows", -math.inf, math.inf)}


def _service_meters(hold: Hold) -> dict[str, object]:
    """The service's own gauges and counters over the hold (Prometheus scrapes)."""
    meters, start, end = hold.meters, hold.start, hold.end
    return {"hikari_active_max": windows.maximum(meters, "hikari_active", start, end),
            "hikari_pending_max": windows.maximum(meters, "hikari_pending", start, end),
            "hikari_pending_share": windows.share_positive(meters, "hikari_pending", start, end),
            "jvm_threads_max": windows.maximum(meters, "jvm_threads", start, end),
            "tomcat_connections_max": windows.maximum(meters, "tomcat_connections", start, end),
            "pool_max": windows.maximum(meters, "pool_max", start, end),
            "tomcat_threads_config": windows.maximum(meters, "tomcat_threads_config", start, end),
            "gc_pauses": windows.increase(meters, "gc_pauses", start, end),
            "gc_pause_ms": windows.increase(meters, "gc_pause_s", start, end) * 1000,
            "heap_used_mb_max": windows.maximum(meters, "heap_used_bytes", start, end) / 2**20,
            "heap_max_mb": windows.maximum(meters, "heap_max_bytes", start, end) / 2**20,
            "heap_live_mb_max": windows.maximum(meters, "heap_live_bytes", start, end) / 2**20,
            "heap_old_max_mb": windows.maximum(meters, "heap_old_max_bytes", start, end) / 2**20,
            "meter_samples": len(meters.window(start, end)), **_pool_accounting(hold), **_client_pool(hold),
            **_throughput_interval(hold), **_costs_per_request(hold)}


def _client_pool(hold: Hold) -> dict[str, object]:
    """The downstream client's pool over the hold, by its gauges (2 Hz): its limit per route, the connections leased
    and the requests waiting for one. Nothing where the client keeps no such count (the JDK's)."""
    meters, start, end = hold.meters, hold.start, hold.end
    return {"client_pool_max": windows.maximum(meters, "client_pool_max", start, end),
            "client_leased_mean": windows.mean(meters, "client_leased", start, end),
            "client_leased_max": windows.maximum(meters, "client_leased", start, end),
            "client_pending_mean": windows.mean(meters, "client_pending", start, end),
            "client_pending_max": windows.maximum(meters, "client_pending", start, end),
            "client_pending_share": windows.share_positive(meters, "client_pending", start, end)}


def _costs_per_request(hold: Hold) -> dict[str, object]:
    """What each request cost the service's JVM over the hold, from its counters (every request, failed ones
    too): KiB allocated and GC pause ms per 1,000 requests. Allocation from the exact counter where the service
    has it (vtlab's own), else from Micrometer's, between the hold's first and last young collection: a hold with
    fewer than two has no allocation rate (not zero)."""
    meters, start, end = hold.meters, hold.start, hold.end
    all_rps = hold.measured.requests / hold.hold_s
    allocated = windows.rate_over(meters, "alloc_bytes", start, end)
    if math.isnan(allocated):
        allocated = windows.rate_between_changes(meters, "gc_alloc_bytes", start, end)
    gc_pause_s_per_s = windows.rate_over(meters, "gc_pause_s", start, end)
    return {"alloc_kb_per_req": allocated / 1024 / all_rps if all_rps > 0 else math.nan,
            "gc_pause_ms_per_1k_req": gc_pause_s_per_s * 1000 * 1000 / all_rps if all_rps > 0 else math.nan}


def _scrape_cost(hold: Hold) -> dict[str, object]:
    """The rig's own scrapes over the hold, as the service counted them on the thread that wrote each: ms of CPU and
    KiB allocated a second, and a scrape. Its counters move once a scrape is written, so the readings' first to last
    span whole scrapes. NaN where the service keeps no such count (a user's service; a run recorded before it)."""
    meters, start, end = hold.meters, hold.start, hold.end
    cpu_ms = windows.rate_over(meters, "scrape_cpu_s", start, end) * 1000
    kib = windows.rate_over(meters, "scrape_bytes", start, end) / 1024
    scrapes = windows.rate_over(meters, "scrapes", start, end)

    def per_scrape(per_second: float) -> float:
        return per_second / scrapes if scrapes > 0 else math.nan
    return {"scrape_cpu_ms_per_s": cpu_ms, "scrape_kib_per_s": kib, "scrape_cpu_ms_per_scrape": per_scrape(cpu_ms),
            "scrape_kib_per_scrape": per_scrape(kib)}


def _throughput_interval(hold: Hold) -> dict[str, object]:
    """The 95% half-width of the row's throughput, from the counter the throughput is: k6's successful
    requests, second by second over the hold, by batch means. Every row has that series, a service with no
    meters too; the interval is thus centred where it was computed (k6's count over the hold), not on a
    second counter. The service's own count of its successes stays beside it, as a cross-check."""
    _, half_width = windows.per_second_interval(hold.measured.ok_per_second, hold.rig.hold_batches)
    return {"throughput_service_rps": windows.rate_over(hold.meters, "requests_ok_total", hold.start, hold.end),
            "throughput_ci95_rps": half_width}


def _pool_accounting(hold: Hold) -> dict[str, object]:
    """The pool's exact counters over the hold, by Little's law; empty where the pool keeps none."""
    meters, start, end = hold.meters, hold.start, hold.end
    borrows = windows.rate_over(meters, "pool_borrows", start, end)
    usage = windows.rate_over(meters, "pool_usage_s", start, end)  # connection-seconds per second
    return {"pool_borrows_per_s": borrows, "pool_out_mean": usage,
            "pool_waiting_mean": windows.rate_over(meters, "pool_acquire_s", start, end),
            "pool_usage_ms": usage / borrows * 1000 if borrows > 0 else float("nan"),
            "pool_timeouts": windows.increase(meters, "pool_timeouts", start, end)}
