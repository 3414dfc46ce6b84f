"""JEP 491 before and after: the same service's synchronized paths on a JDK without it (21) and with it (25).

Before JDK 24 a virtual thread blocked inside `synchronized` keeps its carrier: with every request pinned the
carriers are the pool (carriers ÷ call time), or — when the blocked call's completion itself needs a carrier —
nothing completes at all (the stall the rig names, with the thread dump it took). From JDK 24 on the thread
unmounts, JFR records no jdk.VirtualThreadPinned, and the path serves like the normal one.
"""

from __future__ import annotations

import math

from vtlab.explain import analyze
from vtlab.core import dimensions
from vtlab.results import cells
from vtlab.report.scenarios.common import (PINNED_COLUMN, TABLE_COLUMNS, Label, Line, Section, against, chart_of, fmt,
                                           rps_text, separated, table_of)
from vtlab.explain.model import Analysis

PATHS = ("normal", "synchronized", "synchronized-platform-http")


def plain_but_jdk(row: object) -> bool:
    """A row of the main story apart from its JDK (the one variant this section is about)."""
    return not dimensions.is_variant(dimensions.parse({**dimensions.values(row), "jdk": "25"}))


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    lines = [a for a in analysis.lines if not a.failed and a.row.workload == "order-summary"
             and a.row.thread_mode == "virtual" and a.row.path_mode in PATHS and plain_but_jdk(a.row)]
    jdks = sorted({a.row.jdk for a in lines})
    if not any(jdk < analyze.JEP491_JDK for jdk in jdks) or not any(a.row.path_mode != "normal" for a in lines):
        return None
    lines.sort(key=lambda a: (PATHS.index(a.row.path_mode), a.row.jdk, a.row.concurrency, a.row.rep))
    margin = analysis.rig.ceiling_exceeded_margin
    verdict = [_jdk_sentence(jdk, [a for a in lines if a.row.jdk == jdk], margin) for jdk in jdks]
    verdict += [_stall_sentence(a) for a in lines if a.measured.stall]

    def variant(a: Line) -> str:
        return f"{a.row.path_mode} · JDK {a.measured.jdk_version or a.row.jdk}"

    return Section("jep491", "JEP 491: before and after", [v for v in verdict if v],
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, PINNED_COLUMN])


def _reasons(a: Line) -> str:
    counts = cells.parse_reasons(a.measured.pinned_reasons)
    return ", ".join(f"“{reason}” × {count}" for reason, count in counts.items()) or "none"


def _jdk_sentence(jdk: int, lines: list[Line], margin: float) -> str:
    """What one JDK did on the synchronized paths, against its own normal path."""
    normal = next((a for a in lines if a.row.path_mode == "normal"), None)
    parts = []
    for a in (a for a in lines if a.row.path_mode != "normal"):
        events = a.measured.pinned_events
        pinned = ("no pinned-event count (the recording was unreadable)" if math.isnan(events)
                  else f"{fmt(events)} jdk.VirtualThreadPinned events ({_reasons(a)})" if events
                  else "0 jdk.VirtualThreadPinned events")
        served = f"{rps_text(a)} req/s, p99 {fmt(a.measured.p99_ms)} ms"
        if normal is not None and normal.measured.throughput_rps > 0:
            ratio = a.measured.throughput_rps / normal.measured.throughput_rps
            served += (f" ({fmt(ratio, 2)}× the normal path's {rps_text(normal)})" if separated(a, normal)
                       else f" (the normal path's {rps_text(normal)}, within noise)")
        if analyze.pins_every_request(a.row) and not math.isinf(a.ceilings.threads):
            served += _carriers_words(a, margin)
        if a.measured.stall:
            served += "; STALLED (see below)"
        parts.append(f"{a.row.path_mode}: {pinned}, {served}")
    before = "before JEP 491" if jdk < analyze.JEP491_JDK else "with JEP 491"
    version = next((a.measured.jdk_version for a in lines if a.measured.jdk_version), str(jdk))
    return f"JDK {version} ({before}) — " + "; ".join(parts) + "." if parts else ""


def _carriers_words(a: Line, margin: float) -> str:
    """Every request pins a carrier on this path and JDK by design; the carriers called the pool only where JFR
    recorded the pinning (or could not tell) and the row did not serve more than the carriers allow."""
    carriers = fmt(a.measured.vt_parallelism)
    allow = f"{carriers} ÷ {fmt(a.service_time_ms)} ms = {fmt(a.ceilings.threads, 1)} req/s"
    if against(a, a.ceilings.threads, margin) == "above":
        return (f"; every request should pin one of {carriers} carriers for the call ({allow}), yet the row served "
                f"{fmt(a.measured.throughput_rps / a.ceilings.threads, 1)}× that: not every request kept its carrier")
    if a.measured.pinned_events == 0:
        return (f"; every request should pin one of {carriers} carriers for the call ({allow}), yet JFR recorded no "
                "pinned event: the carriers are not shown to be the pool")
    return f"; every request pins a carrier for the call, so the {carriers} carriers are the pool: ceiling {allow}"


def _stall_sentence(a: Line) -> str:
    dump = f" Thread dump (JSON): {a.measured.thread_dump}." if a.measured.thread_dump else ""
    deadlock = ""
    if a.row.path_mode == "synchronized" and a.row.jdk < analyze.JEP491_JDK:
        carriers = a.measured.vt_parallelism
        # the deadlock needs every carrier pinned: at least as many users as carriers
        deadlock = (" This is the JDK 21 pinning deadlock: every carrier is pinned inside synchronized waiting for a "
                    "response whose completion needs a carrier too, so nothing completes until a timeout frees one."
                    if a.row.concurrency >= carriers else
                    f" Fewer users ({a.row.concurrency}) than carriers ({fmt(carriers)}): not every carrier could be "
                    "pinned, so this is not the pinning deadlock."
                    if not math.isnan(carriers) else
                    " The carriers were not counted, so whether every one was pinned (the JDK 21 pinning deadlock) "
                    "is not measured.")
    return f"Stall — {a.row.path_mode} on JDK {a.row.jdk}: {a.measured.stall}.{deadlock}{dump}"
