"""JEP 491: blocking inside synchronized vs under a native frame, and the pinned events JFR recorded."""

from __future__ import annotations

import math

from vtlab.results import cells
from vtlab.explain.analyze import JEP491_JDK
from vtlab.report.scenarios.jep491 import plain_but_jdk
from vtlab.explain.model import Analysis
from vtlab.explain.validity import METERS_STARVED
from vtlab.report.scenarios.common import (Label, TABLE_COLUMNS, PINNED_COLUMN, Line, Section, against, fmt,
                                           table_of, chart_of, ordered)


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
            for reason, count in cells.parse_reasons(a.measured.pinned_reasons).items():
                counts[reason] = counts.get(reason, 0) + count
        total = sum(a.measured.pinned_events for a in chosen) if chosen else math.nan
        return total, counts

    def reasons(counts: dict[str, int]) -> str:
        return ", ".join(f"“{reason}” × {count}" for reason, count in counts.items()) or "none"

    control, control_reasons = events("pinned-control", "virtual")
    monitor, monitor_reasons = events("synchronized", "virtual")
    by_path = {(a.row.path_mode, a.row.thread_mode): a for a in lines if a.row.jdk >= JEP491_JDK}
    pinned_v, normal_v = by_path.get(("pinned-control", "virtual")), by_path.get(("normal", "virtual"))
    verdict = _capture_verdict(control, reasons(control_reasons), monitor, reasons(monitor_reasons),
                               control_row=pinned_v is not None)
    if pinned_v and normal_v and normal_v.measured.throughput_rps > 0:
        verdict.append(_cost_sentence(pinned_v, normal_v, control, analysis.rig.ceiling_exceeded_margin))
    if pinned_v and METERS_STARVED in pinned_v.flags:
        verdict.append("The control row's meter samples went short as well: the service's actuator runs on "
                       "virtual threads too, and its scrapes waited for a carrier like every request did (said, not "
                       "a reason to set the row apart: its CPU readings and k6's figures are whole).")
    elif pinned_v and "missing-samples" in pinned_v.flags:
        verdict.append("The control row's meter samples went missing as well: the service's actuator runs on "
                       "virtual threads too, and its scrapes waited for a carrier like every request did."
                       if control > 0 else
                       "The control row's meter samples went missing, with no pinned carrier recorded: not "
                       "explained by pinning.")

    def variant(a: Line) -> str:
        return f"{a.row.path_mode} / {mode_label(a.row)} / JDK {a.row.jdk}"

    return Section("pinning", "Pinning: JEP 491 and its positive control", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, PINNED_COLUMN])


def _cost_sentence(pinned: Line, normal: Line, control: float, margin: float) -> str:
    """The control path against the normal one; the carriers called the pool only where the control pinned and its
    throughput stands at what the carriers allow."""
    cost = (f"What pinning costs: on the control path virtual threads serve {fmt(pinned.measured.throughput_rps, 1)} "
            f"req/s against {fmt(normal.measured.throughput_rps, 1)} on the normal path")
    carriers, ceiling = fmt(pinned.measured.vt_parallelism), pinned.ceilings.threads
    allow = f"{carriers} ÷ {fmt(pinned.service_time_ms)} ms = {fmt(ceiling, 1)} req/s"
    standing = against(pinned, ceiling, margin)
    if control > 0 and standing == "at":
        return (f"{cost} — each blocked request holds one of the {carriers} carrier threads for the whole downstream "
                f"call, so the carriers are the pool: {allow}.")
    if standing == "above":
        return (f"{cost}; {carriers} carriers held for the whole call would allow {allow}, and the row served "
                f"{fmt(pinned.measured.throughput_rps / ceiling, 1)}× that: not every request kept its carrier for "
                "the call.")
    if standing == "below":
        return (f"{cost}; {carriers} carriers held for the whole call would allow {allow}, and the row stayed below "
                f"that ({pinned.bottleneck}).")
    if standing == "at":
        recorded = "0 pinned events" if control == 0 else "no pinned-event count"
        return (f"{cost}; its throughput is what {allow} allows, but with {recorded} the carriers are not shown "
                "to be the pool.")
    return f"{cost}; the carriers' ceiling was not computed."


def _capture_verdict(control: float, control_reasons: str, monitor: float, monitor_reasons: str,
                     control_row: bool = False) -> list[str]:
    """Whether the capture works (the control pinned) and what the synchronized path recorded."""
    verdict = []
    if math.isnan(control) and control_row:
        verdict.append("The pinned-control row has no pinned-event count (its recording was unreadable): whether the "
                       "capture works is not measured.")
    if not math.isnan(control):
        if control > 0:
            verdict.append(f"The capture works: the pinned-control path (blocking under a native frame) recorded "
                           f"{fmt(control)} jdk.VirtualThreadPinned events on virtual threads ({control_reasons}).")
        else:
            verdict.append("The pinning capture is BROKEN: the pinned-control path recorded no jdk.VirtualThreadPinned "
                           "events, so the zeros elsewhere in this run prove nothing.")
    if not math.isnan(monitor):
        if monitor == 0 and control == 0:
            verdict.append("Blocking inside synchronized recorded 0 pinned events on virtual threads, which proves "
                           "nothing while the capture is broken.")
        elif monitor == 0:
            verdict.append("Blocking inside synchronized recorded 0 pinned events on virtual threads: JEP 491 "
                           "(JDK 24+) lets a virtual thread unmount while it holds a monitor."
                           + ("" if not math.isnan(control) else
                              " Without a pinned-control count this zero is unverified." if control_row else
                              " Without a pinned-control row this zero is unverified (add --path-mode "
                              "pinned-control)."))
        else:
            # only rows on a JDK with JEP 491 are counted here: what pinned them is in the reasons
            verdict.append(f"Blocking inside synchronized still pinned {fmt(monitor)} times ({monitor_reasons}) on a "
                           "JDK with JEP 491, which lets a virtual thread unmount while it holds a monitor: the "
                           "reasons say what held the carrier.")
    return verdict
