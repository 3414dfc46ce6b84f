"""A row's Little's-law ceilings: the time one request spends in the service when nothing queues, how many
requests per second each resource lets through at it (the users, the request threads, the pool, the CPU), and the
lowest of them, the row's limit. The CPU's is predicted from the rows of lower load, never restated from the row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from vtlab.core import constants as rig_constants
from vtlab.core.measures import given
from vtlab.explain.facts import (all_rps, client_hold_s, client_pool_size, cpu_group, cpu_tiers, db_round_trip_s,
                                 in_flight, pool_size, scenario_of, user_service, wait_s, workload)
from vtlab.explain.model import LIMITS, Ceilings, Context, CpuPoint
from vtlab.explain.queues import queued, request_thread_cap
from vtlab.results.rows import MeasuredRow


def lowest_load_rows(rows: Sequence[MeasuredRow],
                     rig: rig_constants.Constants) -> dict[tuple[str, ...], tuple[float, float, str]]:
    """Per scenario: (users, p50 seconds, thread mode) of the least-loaded clean row that did not queue (the
    fastest one on a tie). Little's law needs the time one request spends in the service when nothing queues;
    that row is the closest measurement. Without one, the designed wait (stub delay, sleep) stands in."""
    candidates: dict[tuple[str, ...], tuple[float, float, str]] = {}
    for row in rows:
        # a row that completed nothing has no latency to give: never a scenario's reference, whatever its p50 reads
        if (row.failed or given(row.error_rate, 0) > 0 or math.isnan(row.p50_ms)
                or not given(row.throughput_rps, 0) > 0 or given(row.ok_requests, 1) <= 0
                or queued(row, rig)):
            continue
        key = scenario_of(row)
        candidate = (float(row.concurrency), row.p50_ms / 1000, row.thread_mode)
        if key not in candidates or candidate < candidates[key]:
            candidates[key] = candidate
    return candidates


def service_time(row: MeasuredRow, ctx: Context) -> tuple[float, str]:
    """Seconds one request spends in the service when nothing queues, and which measurement says so."""
    kind = workload(row)
    delay_s = wait_s(row)
    measured_s = ctx.service_time_s.get(scenario_of(row))
    if kind == "cpu" and given(row.app_cpu_ms_per_req, 0) > 0:
        # Pure computation: a thread is busy for its CPU time; latency would count the CPU queue too.
        service_s, source = row.app_cpu_ms_per_req / 1000, "app CPU per request"
    elif measured_s is not None and measured_s >= delay_s:
        service_s, source = measured_s, "p50 at lowest load"
    elif user_service(row):
        if measured_s is not None:  # no design to hold it against: what the service took is its time
            return max(measured_s, 1e-3), "p50 at lowest load"
        return math.nan, "not measured: every row queued or failed"  # nothing of its design to stand in
    else:
        in_turn = 2 if kind == "fanout" and row.fanout == "sequential" else 1  # calls one after the other
        designed_s = delay_s + _jitter_s(row, ctx) * in_turn + db_round_trip_s(row)
        service_s = max(designed_s, measured_s or 0.0)
        source = "sleep" if kind == "sleep" else "stub delay" + (" + database latency" if db_round_trip_s(row) else "")
    return max(service_s, 1e-3), source


class _Ceiling(NamedTuple):
    """One resource's ceiling in req/s, whether it restates the row's own measurement, and what was missing to
    compute it ("" when nothing was)."""
    rps: float
    restated: bool = False
    missing: str = ""


def ceilings_of(row: MeasuredRow, ctx: Context, service_s: float, source: str, cpu_ms: float,
                throughput: float) -> Ceilings:
    """Little's law per resource: how many requests each lets through per second at this service time."""
    concurrency = _concurrency_ceiling(row, ctx, service_s, source)
    threads = _thread_ceiling(row, ctx, service_s)
    pool = _pool_ceiling(row, ctx, service_s, throughput)
    cpu = _cpu_ceiling(row, ctx, cpu_ms)
    held = connections_held(row)
    connections = math.nan if math.isnan(held) or math.isnan(service_s) else held / service_s
    # analysis.csv lists them in this order
    restated = (("pool", pool), ("concurrency", concurrency), ("cpu", cpu))
    return Ceilings(concurrency=concurrency.rps, threads=threads.rps, pool=pool.rps, cpu=cpu.rps,
                    connections=connections, client_pool=client_pool_ceiling(row, ctx),
                    restated=tuple(name for name, ceiling in restated if ceiling.restated),
                    missing=tuple(ceiling.missing for ceiling in (pool, cpu, threads) if ceiling.missing))


