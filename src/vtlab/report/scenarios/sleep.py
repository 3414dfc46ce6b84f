"""Requests that only sleep: the thread wall in its purest form."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import Label, Section, fmt, table_of, chart_of, ordered, ratio_sentence


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    lines = ordered([a for a in analysed if a.row.workload == "sleep"])
    if not lines:
        return None
    verdict = []
    for a in lines:
        sleep_s = a.row.sleep_ms / 1000  # what the request does: sleep
        users = a.row.concurrency
        if a.row.thread_mode == "platform":
            threads = a.row.tomcat_max_threads
            verdict.append(
                f"{mode_label(a.row)}: {fmt(a.measured.throughput_rps, 1)} req/s with {fmt(users)} users sleeping "
                f"{fmt(sleep_s, 1)} s each — Tomcat's {fmt(threads)} threads ÷ {fmt(sleep_s, 1)} s = "
                f"{fmt(threads / sleep_s if sleep_s else math.nan, 1)} req/s, so a user waits for a thread "
                f"(median {fmt(a.measured.p50_ms / 1000, 1)} s, "
                f"{fmt(a.measured.p50_ms / 1000 / sleep_s, 1)}× the sleep).")
        else:
            verdict.append(
                f"{mode_label(a.row)}: {fmt(a.measured.throughput_rps, 1)} req/s, "
                f"median {fmt(a.measured.p50_ms / 1000, 2)} s "
                f"— about the sleep itself: every user gets a thread, so the ceiling is users ÷ sleep = "
                f"{fmt(users / sleep_s if sleep_s else math.nan, 1)} req/s.")
    verdict += ratio_sentence(lines)
    return Section("sleep", "Sleep: pure waiting, no database, no downstream", verdict,
                   table_of(lines, mode_label), chart_of(lines, [mode_label(a.row) for a in lines]))

