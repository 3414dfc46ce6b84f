"""Tomcat against Jetty 12 and Netty at the same settings: the same endpoint, threads and pool on another embedded
server. A pair is compared only where both rows are valid."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis
from vtlab.report import validrows
from vtlab.report.scenarios.common import (Label, Line, MODEL_COLUMNS, Section, TABLE_COLUMNS, chart_of, fmt,
                                           invalid_mark, invalid_words, matching_baseline, overlap_words, rps_text,
                                           separated, table_of)

SERVER_COLUMNS = [("threads_cap", "request threads"), *MODEL_COLUMNS]
NAMES = {"tomcat": "Tomcat", "jetty": "Jetty", "netty": "Netty"}


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    chosen = [a for a in analysed if a.row.server != "tomcat"]
    if not chosen:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms", "load_model",
            "tomcat_max_threads")
    lines = sorted([*matching_baseline(analysed, chosen, same), *chosen],
                   key=lambda a: (a.row.thread_mode != "platform", a.row.concurrency, _order(a.row.server)))
    verdict = []
    for other in (a for a in lines if a.row.server != "tomcat"):
        tomcat = next((a for a in lines if a.row.server == "tomcat" and a.row.thread_mode == other.row.thread_mode
                       and a.row.concurrency == other.row.concurrency), None)
        verdict.append(_pair_sentence(tomcat, other))

    def variant(a: Line) -> str:
        return f"{mode_label(a.row)}, {NAMES.get(a.row.server, a.row.server)}"

    table = table_of(lines, mode_label, variant)
    for a, cells in zip(lines, table, strict=True):
        cells["threads_cap"] = _threads_words(a)
    others = [NAMES.get(server, server) for server in dict.fromkeys(a.row.server for a in chosen)]
    title = f"Servers: Tomcat vs {' and '.join(others)} at the same settings"
    return Section("servers", title, verdict, table,
                   chart_of(lines, [variant(a) for a in lines]), [*TABLE_COLUMNS, *SERVER_COLUMNS])


def _order(server: str) -> int:
    return list(NAMES).index(server) if server in NAMES else len(NAMES)


def _threads_words(a: Line) -> str:
    threads = a.measured.server_max_threads
    return "not reported" if math.isnan(threads) else "no cap" if threads < 0 else fmt(threads)


def _pair_sentence(tomcat: Line | None, other: Line) -> str:
    """One point: the other server beside Tomcat's row at the same settings, their difference said only beyond both
    rows' noise and only where both are valid, with each one's wall and what a request cost each in CPU."""
    name = NAMES.get(other.row.server, other.row.server)
    head = f"{other.row.thread_mode}, {other.row.concurrency} users: "
    told = (f"{name} {rps_text(other)} req/s{invalid_mark(other)} (p99 {fmt(other.measured.p99_ms)} ms, "
            f"{fmt(other.measured.app_cpu_ms_per_req, 2)} ms of CPU a request, {other.bottleneck})")
    if tomcat is None:
        return f"{head}{told}; no Tomcat row at the same settings to compare with.{invalid_words(other)}"
    base = (f"Tomcat {rps_text(tomcat)} req/s{invalid_mark(tomcat)} (p99 {fmt(tomcat.measured.p99_ms)} ms, "
            f"{fmt(tomcat.measured.app_cpu_ms_per_req, 2)} ms, {tomcat.bottleneck})")
    why = validrows.unanswered([("Tomcat", [tomcat]), (name, [other])])
    if why:
        compared = f"not compared — {why}"
    elif not separated(tomcat, other):
        compared = f"within noise of each other ({overlap_words(tomcat, other)})"
    elif not tomcat.measured.throughput_rps > 0:
        compared = "Tomcat served nothing at these settings"
    else:
        compared = (f"{name} at {fmt(other.measured.throughput_rps / tomcat.measured.throughput_rps, 2)}× Tomcat "
                    "(their intervals apart)")
    return f"{head}{base} against {told}: {compared}."
