"""HikariCP vs Agroal at the same size and timeout."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from vtlab import analyze
from vtlab.scenarios.common import (TABLE_COLUMNS, POOL_COLUMNS, Line, Section, fmt, num, table_of, chart_of,
                                    matching_baseline)


def section(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    agroal = [a for a in analysed if a.get("pool_impl") == "agroal"]
    if not agroal:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms")
    lines = sorted([*agroal, *matching_baseline(analysed, agroal, same)],
                   key=lambda a: (a["thread_mode"] != "platform", a.get("pool_impl") != "hikari",
                                  num(a, "concurrency")))
    verdict = []
    for mode in ("platform", "virtual"):
        by = {a.get("pool_impl") or "hikari": a for a in lines if a["thread_mode"] == mode}
        hikari, other = by.get("hikari"), by.get("agroal")
        if hikari and other:
            base_rps = num(hikari, "throughput_rps")
            ratio = num(other, "throughput_rps") / base_rps if base_rps else math.nan
            verdict.append(
                f"{mode}, {other.get('conn_mode')}, pool {other.get('hikari_pool')}, {other.get('concurrency')} users: "
                f"HikariCP {fmt(num(hikari, 'throughput_rps'), 1)} req/s (p99 {fmt(num(hikari, 'p99_ms'))} ms) vs "
                f"Agroal {fmt(num(other, 'throughput_rps'), 1)} req/s (p99 {fmt(num(other, 'p99_ms'))} ms): "
                + (f"within {analyze.SPREAD_WARNING * 100:.0f}% — the same wall"
                   if abs(ratio - 1) < analyze.SPREAD_WARNING else f"Agroal at {fmt(ratio, 2)}× HikariCP")
                + f"; bottleneck {hikari['bottleneck']} / {other['bottleneck']}."
                + _tail_sentence(num(hikari, "p99_ms"), num(other, "p99_ms")))
        elif other:
            verdict.append(f"{mode}: Agroal {fmt(num(other, 'throughput_rps'), 1)} req/s ({other['bottleneck']}); no "
                           "HikariCP row at the same settings to compare with.")
    pinned = [a for a in agroal if a["thread_mode"] == "virtual" and num(a, "pinned_events") > 0]
    verdict.append(f"Agroal pinned virtual threads {fmt(sum(num(a, 'pinned_events') for a in pinned))} times "
                   f"({', '.join(str(a.get('pinned_reasons')) for a in pinned)}): its borrow still blocks a carrier."
                   if pinned else "Neither pool pinned a virtual thread while borrowing (0 jdk.VirtualThreadPinned "
                   "events ≥ 20 ms in the Agroal rows).")

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {'Agroal' if a.get('pool_impl') == 'agroal' else 'HikariCP'}"

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

