"""HikariCP vs Agroal at the same size and timeout: compared only where both rows are valid."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis
from vtlab.report import validrows
from vtlab.report.scenarios.common import (overlap_words, Label, TABLE_COLUMNS, POOL_COLUMNS, Line, Section, fmt,
                                           table_of, chart_of, invalid_mark, matching_baseline, rps_text,
                                           separated)


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
        if hikari and other and hikari.measured.throughput_rps > 0:
            verdict.append(_pair_sentence(hikari, other, analysis.rig.figure_noise_share))
        elif other:
            verdict.append(f"{mode}: Agroal {fmt(other.measured.throughput_rps, 1)} req/s{invalid_mark(other)} "
                           f"({other.bottleneck}); no HikariCP row at the same settings to compare with.")
    verdict.append(_pinning_sentence(lines, analysis.rig.jfr_pinned_threshold_ms))

    def variant(a: Line) -> str:
        return f"{mode_label(a.row)}, {'Agroal' if a.row.pool_impl == 'agroal' else 'HikariCP'}"

    return Section("pools", "Pools: HikariCP vs Agroal at the same size", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, *POOL_COLUMNS])


def _pair_sentence(hikari: Line, other: Line, noise: float) -> str:
    """The two pools at one point: their difference said only beyond both rows' noise, and only where both are
    valid; otherwise why they are not compared."""
    head = (f"{other.row.thread_mode}, {other.row.conn_mode}, pool {other.row.hikari_pool}, {other.row.concurrency} "
            f"users: HikariCP {rps_text(hikari)} req/s{invalid_mark(hikari)} (p99 {fmt(hikari.measured.p99_ms)} ms) vs "
            f"Agroal {rps_text(other)} req/s{invalid_mark(other)} (p99 {fmt(other.measured.p99_ms)} ms): ")
    why = validrows.unanswered([("HikariCP", [hikari]), ("Agroal", [other])])
    if why:
        return head + f"not compared — {why}; bottleneck {hikari.bottleneck} / {other.bottleneck}."
    compared = (f"within noise of each other ({overlap_words(hikari, other)})"
                + (" — the same wall" if hikari.bottleneck == other.bottleneck else "")
                if not separated(hikari, other) else
                f"Agroal at {fmt(other.measured.throughput_rps / hikari.measured.throughput_rps, 2)}× HikariCP "
                "(their intervals apart)")
    return (head + compared + f"; bottleneck {hikari.bottleneck} / {other.bottleneck}."
            + _tail_sentence(hikari, other, noise))


def _tail_sentence(hikari: Line, agroal: Line, noise: float) -> str:
    """At the same wall the pools can still differ in how evenly they hand connections to waiters: said so only
    where the throughputs are within noise and both rows waited at the pool; p99s within `noise` (the rig's
    figure_noise_share) of each other match."""
    hikari_p99, agroal_p99 = hikari.measured.p99_ms, agroal.measured.p99_ms
    if not hikari_p99 or math.isnan(hikari_p99) or math.isnan(agroal_p99):
        return ""
    same = not separated(hikari, agroal)
    change = (agroal_p99 - hikari_p99) / hikari_p99
    if abs(change) < noise:
        return " Their tails match too." if same else " Their tails match."
    told = f" Agroal's p99 is {fmt(abs(change) * 100)}% {'shorter' if change < 0 else 'longer'}"
    if same and hikari.bottleneck == agroal.bottleneck == "connection-pool":
        return told + (f": the waiters were served {'more' if change < 0 else 'less'} evenly at the same "
                       "throughput.")
    return told + "."


def _pinning_sentence(lines: list[Line], threshold_ms: int) -> str:
    """What JFR saw each pool pin on virtual threads; "neither" only where both pools' rows were recorded."""
    def recorded(impl: str) -> list[Line]:
        return [a for a in lines if a.row.thread_mode == "virtual" and a.row.pool_impl == impl
                and not math.isnan(a.measured.pinned_events)]
    agroal, hikari = recorded("agroal"), recorded("hikari")
    if not agroal:
        return "Pinning while borrowing was not measured: no Agroal row on virtual threads with a JFR count."
    events = {impl: sum(a.measured.pinned_events for a in rows) for impl, rows in (("agroal", agroal),
                                                                                   ("hikari", hikari))}
    if events["agroal"] > 0:
        pinned = [a for a in agroal if a.measured.pinned_events > 0]
        told = (f"Agroal pinned virtual threads {fmt(events['agroal'])} times "
                f"({', '.join(a.measured.pinned_reasons for a in pinned)})")
        if hikari and events["hikari"] == 0:
            return told + " where HikariCP at the same settings pinned none: its borrow still blocks a carrier."
        if hikari:
            return told + f", HikariCP {fmt(events['hikari'])} times at the same settings: not Agroal's borrow alone."
        return told + "; no HikariCP row on virtual threads to tell whether Agroal's borrow is the cause."
    if hikari and events["hikari"] == 0:
        return ("Neither pool pinned a virtual thread while borrowing (0 jdk.VirtualThreadPinned "
                f"events ≥ {threshold_ms} ms in the Agroal and HikariCP rows).")
    if hikari:
        return (f"Agroal pinned no virtual thread while borrowing; HikariCP pinned {fmt(events['hikari'])} times "
                "at the same settings.")
    return (f"Agroal pinned no virtual thread while borrowing (0 jdk.VirtualThreadPinned events ≥ {threshold_ms} "
            "ms); no HikariCP row on virtual threads to compare with.")
