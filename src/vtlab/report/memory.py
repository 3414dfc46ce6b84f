"""Memory per waiting request (--memory-probe): what each request waiting in the service holds, per thread model,
fitted over the probed rows (explain.memory), beside the figures published for thread stacks."""

from __future__ import annotations

import math

from vtlab.explain import memory
from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import Label, Section, chart_of, fmt

# What is published of a thread's own memory: HotSpot reserves 1 MB of stack per platform thread on Linux x64 (its
# default ThreadStackSize, -Xss) and commits pages only as the stack grows into them; a parked virtual thread keeps
# its frames in the heap as stack chunks, a few KB for a shallow stack (JEP 444).
PUBLISHED_PLATFORM_STACK_RESERVED_KB = 1024
PUBLISHED = ("Published: HotSpot reserves 1,024 KB of stack per platform thread on Linux x64 (its default -Xss), "
             "committing pages only as the stack grows; a parked virtual thread keeps its frames in the heap as stack "
             "chunks, a few KB for a shallow stack (JEP 444).")
COLUMNS = [("variant", "variant"), ("in_flight", "requests in flight"), ("p99", "p99 ms"), ("heap", "live heap MB"),
           ("rss", "RSS MB"),
           ("threads", "platform threads"), ("stacks", "stacks reserved · committed MB"), ("top", "largest classes MB")]


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    fits = memory.per_request(analysis.verdicts)
    if not fits:
        return None
    verdict = [_fit_sentence(f, mode_label) for f in fits]
    verdict += _between_modes(fits)
    verdict.append(PUBLISHED)
    table = [{"variant": mode_label(v.row), "in_flight": fmt(v.measured.probe_in_flight), "p99": fmt(v.measured.p99_ms),
              "heap": fmt(v.measured.probe_heap_live_mb, 1), "rss": fmt(v.measured.probe_rss_mb),
              "threads": fmt(v.measured.probe_threads),
              "stacks": f"{fmt(v.measured.probe_stack_reserved_mb)} · {fmt(v.measured.probe_stack_committed_mb, 1)}",
              "top": v.measured.probe_top_classes.replace(";", ", ")}
             for f in fits for v in f.lines]
    probed = [v for f in fits for v in f.lines]
    chart = chart_of(probed, [f"{mode_label(v.row)} {fmt(v.measured.probe_in_flight)}" for v in probed],
                     ("probe_rss_mb", "probe_heap_live_mb"))
    return Section("memory", "Memory per waiting request", verdict, table, chart, COLUMNS)


def _kb(slope: memory.Slope) -> str:
    if math.isnan(slope.per_request_kb):
        return "not fitted (one load only)"
    interval = ("" if math.isnan(slope.half_kb) else
                f" (95% interval {fmt(slope.per_request_kb - slope.half_kb, 1)}–"
                f"{fmt(slope.per_request_kb + slope.half_kb, 1)})")
    return f"{fmt(slope.per_request_kb, 1)} KB{interval}"


def _fit_sentence(f: memory.PerRequest, mode_label: Label) -> str:
    loads = [v.measured.probe_in_flight for v in f.lines]
    where = (f"{len(loads)} rows at {fmt(min(loads))}–{fmt(max(loads))} requests in flight" if len(loads) > 1
             else f"one row at {fmt(loads[0])} requests in flight")
    virtual = f.thread_mode == "virtual"
    text = (f"{_label(f, mode_label)}: each waiting request held {_kb(f.heap)} of live heap"
            + (f" (of it {_kb(f.stack_chunks)} of virtual threads' stack chunks)" if virtual else
               f", {_kb(f.stacks)} of platform thread stack committed")
            + f" and {_kb(f.rss)} of RSS, fitted over {where}"
            + (" (two points: no interval)" if len(loads) == 2 else "") + ".")
    top = f.lines[-1].measured
    if not math.isnan(f.stack_reserved_kb):
        text += (f" Its {fmt(top.probe_threads)} platform threads at {fmt(top.probe_in_flight)} in flight"
                 + (" (carriers and the JVM's own: they do not grow with the requests)" if virtual else "")
                 + f" reserved {fmt(f.stack_reserved_kb)} KB of stack each and committed "
                 f"{fmt(f.stack_committed_kb, 1)} KB.")
    if top.probe_top_classes:
        text += f" Its live heap there was largest in: {top.probe_top_classes.replace(';', ', ')} (MB)."
    return text


def _label(f: memory.PerRequest, mode_label: Label) -> str:
    """The thread model as the rows say it; platform rows given a thread per user, as that."""
    labels = {mode_label(v.row) for v in f.lines}
    if len(labels) == 1:
        return labels.pop()
    if all(v.row.tomcat_max_threads == v.row.concurrency for v in f.lines):
        return f"{f.thread_mode} (a thread per user)"
    return f.thread_mode


def _held(f: memory.PerRequest) -> float:
    """What a waiting request holds: its live heap and its platform thread's committed stack."""
    return f.heap.per_request_kb + max(f.stacks.per_request_kb, 0.0)


def _between_modes(fits: list[memory.PerRequest]) -> list[str]:
    """Platform against virtual in each scenario where both were fitted: the heap and committed stack a waiting
    request holds."""
    told = []
    for platform in (f for f in fits if f.thread_mode == "platform"):
        virtual = next((f for f in fits if f.thread_mode == "virtual" and f.scenario == platform.scenario), None)
        if virtual is None:
            continue
        p, v = _held(platform), _held(virtual)
        if math.isnan(p) or math.isnan(v) or v <= 0:
            continue
        told.append(f"Per waiting request, live heap and committed stack together: platform threads {fmt(p, 1)} KB, "
                    f"virtual threads {fmt(v, 1)} KB — {fmt(p / v, 1)}× as much (the RSS slopes also carry the heap "
                    "the collector grew into).")
    return told
