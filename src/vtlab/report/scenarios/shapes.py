"""Load shapes: a spike and its recovery, a staircase and its knee, a soak and its drift — per thread mode."""

from __future__ import annotations

import math

from vtlab.core.constants import Constants
from vtlab.report.scenarios.common import Label, Line, Section, fmt, table_of, chart_of
from vtlab.explain.model import Analysis, Measured

SHAPE_COLUMNS = [("variant", "variant"), ("load", "load"), ("rps", "req/s over the hold"), ("p99", "p99 ms"),
                 ("shape", "what the shape measured")]


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    lines = sorted((a for a in analysis.lines if a.row.shape != "steady"),
                   key=lambda a: (a.row.shape, a.row.thread_mode != "platform", a.row.concurrency))
    if not lines:
        return None
    verdict = [_sentence(a, mode_label, analysis.rig) for a in lines]
    spikes = {a.row.thread_mode: a for a in lines if a.row.shape == "spike"}
    if "platform" in spikes and "virtual" in spikes:
        p, v = spikes["platform"].measured, spikes["virtual"].measured
        verdict.append(f"Through the same spike, platform threads failed {fmt(p.spike_failed)} requests and "
                       f"their p99 reached {fmt(p.spike_p99_ms)} ms; virtual threads failed {fmt(v.spike_failed)} "
                       f"and reached {fmt(v.spike_p99_ms)} ms — "
                       + _spike_words(p, v, analysis.rig.spike_worse_factor))
    table = table_of(lines, mode_label, lambda a: f"{mode_label(a.row)}, {a.row.shape}")
    for line, a in zip(table, lines, strict=True):
        line["shape"] = _figures(a)
    return Section("shapes", "Load shapes: spike, steps, soak", verdict, table,
                   chart_of(lines, [f"{mode_label(a.row)}, {a.row.shape}" for a in lines]), SHAPE_COLUMNS)


def _worse(p99: float, other_p99: float, factor: float) -> bool:
    """A p99 more than `factor` (the rig's spike_worse_factor) times another: worse, beyond a spike's own noise."""
    return not math.isnan(p99) and not math.isnan(other_p99) and p99 > factor * other_p99


def _absorbed(m: Measured, factor: float) -> bool:
    """Through the spike without a failure and without its p99 growing beyond `factor` times the one before."""
    return (m.spike_failed == 0 and not _worse(m.spike_p99_ms, m.base_p99_ms, factor)
            and not math.isnan(m.spike_p99_ms))


def _spike_words(p: Measured, v: Measured, factor: float) -> str:
    if _worse(p.spike_p99_ms, v.spike_p99_ms, factor):
        return ("the platform pool queued the burst that virtual threads absorbed." if _absorbed(v, factor) else
                f"platform threads fared worse, but virtual threads did not absorb it either (p99 "
                f"{fmt(v.base_p99_ms)} ms before, {fmt(v.spike_failed)} failed).")
    if _worse(v.spike_p99_ms, p.spike_p99_ms, factor):
        return "virtual threads fared worse."
    return "neither absorbed it better."


def _recovery(m: Measured, rig: Constants) -> str:
    if math.isnan(m.base_p99_ms):
        return "recovery not measured (no p99 before the spike)"
    return "p99 had not recovered when the hold ended" if math.isnan(m.recovery_s) else \
        f"p99 back within {rig.spike_recovered_p99_ratio:g}× of before {fmt(m.recovery_s)} s after the spike ended"


def _sentence(a: Line, mode_label: Label, rig: Constants) -> str:
    m, who = a.measured, mode_label(a.row)
    if a.row.shape == "spike":
        return (f"{who}, spike: p99 {fmt(m.base_p99_ms)} ms before, {fmt(m.spike_p99_ms)} ms during it, "
                f"{fmt(m.spike_failed)} requests failed during it; {_recovery(m, rig)}.")
    if a.row.shape == "steps":
        return (f"{who}, steps (load=req/s: {m.steps_rps.replace(';', ', ')}): {_knee_words(m)}; "
                f"p99 per step {m.steps_p99_ms.replace(';', ', ')} ms.")
    drift, steady = m.rss_drift_mb_per_min, rig.soak_steady_rss_mb_per_min
    told = ("RSS drift not measured" if math.isnan(drift) else
            f"{'steady' if abs(drift) < steady else 'drifting'} (±{steady:g} MB/min)")
    return (f"{who}, soak: RSS {_signed(m.rss_drift_mb_per_min)} MB per minute, JVM threads "
            f"{_signed(m.threads_drift_per_min)} per minute, {fmt(m.gc_pause_ms_per_min)} ms of GC pauses per "
            f"minute over the hold — {told}.")


def _knee_words(m: Measured) -> str:
    """The knee where throughput stopped growing; none where it grew through the last step."""
    loads = [float(step.split("=")[0]) for step in m.steps_rps.split(";") if "=" in step]
    if math.isnan(m.knee_load):
        return "the knee was not measured"
    if loads and m.knee_load >= max(loads):
        return (f"throughput kept growing with the load through the last step, {fmt(max(loads))}: no knee within "
                "the steps")
    return f"throughput kept growing with the load up to {fmt(m.knee_load)} — the knee"


def _signed(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:+.1f}"


def _figures(a: Line) -> str:
    m = a.measured
    if a.row.shape == "spike":
        return (f"p99 {fmt(m.base_p99_ms)} → {fmt(m.spike_p99_ms)} ms, {fmt(m.spike_failed)} failed, "
                + ("no recovery" if math.isnan(m.recovery_s) else f"recovered in {fmt(m.recovery_s)} s"))
    if a.row.shape == "steps":
        return f"knee at {fmt(m.knee_load)}"
    return f"RSS {_signed(m.rss_drift_mb_per_min)} MB/min, threads {_signed(m.threads_drift_per_min)}/min"
