"""What a row says about itself, read from its cells: its workload and the wait it was designed with, the
requests in flight, its pool, the CPU its tiers spent per response, and which rows share its service time or its
CPU per request. No judgement here: the ceilings, the flags and the bottleneck are decided from these.
"""

from __future__ import annotations

import math
from typing import Any

from vtlab.core import constants as rig_constants
from vtlab.core import dimensions
from vtlab.core import measures
from vtlab.core.measures import given
from vtlab.results.rows import MeasuredRow

# The analysis reads the run's recorded saturated_share (ctx.rig); this stands in only for the report's sentences
# that have no run's record at hand.
SATURATED = rig_constants.CURRENT.saturated_share


def workload(row: MeasuredRow) -> str:
    return str(row.workload or "order-summary")  # CSVs from before the workloads have none


def wait_s(row: MeasuredRow) -> float:
    """What one request waits on by design: the stub's delay (plus any latency injected on the way
    there and back; twice for a sequential fan-out), the sleep, or nothing (cpu)."""
    kind = workload(row)
    if kind == "sleep":
        return float(row.sleep_ms) / 1000
    if kind == "cpu":
        return 0.0
    call_s = _call_s(row)
    return 2 * call_s if kind == "fanout" and row.fanout == "sequential" else call_s


def _call_s(row: MeasuredRow) -> float:
    """One downstream call: the stub's delay and the latency injected each way."""
    return float(row.stub_delay_ms + 2 * row.downstream_latency_ms) / 1000


def client_hold_s(row: Any) -> float:
    """Seconds of a downstream connection one request uses by design: the call (the stub's delay and any latency
    injected on the way), twice for a fan-out (two calls, at once or one after the other), none without a call. From
    the dimensions alone: a plan's Row as well as a MeasuredRow."""
    kind = workload(row)
    if kind in ("sleep", "cpu"):
        return 0.0
    return 2 * _call_s(row) if kind == "fanout" else _call_s(row)


def client_pool_size(row: MeasuredRow) -> float:
    """The downstream client's connections per route as the service ran (its meters; -1 there: no limit, inf), else
    as the row set them; NaN where neither says (a user's service without such meters, a CSV from before them)."""
    measured = row.client_pool_max
    if not math.isnan(measured):
        return math.inf if measured < 0 else measured
    return float(row.client_pool) if row.client_pool > 0 else math.nan


def scenario_of(row: MeasuredRow) -> tuple[str, ...]:
    """Rows that share a service time: equal in every dimension that changes what one request does (the
    registry's per_request ones), the same designed wait, and the reactive twin apart from the blocking app."""
    return (*dimensions.key(row.dims, dimensions.PER_REQUEST),
            str(wait_s(row) if workload(row) != "cpu" else float(row.cpu_work)),
            "webflux" if row.thread_mode == "webflux" else "blocking")


def user_service(row: MeasuredRow) -> bool:
    """A row of the user's own service: its pool and threads are what it reported, not what the row set."""
    return workload(row) == "service"


def pool_size(row: MeasuredRow) -> float:
    """The connections the row's pool had: set by the row for vtlab's service, read from the meters for a user's
    (NaN when it exposes none)."""
    return row.pool_max if user_service(row) else float(row.hikari_pool)


def in_flight(row: MeasuredRow) -> float:
    """Requests in the service at once: the users of a closed model; for the open model its arrival rate
    times the time each request took (Little's law), never the users k6 pre-allocated to carry it."""
    if row.load_model != "open" and not user_service(row):
        return float(row.concurrency)
    # a user's script may think between its requests: its users are not all in the service at once
    latency = latency_ms(row)
    return given(row.throughput_rps, 0) * (0.0 if math.isnan(latency) else latency) / 1000


def latency_ms(row: MeasuredRow) -> float:
    """The successful requests' mean latency (Little's law's), their p50 in CSVs without it; NaN when none
    succeeded: the latency of nothing is not 0."""
    latency = row.mean_ms
    return row.p50_ms if math.isnan(latency) else latency


def vu_cap(row: MeasuredRow, factor: int) -> float:
    """The open model's most VUs k6 may run: load/phases.js pre-allocates the row's users and lets k6 grow to
    `factor` (the rig's k6_max_vus_factor) times them before it drops arrivals."""
    return factor * float(row.concurrency)


def db_round_trip_s(row: MeasuredRow) -> float:
    """The network time one query adds when latency is injected between service and database (once
    each way); zero for workloads that never touch the database."""
    if workload(row) in ("sleep", "cpu"):
        return 0.0
    return 2 * float(row.db_latency_ms) / 1000


def all_rps(row: MeasuredRow) -> float:
    """Every response per second over the hold, failed ones too: what the tiers spent their CPU on."""
    hold = given(row.hold_s, 0)
    return given(row.http_reqs, 0) / hold if hold else given(row.throughput_rps, 0)


def cpu_tiers(shared_cores: bool) -> tuple[str, ...]:
    """The tiers whose CPU competes for the service's cores: all of them when they share the cores."""
    return _EVERY_TIER if shared_cores else _SERVICE_ONLY


_EVERY_TIER = measures.declared("app_cpu_pct", "pg_cpu_pct", "stub_cpu_pct", "load_cpu_pct", "proxy_cpu_pct")
_SERVICE_ONLY = measures.declared("app_cpu_pct")


def cpu_group(row: MeasuredRow) -> tuple[str, ...]:
    """Rows whose CPU per request is one quantity: one scenario, one thread model, one load model."""
    return (*scenario_of(row), row.thread_mode, row.load_model)
