"""JEP 491: blocking inside synchronized vs under a native frame, and the pinned events JFR recorded."""

from __future__ import annotations

import math

from vtlab.results import cells
from vtlab.explain.analyze import JEP491_JDK
from vtlab.report.scenarios.jep491 import plain_but_jdk
from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import (Label, TABLE_COLUMNS, PINNED_COLUMN, Line, Section, fmt, table_of,
                                           chart_of, ordered)


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    # every JDK's rows: the section shows each row's JDK (the before/after comparison is jep491's)
    lines = ordered([a for a in analysed if a.row.workload == "order-summary" and plain_but_jdk(a.row)
                      and a.row.path_mode != "normal"])
    if not lines:
        return None
    lines = ordered([a for a in analysed if a.row.workload == "order-summary" and plain_but_jdk(a.row)
                      and a.row.concurrency in {b.row.concurrency for b in lines}
                      and a.row.conn_mode in {b.row.conn_mode for b in lines}])
    lines.sort(key=lambda a: (a.row.path_mode != "normal", a.row.path_mode, a.row.jdk, a.row.thread_mode))

    def events(path: str, mode: str) -> tuple[float, dict[str, int]]:
        # JEP 491's verdict is about the JDKs that have it; a JDK 21 row's pinning is told in the jep491 section
        chosen = [a for a in lines if a.row.path_mode == path and a.row.thread_mode == mode
                  and a.row.jdk >= JEP491_JDK]
        counts: dict[str, int] = {}
        for a in chosen:
            for reason, count in cells.parse_reasons(str(a.measured.pinned_reasons or "")).items():
                counts[reason] = counts.get(reason, 0) + count
        total = sum(a.measured.pinned_events for a in chosen) if chosen else math.nan
        return total, counts

    def reasons(counts: dict[str, int]) -> str:
        return ", ".join(f"“{reason}” × {count}" for reason, count in counts.items()) or "none"

    control, control_reasons = events("pinned-control", "virtual")
    monitor, monitor_reasons = events("synchronized", "virtual")
    verdict = _capture_verdict(control, reasons(control_reasons), monitor, reasons(monitor_reasons))
    by_path = {(a.row.path_mode, a.row.thread_mode): a for a in lines if a.row.jdk >= JEP491_JDK}
    pinned_v, normal_v = by_path.get(("pinned-control", "virtual")), by_path.get(("normal", "virtual"))
    if pinned_v and normal_v and normal_v.measured.throughput_rps > 0:
        verdict.append(
            f"What pinning costs: on the control path virtual threads serve {fmt(pinned_v.measured.throughput_rps, 1)} "
            f"req/s against {fmt(normal_v.measured.throughput_rps, 1)} on the normal path — each blocked request holds "
            f"one of the {fmt(pinned_v.measured.vt_parallelism)} carrier threads for the whole downstream call, so "
            f"the carriers are the pool: {fmt(pinned_v.measured.vt_parallelism)} ÷ "
            f"{fmt(pinned_v.service_time_ms)} ms = {fmt(pinned_v.ceilings.threads, 1)} req/s.")
    if pinned_v and "missing-samples" in pinned_v.flags:
        verdict.append("The control row's meter samples went missing as well: the service's actuator runs on "
                       "virtual threads too, and its scrapes waited for a carrier like every request did.")

    def variant(a: Line) -> str:
        return f"{a.row.path_mode} / {mode_label(a.row)} / JDK {a.row.jdk}"

    return Section("pinning", "Pinning: JEP 491 and its positive control", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, PINNED_COLUMN])


def _capture_verdict(control: float, control_reasons: str, monitor: float, monitor_reasons: str) -> list[str]:
    """Whether the capture works (the control pinned) and what the synchronized path recorded."""
    verdict = []
    if not math.isnan(control):
        if control > 0:
            verdict.append(f"The capture works: the pinned-control path (blocking under a native frame) recorded "
                           f"{fmt(control)} jdk.VirtualThreadPinned events on virtual threads ({control_reasons}).")
        else:
            verdict.append("The pinning capture is BROKEN: the pinned-control path recorded no jdk.VirtualThreadPinned "
                           "events, so the zeros elsewhere in this run prove nothing.")
    if not math.isnan(monitor):
        if monitor == 0:
            verdict.append("Blocking inside synchronized recorded 0 pinned events on virtual threads: JEP 491 "
                           "(JDK 24+) lets a virtual thread unmount while it holds a monitor."
                           + ("" if not math.isnan(control) else
                              " Without a pinned-control row this zero is unverified (add --path-mode "
                              "pinned-control)."))
        else:
            verdict.append(f"Blocking inside synchronized still pinned {fmt(monitor)} times ({monitor_reasons}): "
                           "this JDK predates JEP 491 or something else holds the carrier.")
    return verdict
