"""The bottleneck: one name for what held a row back, decided from its measurements, most decisive first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from vtlab.explain.facts import SATURATED, in_flight, pool_size
from vtlab.explain.model import Context
from vtlab.explain.queues import pool_was_the_queue, request_thread_cap
from vtlab.explain.validity import ERROR_THRESHOLD
from vtlab.results.cells import num, parse_reasons

BOTTLENECKS = ("thread-pool", "connection-pool", "cpu", "downstream", "load-generator", "overload")


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
    by_status = parse_reasons(str(row.get("errors_by_status") or ""))
    shed = sum(by_status.get(status, 0) for status in ("503", "504"))
    requests = num(row, "http_reqs", 0)
    return (num(row, "error_rate", 0) > ERROR_THRESHOLD or num(row, "pool_timeouts", 0) > ERROR_THRESHOLD * requests
            or shed > ERROR_THRESHOLD * requests)
