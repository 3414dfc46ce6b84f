"""Requests that only sleep: the thread wall in its purest form."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import (Label, Line, Section, chart_of, fmt, invalid_words, ordered, ratio_sentence,
                                           table_of)


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    lines = ordered([a for a in analysed if a.row.workload == "sleep"])
    if not lines:
        return None
    # a median more than the rig's figure_noise_share above the sleep is a wait for something besides the sleep
    waited = 1 + analysis.rig.figure_noise_share
    verdict = [(_platform_sentence(a, mode_label, waited) if a.row.thread_mode == "platform" else
                _virtual_sentence(a, mode_label, waited)) + invalid_words(a) for a in lines]
    verdict += ratio_sentence(lines)
    return Section("sleep", "Sleep: pure waiting, no database, no downstream", verdict,
                   table_of(lines, mode_label), chart_of(lines, [mode_label(a.row) for a in lines]))


def _times_sleep(a: Line) -> float:
    sleep_s = a.row.sleep_ms / 1000
    return a.measured.p50_ms / 1000 / sleep_s if sleep_s else math.nan


def _platform_sentence(a: Line, mode_label: Label, waited: float) -> str:
    """Tomcat's threads over the sleep; that users waited for one only where there were more of them and the
    median shows it."""
    sleep_s, users, threads = a.row.sleep_ms / 1000, a.row.concurrency, a.row.tomcat_max_threads
    times = _times_sleep(a)
    median = f"median {fmt(a.measured.p50_ms / 1000, 1)} s, {fmt(times, 1)}× the sleep"
    if math.isnan(times):
        waited = "the median was not measured"
    elif users <= threads:
        waited = f"every user has a thread ({fmt(users)} users, {fmt(threads)} threads: {median})"
    elif times >= waited:
        waited = f"so a user waits for a thread ({median})"
    else:
        waited = f"yet users did not wait for a thread ({median})"
    return (f"{mode_label(a.row)}: {fmt(a.measured.throughput_rps, 1)} req/s with {fmt(users)} users sleeping "
            f"{fmt(sleep_s, 1)} s each — Tomcat's {fmt(threads)} threads ÷ {fmt(sleep_s, 1)} s = "
            f"{fmt(threads / sleep_s if sleep_s else math.nan, 1)} req/s, {waited}.")


def _virtual_sentence(a: Line, mode_label: Label, waited: float) -> str:
    """A thread per user: the median is about the sleep itself — where it is."""
    sleep_s, users = a.row.sleep_ms / 1000, a.row.concurrency
    ceiling = f"users ÷ sleep = {fmt(users / sleep_s if sleep_s else math.nan, 1)} req/s"
    if math.isnan(_times_sleep(a)):
        return (f"{mode_label(a.row)}: {fmt(a.measured.throughput_rps, 1)} req/s, median not measured; every user "
                f"gets a thread, so the ceiling is {ceiling}.")
    if _times_sleep(a) < waited:
        return (f"{mode_label(a.row)}: {fmt(a.measured.throughput_rps, 1)} req/s, "
                f"median {fmt(a.measured.p50_ms / 1000, 2)} s "
                f"— about the sleep itself: every user gets a thread, so the ceiling is {ceiling}.")
    return (f"{mode_label(a.row)}: {fmt(a.measured.throughput_rps, 1)} req/s, median "
            f"{fmt(a.measured.p50_ms / 1000, 2)} s — {fmt(_times_sleep(a), 1)}× the sleep: requests waited beyond "
            f"their sleep though every user gets a thread ({a.bottleneck}; the users' ceiling is {ceiling}).")
