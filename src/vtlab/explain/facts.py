"""What a row says about itself, read from its cells: its workload and the wait it was designed with, the
requests in flight, its pool, the CPU its tiers spent per response, and which rows share its service time or its
CPU per request. No judgement here: the ceilings, the flags and the bottleneck are decided from these.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from vtlab.core import constants as rig_constants
from vtlab.core import dimensions
from vtlab.results.cells import num

# The analysis reads the run's recorded saturated_share (ctx.rig); this stands in only for the report's sentences
# that have no run's record at hand.
SATURATED = rig_constants.CURRENT.saturated_share


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
    call_s = _call_s(row)
    return 2 * call_s if kind == "fanout" and row.get("fanout") == "sequential" else call_s


def _call_s(row: Mapping[str, object]) -> float:
    """One downstream call: the stub's delay and the latency injected each way."""
    return (num(row, "stub_delay_ms", 0) + 2 * num(row, "downstream_latency_ms", 0)) / 1000


def client_hold_s(row: Mapping[str, object]) -> float:
    """Seconds of a downstream connection one request uses by design: the call (the stub's delay and any latency
    injected on the way), twice for a fan-out (two calls, at once or one after the other), none without a call."""
    kind = workload(row)
    if kind in ("sleep", "cpu"):
        return 0.0
    return 2 * _call_s(row) if kind == "fanout" else _call_s(row)


def client_pool_size(row: Mapping[str, object]) -> float:
    """The downstream client's connections per route as the service ran (its meters; -1 there: no limit, inf), else
    as the row set them; NaN where neither says (a user's service without such meters, a CSV from before them)."""
    measured = num(row, "client_pool_max")
    if not math.isnan(measured):
        return math.inf if measured < 0 else measured
    return num(row, "client_pool") if num(row, "client_pool", 0) > 0 else math.nan


def scenario_of(row: Mapping[str, object]) -> tuple[str, ...]:
    """Rows that share a service time: equal in every dimension that changes what one request does (the
    registry's per_request ones), the same designed wait, and the reactive twin apart from the blocking app."""
    return (*dimensions.key(dimensions.parse(row), dimensions.PER_REQUEST),
            str(wait_s(row) if workload(row) != "cpu" else num(row, "cpu_work", 0)),
            "webflux" if row.get("thread_mode") == "webflux" else "blocking")


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
    latency = latency_ms(row)
    return num(row, "throughput_rps", 0) * (0.0 if math.isnan(latency) else latency) / 1000


def latency_ms(row: Mapping[str, object]) -> float:
    """The successful requests' mean latency (Little's law's), their p50 in CSVs without it; NaN when none
    succeeded: the latency of nothing is not 0."""
    latency = num(row, "mean_ms")
    return num(row, "p50_ms") if math.isnan(latency) else latency


def vu_cap(row: Mapping[str, object], factor: int) -> float:
    """The open model's most VUs k6 may run: load/phases.js pre-allocates the row's users and lets k6 grow to
    `factor` (the rig's k6_max_vus_factor) times them before it drops arrivals."""
    return factor * num(row, "concurrency", 0)


def db_round_trip_s(row: Mapping[str, object]) -> float:
    """The network time one query adds when latency is injected between service and database (once
    each way); zero for workloads that never touch the database."""
    if workload(row) in ("sleep", "cpu"):
        return 0.0
    return 2 * num(row, "db_latency_ms", 0) / 1000


def all_rps(row: Mapping[str, object]) -> float:
    """Every response per second over the hold, failed ones too: what the tiers spent their CPU on."""
    hold = num(row, "hold_s", 0)
    return num(row, "http_reqs", 0) / hold if hold else num(row, "throughput_rps", 0)


def cpu_tiers(shared_cores: bool) -> tuple[str, ...]:
    """The tiers whose CPU competes for the service's cores: all of them when they share the cores."""
    return (("app_cpu_pct", "pg_cpu_pct", "stub_cpu_pct", "load_cpu_pct", "proxy_cpu_pct") if shared_cores
            else ("app_cpu_pct",))


def cpu_group(row: Mapping[str, object]) -> tuple[str, ...]:
    """Rows whose CPU per request is one quantity: one scenario, one thread model, one load model."""
    return (*scenario_of(row), str(row.get("thread_mode")), str(row.get("load_model") or "closed"))