def _concurrency_ceiling(row: MeasuredRow, ctx: Context, service_s: float, source: str) -> _Ceiling:
    """The users (or the open model's arrivals) over the service time."""
    if row.load_model == "open":
        return _Ceiling(float(row.target_rps))
    users = in_flight(row) if user_service(row) else float(row.concurrency)
    # the row that measured the service time: users ÷ its own p50 is its own throughput by Little's law
    own = (source == "p50 at lowest load"
           and (row.thread_mode, float(row.concurrency)) == ctx.service_time_point.get(scenario_of(row)))
    return _Ceiling(users / service_s, restated=own)


def client_pool_ceiling(row: MeasuredRow, ctx: Context | None = None) -> float:
    """The downstream client's connections per route over the connection time one request uses by design (the call):
    inf where the client has no limit or the request makes no call; NaN where the pool's size is not known, and for a
    user's service, whose calls' time vtlab does not know (the whole request's would make it a floor, not a ceiling:
    its pool is judged by its gauges alone). With `ctx`, the run's stub jitter counts in the call's time."""
    size = client_pool_size(row)
    if user_service(row):
        return math.nan
    hold_s = client_hold_s(row)
    if math.isinf(size) or hold_s == 0:
        return math.inf
    if ctx is not None:  # each call's connection also waits the stub's extra delay, its mean
        hold_s += _jitter_s(row, ctx) * (2 if workload(row) == "fanout" else 1)
    return math.nan if math.isnan(size) else size / hold_s


def _jitter_s(row: MeasuredRow, ctx: Context) -> float:
    """One call's mean extra delay at the stub (Context.jitter_mean_s), where the request calls it at all."""
    calls = workload(row) not in ("sleep", "cpu") and row.stub_delay_ms > 0
    return ctx.jitter_mean_s if calls else 0.0


def connections_held(row: MeasuredRow) -> float:
    """How many requests' connections the service could hold at once (NaN where the row read neither limit):
    Tomcat's max connections, and its open-file limit over the files each connection took at the row's peak
    (a lower bound: the files every JVM holds anyway are counted against the connections)."""
    limits = []
    if given(row.max_connections, 0) > 0:
        limits.append(row.max_connections)
    files, limit, connections = (given(row.open_files_max, 0), given(row.open_files_limit, 0),
                                 given(row.tomcat_connections_max, 0))
    if files > 0 and connections > 0 and limit > 0:
        limits.append(limit * min(connections / files, 1.0))
    return min(limits) if limits else math.nan


def _thread_ceiling(row: MeasuredRow, ctx: Context, service_s: float) -> _Ceiling:
    """The request threads (or the carriers every request pins, or the offload pool) over the service time."""
    threads = request_thread_cap(row) / service_s
    if math.isnan(service_s):
        return _Ceiling(threads, missing="concurrency, thread-pool: no row measured the service time (each queued "
                                         "or failed): add a lower --conc")
    if math.isnan(threads):
        return _Ceiling(threads, missing="thread-pool: the service exposes no Tomcat max threads "
                                         "(tomcat_threads_config_max_threads)")
    return _Ceiling(threads)


def _pool_ceiling(row: MeasuredRow, ctx: Context, service_s: float, throughput: float) -> _Ceiling:
    """The connections over the time one request holds one: all of it when held, the query alone when released."""
    pool = pool_size(row)
    if workload(row) in ("sleep", "cpu"):
        return _Ceiling(math.inf)  # sleep and cpu never borrow a connection
    if math.isnan(pool):
        return _Ceiling(math.nan, missing="pool: the service exposes no pool size (hikaricp_connections_max)")
    headroom = _pool_headroom_rps(row, throughput, pool)
    if user_service(row):
        # no designed call to subtract: the pool's own time out per request where it keeps one (HikariCP), else
        # the whole request's time, the longest a borrow can last
        return _Ceiling(headroom, restated=True) if headroom > 0 else _Ceiling(pool / service_s)
    held_s = (service_s if row.conn_mode == "held"
              else _released_hold_s(service_s, wait_s(row), ctx.rig.query_time_s + db_round_trip_s(row)))
    # restated: the row's own throughput scaled by its connections out
    return _Ceiling(max(pool / held_s, headroom), restated=headroom > pool / held_s)


def _cpu_ceiling(row: MeasuredRow, ctx: Context, cpu_ms: float) -> _Ceiling:
    """The cores over the CPU one request costs, predicted from the rows of lower load where they allow."""
    if ctx.service_unseen:
        return _Ceiling(math.nan, missing="cpu: the service's CPU was not measured (a --url service is not vtlab's "
                                          "process)")
    cores_there = ctx.host_cpus if ctx.shared_cores else given(row.app_cpus, ctx.host_cpus)
    fixed_pct, marginal_ms = predicted_cpu_ms(row, ctx)
    if math.isnan(marginal_ms):
        # restated: cores ÷ its own CPU per request, the utilisation law
        return _Ceiling(cores_there / (cpu_ms / 1000) if cpu_ms > 0 else math.inf, restated=cpu_ms > 0)
    return _Ceiling(max(cores_there * 100 - fixed_pct, 0.0) / (marginal_ms / 10))


