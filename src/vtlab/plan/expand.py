"""A profile's block expanded into rows: every combination of its dimensions (the plan's settings where a flag or the
profile sets one), each shaped to what its workload and thread mode use, so that rows measuring the same thing are
one row."""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Iterator
from dataclasses import replace

from vtlab.core.dimensions import Row
from vtlab.core.shapes import vus_for
from vtlab.plan.presets import CAPPED_VIRTUAL_SERVERS, DEFAULT_WORKLOAD, SERVICE_WORKLOAD, Block


def rows(block: Block, rep: int, setting: dict) -> Iterator[Row]:
    """Every combination of the block's dimensions, in the order rows are measured."""
    loads = ([("open", vus_for("open", 0, rate), rate) for rate in block.rates] if setting["model"] == "open"
             else [("closed", users, 0) for users in block.concurrency])
    for workload, conn_mode, pool, path_mode, tomcat, (model, users, rate), jdk, options, mode, executor, fanout, \
            pool_impl, client, client_pool, server, ctx, db_ms, downstream_ms, shape in itertools.product(
                block.workloads, block.conn_modes, block.pools, block.path_modes,
                block.tomcat_threads or (setting["tomcat_max_threads"],), loads, block.jdks, setting["jvm_opts"],
                block.modes,
                block.executors, block.fanouts, block.pool_impls, block.http_clients, block.client_pools,
                block.servers, block.contexts, block.db_latencies, block.downstream_latencies, block.shapes):
        yield Row(thread_mode=mode, server=server, workload=workload, load_model=model, concurrency=users,
                  target_rps=rate, conn_mode=conn_mode, path_mode=path_mode, hikari_pool=pool, pool_impl=pool_impl,
                  http_client=client, client_pool=client_pool,
                  tomcat_max_threads=tomcat, stub_delay_ms=setting["stub_delay_ms"],
                  sleep_ms=setting["sleep_ms"], cpu_work=setting["cpu_work"], offload_executor=executor,
                  offload_pool=setting["offload_pool"], fanout=fanout, context=ctx,
                  context_kb=setting["context_kb"], db_latency_ms=db_ms, db_jitter_ms=setting["db_jitter_ms"],
                  downstream_latency_ms=downstream_ms, downstream_jitter_ms=setting["downstream_jitter_ms"],
                  shape=shape, jdk=jdk, jvm_opts=shlex.join(options), rep=rep)


def shaped(row: Row, setting: dict) -> Row | None:
    """Clear what a row's workload or thread mode does not use, so rows that would measure the same thing
    collapse into one; None for a combination that cannot be measured."""
    workload = row.workload
    if row.thread_mode == "webflux" and workload != DEFAULT_WORKLOAD:
        return None  # the reactive twin serves the order-summary workload only
    if workload == SERVICE_WORKLOAD:
        # the user's service: vtlab sets none of its own service's parts, so none of them tells rows apart; the
        # latency it adds in front of its own PostgreSQL (--db) is the rig's, as for its own service
        return Row(thread_mode=row.thread_mode, workload=workload, load_model=row.load_model,
                   concurrency=row.concurrency, target_rps=row.target_rps, hikari_pool=0, tomcat_max_threads=0,
                   stub_delay_ms=row.stub_delay_ms, db_latency_ms=row.db_latency_ms,
                   db_jitter_ms=row.db_jitter_ms if row.db_latency_ms else 0, shape=row.shape, jdk=row.jdk,
                   jvm_opts=row.jvm_opts, rep=row.rep)
    changes: dict[str, object] = {
        "sleep_ms": row.sleep_ms if workload == "sleep" else 0,
        "cpu_work": row.cpu_work if workload == "cpu" else 0,
        "offload_executor": row.offload_executor if workload == "offload" else "",
        "fanout": row.fanout if workload == "fanout" else "",
        "context_kb": row.context_kb if row.context != "none" else 0,
        "db_jitter_ms": row.db_jitter_ms if row.db_latency_ms else 0,
        "downstream_jitter_ms": row.downstream_jitter_ms if row.downstream_latency_ms else 0,
    }
    changes["offload_pool"] = row.offload_pool if changes["offload_executor"] == "platform" else 0
    if row.thread_mode == "virtual" and row.server not in CAPPED_VIRTUAL_SERVERS:
        # no request-thread pool to size: every virtual row carries the plan's setting (what the service is started
        # with), so a profile's platform pool sizes never multiply its virtual rows
        changes["tomcat_max_threads"] = setting["tomcat_max_threads"]
    if workload in ("sleep", "cpu") or row.http_client == "jdk":
        # no downstream call, or the JDK's client: no pool to size
        changes.update(http_client=row.http_client if workload not in ("sleep", "cpu") else "jdk", client_pool=0)
    if workload in ("sleep", "cpu", "offload"):
        # one row, not one per mode: sleep and cpu touch neither the pool nor the downstream, offload varies
        # the executor instead
        changes.update(conn_mode="released", path_mode="normal")
    elif workload == "write":
        changes["path_mode"] = "normal"  # the write path has no synchronized variant
    if row.thread_mode == "webflux":
        # one event loop and an R2DBC pool: no Tomcat threads, held mode, pinning or context
        changes.update(conn_mode="released", path_mode="normal", pool_impl="r2dbc", context="none", context_kb=0,
                       tomcat_max_threads=0, http_client="jdk", client_pool=0,  # the twin's client is its own
                       server="tomcat")
    return replace(row, **changes)
