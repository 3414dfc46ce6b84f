"""A per-request context held in a ThreadLocal vs bound to a ScopedValue: memory and GC."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import (Label, TABLE_COLUMNS, MEMORY_COLUMNS, Line, Section, fmt, table_of, chart_of,
                                    matching_baseline)


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    carried = [a for a in analysed if a.row.context != "none"]
    if not carried:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms", "workload")
    order = {"none": 0, "threadlocal": 1, "scopedvalue": 2}
    lines = sorted([*carried, *matching_baseline(analysed, carried, same)],
                   key=lambda a: (a.row.thread_mode != "platform", a.row.concurrency,
                                  order.get(a.row.context, 3)))
    verdict = []
    # RSS and GC time have no between-run noise of their own measured: the rig's rule of thumb stands in
    noise = analysis.rig.figure_noise_share
    for mode in ("platform", "virtual"):
        by = {a.row.context: a for a in lines if a.row.thread_mode == mode}
        local, scoped = by.get("threadlocal"), by.get("scopedvalue")
        if not (local or scoped):
            continue
        kb = (local or scoped).row.context_kb
        parts = [f"{name} RSS {fmt(a.measured.rss_mb_max)} MB, heap max {fmt(a.measured.heap_used_mb_max)} MB, "
                 f"{fmt(a.measured.gc_pauses)} GC pauses ({fmt(a.measured.gc_pause_ms)} ms), "
                 f"{fmt(a.measured.throughput_rps, 1)} req/s"
                 for name, a in (("no context:", by.get("none")), ("ThreadLocal:", local), ("ScopedValue:", scoped))
                 if a]
        verdict.append(f"{mode} at {(local or scoped).row.concurrency} users with {fmt(kb)} KB per request — "
                       + "; ".join(parts) + ".")
        if local and scoped:
            verdict.append(_holders_sentence(local, scoped, by.get("none"), noise))
    if len({a.row.rep for a in lines}) == 1:
        verdict.append(f"One repetition: differences under {fmt(noise * 100)}% here are taken as run-to-run noise "
                       "(use --reps 3).")

    def variant(a: Line) -> str:
        return f"{mode_label(a.row)}, {a.row.context}"

    return Section("context", "Request context: ThreadLocal vs ScopedValue", verdict,
                   table_of(lines, mode_label, variant),
                   chart_of(lines, [variant(a) for a in lines], ("rss_mb_max", "gc_pause_ms")),
                   [*TABLE_COLUMNS, *MEMORY_COLUMNS])



def _gap(a: float, b: float) -> float:
    """How far apart two readings are, as a share of the larger."""
    return abs(a - b) / max(a, b) if max(a, b) else math.nan


def _holders_sentence(local: Line, scoped: Line, none: Line | None, noise: float) -> str:
    """ThreadLocal against ScopedValue; the holder said to matter less than the context's size only where the
    holders' RSS and GC time are within noise (`noise`, a share of the larger) and a row without a context shows the
    size."""
    rss_l, rss_s = local.measured.rss_mb_max, scoped.measured.rss_mb_max
    pause_l, pause_s = local.measured.gc_pause_ms, scoped.measured.gc_pause_ms
    rss_gap, pause_gap = _gap(rss_l, rss_s), _gap(pause_l, pause_s)
    compared = ((f"ThreadLocal and ScopedValue end within {fmt(rss_gap * 100)}% on RSS "
                 if rss_gap < noise else
                 f"RSS differs by {fmt(rss_gap * 100)}% ({'ScopedValue' if rss_s < rss_l else 'ThreadLocal'} lower) ")
                + f"and GC pause time {fmt(pause_l)} vs {fmt(pause_s)} ms")
    # GC time not measured leaves RSS alone to weigh the holders by
    close = rss_gap < noise and not pause_gap >= noise
    bare = none.measured.rss_mb_max if none else math.nan
    size = (min(rss_l, rss_s) - bare) / min(rss_l, rss_s) if min(rss_l, rss_s) else math.nan
    if math.isnan(rss_gap):
        told = "RSS was not measured, so nothing weighs the holders against each other"
    elif close and size >= noise:
        told = ("with one thread per request the context dies with its thread either way, so the holder matters "
                f"less than the context's size (without one: RSS {fmt(bare)} MB)")
    elif close:
        told = ("the holder made no difference beyond noise, and neither did the context's size "
                f"(without one: RSS {fmt(bare)} MB)" if none and not math.isnan(size) else
                "the holder made no difference beyond noise; no row without a context to weigh its size against")
    else:
        which, gap = ("GC pause time", pause_gap) if rss_gap < noise else ("RSS", rss_gap)
        told = f"the holders differ beyond noise ({which} {fmt(gap * 100)}% apart)"
    return (f"{compared}: {told}; ScopedValue's gains are a binding that cannot leak past the handler and one that "
            "forked subtasks inherit.")
