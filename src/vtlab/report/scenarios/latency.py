"""Network latency injected between the tiers (Toxiproxy): where the bottleneck moves."""

from __future__ import annotations

import math

from vtlab.explain.facts import SATURATED
from vtlab.explain.queues import POOL_QUEUE_WAITERS
from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import (Label, TABLE_COLUMNS, POOL_COLUMNS, Line, Section, fmt, table_of, chart_of,
                                    matching_baseline, waiters_text)


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    delayed = [a for a in analysed if a.row.db_latency_ms > 0 or a.row.downstream_latency_ms > 0]
    if not delayed:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms", "workload")
    lines = sorted([*delayed, *matching_baseline(analysed, delayed, same)],
                   key=lambda a: (a.row.thread_mode != "platform", a.row.db_latency_ms,
                                  a.row.downstream_latency_ms, a.row.concurrency))

    def where(a: Line) -> str:
        parts = []
        for column, tier in (("db", "PostgreSQL"), ("downstream", "downstream")):
            latency_ms, jitter_ms = getattr(a.row, f"{column}_latency_ms"), getattr(a.row, f"{column}_jitter_ms")
            if latency_ms > 0:
                parts.append(f"{tier} +{fmt(latency_ms)}±{fmt(jitter_ms)} ms")
        return ", ".join(parts) + " each way" if parts else "loopback"

    verdict = ["Latency is added by a Toxiproxy between the tiers, to each direction of every connection, so "
               "every query or call pays it twice."]
    for mode in ("platform", "virtual"):
        mine = [a for a in lines if a.row.thread_mode == mode]
        base = next((a for a in mine if where(a) == "loopback"), None)
        for a in (a for a in mine if where(a) != "loopback"):
            sentence = (f"{mode} with {where(a)}: {fmt(a.measured.throughput_rps, 1)} req/s, median "
                        f"{fmt(a.measured.p50_ms)} ms ({a.bottleneck}, ceiling {fmt(a.ceiling_rps, 1)} "
                        f"req/s)")
            if base:
                moved = base.bottleneck != a.bottleneck
                sentence += (f" against {fmt(base.measured.throughput_rps, 1)} req/s on loopback ({base.bottleneck})"
                             + (f" — the bottleneck moved from {base.bottleneck} to {a.bottleneck}"
                                if moved else ""))
            if a.bottleneck == "connection-pool" and a.measured.throughput_rps > 0:
                sentence += _held_words(a)
            verdict.append(sentence + ".")
    proxy = [a for a in delayed if a.measured.proxy_cpu_pct > 0]
    if proxy:
        verdict.append(f"The proxy itself used {fmt(max(a.measured.proxy_cpu_pct for a in proxy))}% of one core "
                       "at most (sampled as its own tier, counted in the CPU ceiling).")

    def variant(a: Line) -> str:
        return f"{mode_label(a.row)}, {where(a)}"

    return Section("latency", "Injected network latency: the database and the downstream stop being on loopback",
                   verdict, table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines],
                                                                       ("throughput_rps", "p50_ms")),
                   [*TABLE_COLUMNS, POOL_COLUMNS[0]])



def _held_words(a: Line) -> str:
    """How long each request kept a connection, by Little's law — said only where every connection was seen out,
    and set against the database's round trip only where the row shows one and the time covers it."""
    pool, m = a.row.hikari_pool, a.measured
    # a thread waits for a connection of a fixed-size pool only when every one is out: the pool's timers say how
    # many waited on average; without them, the 2 Hz samples that caught a waiter
    waiting = m.pool_waiting_mean
    full = (m.pool_out_mean >= SATURATED * pool or waiting >= POOL_QUEUE_WAITERS
            or (math.isnan(waiting) and m.hikari_pending_max > 0))
    if not full:
        out = ("" if math.isnan(m.pool_out_mean) else f"{fmt(m.pool_out_mean, 1)} out on average, ")
        return (f"; yet the {pool} connections were not seen all busy ({out}waiters: {waiters_text(a)})")
    hold_ms = pool / m.throughput_rps * 1000
    told = (f"; all {pool} connections were busy (waiters: {waiters_text(a)}), so each request kept one "
            f"~{fmt(hold_ms)} ms (connections ÷ throughput)")
    trip_ms = 2 * a.row.db_latency_ms
    if not trip_ms:
        return told
    if hold_ms >= trip_ms:
        return told + (f" — the {fmt(trip_ms)} ms round trip plus the query, where on loopback it is the query "
                       "alone")
    return told + f" — less than the {fmt(trip_ms)} ms round trip, so not every borrow paid it"