def limit_of(ceilings: Ceilings, passed: Sequence[str] = ()) -> tuple[str, float]:
    """The lowest ceiling that was computed (not NaN) and its name; a tie goes to the first in LIMITS. A ceiling
    the row `passed` (evidence.exceeded) was a wrong prediction: it limits nothing, so the next one up stands."""
    known = [(name, getattr(ceilings, field)) for name, field in LIMITS
             if not math.isnan(getattr(ceilings, field)) and name not in passed]
    return min(known, key=lambda pair: pair[1]) if known else ("", math.nan)


def cpu_points(rows: Sequence[MeasuredRow], shared_cores: bool,
               rig: rig_constants.Constants) -> dict[tuple[str, ...], tuple[CpuPoint, ...]]:
    """Per CPU group, the clean rows' load and CPU (errors within error_rate_max, CPU measured)."""
    points: dict[tuple[str, ...], list[CpuPoint]] = {}
    for row in rows:
        rps = all_rps(row)
        pct = sum(given(getattr(row, column), 0) for column in cpu_tiers(shared_cores))
        if row.failed or given(row.error_rate, 0) > rig.error_rate_max or not rps > 0 or not pct > 0:
            continue
        points.setdefault(cpu_group(row), []).append(CpuPoint(in_flight(row), rps, pct))
    return {key: tuple(group) for key, group in points.items()}


def predicted_cpu_ms(row: MeasuredRow, ctx: Context) -> tuple[float, float]:
    """(fixed CPU %, marginal CPU ms per request) fitted over the rows of the row's CPU group at lower load —
    never the row itself — so that the CPU wall is a prediction, not its utilisation restated. A least-squares
    line through at least two points whose throughputs span cpu_fit_min_ratio (a fifth more); (nan, nan) without one.

    The fixed part is what the tiers burn whatever the load (samplers, the JIT, GC, idle loops); CPU per
    request at one low load counts it in and would predict far too low a wall."""
    load = in_flight(row)
    points = [p for p in ctx.cpu_points.get(cpu_group(row), ()) if p.concurrency < load]
    xs = [p.rps for p in points]
    if len(points) < 2 or max(xs) < ctx.rig.cpu_fit_min_ratio * min(xs):
        return math.nan, math.nan
    mean_x, mean_y = sum(xs) / len(xs), sum(p.cpu_pct for p in points) / len(points)
    slope = (sum((p.rps - mean_x) * (p.cpu_pct - mean_y) for p in points)
             / sum((x - mean_x) ** 2 for x in xs))
    if slope <= 0:
        return math.nan, math.nan
    return mean_y - slope * mean_x, slope * 10  # CPU % per (req/s) is ms per request / 10


def cpu_ms_per_request(row: MeasuredRow, ctx: Context, all_rps: float) -> float:
    """CPU per request that competes for the service's cores: the app's own, plus every other
    tier's when the tiers share the CPUs."""
    if not all_rps or math.isnan(all_rps):
        return math.nan
    pct = sum(given(getattr(row, column), 0) for column in cpu_tiers(ctx.shared_cores))
    return pct * 10 / all_rps if pct else math.nan


def _pool_headroom_rps(row: MeasuredRow, throughput: float, pool: float) -> float:
    """What the pool can carry at least, measured in the row itself. Exactly where the pool times its
    borrows: pool ÷ the connection time one request used (mean connections out ÷ throughput). Otherwise from
    the samples: a pool that never had waiters delivered `throughput` with at most `hikari_active_max`
    connections out, so all of them carry proportionally more. Keeps a released-mode estimate (service time
    minus the call, which also holds any CPU queueing) honest."""
    out = row.pool_out_mean
    if not math.isnan(out) and not math.isnan(pool):
        return throughput * pool / out if out > 0 and throughput > 0 else 0.0
    active = given(row.hikari_active_max, 0)
    if active <= 0 or given(row.hikari_pending_max, 0) > 0 or math.isnan(pool):
        return 0.0
    return throughput * pool / active


def _released_hold_s(service_s: float, delay_s: float, floor: float) -> float:
    # Released: the connection is out only for the query (and its round trip: `floor`), i.e. the service time minus
    # the call.
    return max(service_s - delay_s, floor) if delay_s else floor
