"""HikariCP vs Agroal at the same size and timeout."""

from __future__ import annotations

import math

from vtlab.explain import analyze
from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import (Label, TABLE_COLUMNS, POOL_COLUMNS, Line, Section, fmt, table_of, chart_of,
                                    matching_baseline, rps_text, separated)


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    agroal = [a for a in analysed if a.row.pool_impl == "agroal"]
    if not agroal:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms")
    lines = sorted([*agroal, *matching_baseline(analysed, agroal, same)],
                   key=lambda a: (a.row.thread_mode != "platform", a.row.pool_impl != "hikari",
                                  a.row.concurrency))
    verdict = []
    for mode in ("platform", "virtual"):
        by = {a.row.pool_impl: a for a in lines if a.row.thread_mode == mode}
        hikari, other = by.get("hikari"), by.get("agroal")
        if hikari and other:
            verdict.append(
                f"{mode}, {other.row.conn_mode}, pool {other.row.hikari_pool}, {other.row.concurrency} users: "
                f"HikariCP {rps_text(hikari)} req/s (p99 {fmt(hikari.measured.p99_ms)} ms) vs "
                f"Agroal {rps_text(other)} req/s (p99 {fmt(other.measured.p99_ms)} ms): "
                + ("within noise of each other (their 95% intervals overlap) — the same wall"
                   if not separated(hikari, other) else
                   f"Agroal at {fmt(other.measured.throughput_rps / hikari.measured.throughput_rps, 2)}× HikariCP "
                   "(their 95% intervals apart)")
                + f"; bottleneck {hikari.bottleneck} / {other.bottleneck}."
                + _tail_sentence(hikari.measured.p99_ms, other.measured.p99_ms))
        elif other:
            verdict.append(f"{mode}: Agroal {fmt(other.measured.throughput_rps, 1)} req/s ({other.bottleneck}); no "
                           "HikariCP row at the same settings to compare with.")
    pinned = [a for a in agroal if a.row.thread_mode == "virtual" and a.measured.pinned_events > 0]
    verdict.append(f"Agroal pinned virtual threads {fmt(sum(a.measured.pinned_events for a in pinned))} times "
                   f"({', '.join(str(a.measured.pinned_reasons) for a in pinned)}): its borrow still blocks a carrier."
                   if pinned else "Neither pool pinned a virtual thread while borrowing (0 jdk.VirtualThreadPinned "
                   f"events ≥ {analysis.rig.jfr_pinned_threshold_ms} ms in the Agroal rows).")

    def variant(a: Line) -> str:
        return f"{mode_label(a.row)}, {'Agroal' if a.row.pool_impl == 'agroal' else 'HikariCP'}"

    return Section("pools", "Pools: HikariCP vs Agroal at the same size", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, *POOL_COLUMNS])


def _tail_sentence(hikari_p99: float, agroal_p99: float) -> str:
    """At the same wall the pools can still differ in how evenly they hand connections to waiters."""
    if not hikari_p99 or math.isnan(hikari_p99) or math.isnan(agroal_p99):
        return ""
    change = (agroal_p99 - hikari_p99) / hikari_p99
    if abs(change) < analyze.SPREAD_WARNING:
        return " Their tails match too."
    return (f" Agroal's p99 is {fmt(abs(change) * 100)}% {'shorter' if change < 0 else 'longer'}: the waiters "
            f"were served {'more' if change < 0 else 'less'} evenly at the same throughput.")

