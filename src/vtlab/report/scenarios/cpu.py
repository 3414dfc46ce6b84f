"""CPU-bound requests: virtual threads cannot make cores out of nothing."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import Label, Section, fmt, table_of, chart_of, ordered, separated


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    lines = ordered([a for a in analysed if a.row.workload == "cpu"])
    if not lines:
        return None
    rps = [a.measured.throughput_rps for a in lines]
    best, worst = max(rps), min(rps)
    best_line, worst_line = lines[rps.index(best)], lines[rps.index(worst)]
    spread = (best - worst) / best if best else math.nan
    cpu_ms = best_line.service_time_ms
    verdict = [
        f"Pure computation: {fmt(cpu_ms, 2)} ms of the service's CPU per request, no I/O. "
        + "; ".join(f"{mode_label(a.row)} {fmt(a.measured.throughput_rps, 1)} req/s ({a.bottleneck}, "
                    f"host CPU {fmt(a.measured.host_cpu_pct)}%)" for a in lines) + ".",
        f"The CPU is the wall — cores ÷ CPU per request of every tier ≈ {fmt(best_line.ceilings.cpu, 0)} "
        "req/s — and neither more threads nor virtual ones can add work the cores do not have. "
        + (f"The thread model moves throughput by only {fmt(spread * 100)}%, within noise (the rows' 95% "
           "intervals overlap): a platform pool sized to the cores is enough."
           if not separated(best_line, worst_line) else
           f"The thread model still moves throughput by {fmt(spread * 100)}% (best: {mode_label(best_line.row)}): "
           "at this CPU per request that is each model's own overhead per request, not concurrency."),
    ]
    starved = [a for a in lines if a.row.thread_mode == "virtual" and "missing-samples" in a.flags]
    if starved:
        verdict.append("The virtual row's meter samples went missing: a CPU-bound virtual thread keeps its carrier "
                       "until it blocks or ends (no time slicing), so the actuator's scrapes — on virtual threads "
                       "too — waited behind the computation. Platform threads are time-sliced by the OS.")
    return Section("cpu", "CPU-bound work: computation only", verdict, table_of(lines, mode_label),
                   chart_of(lines, [mode_label(a.row) for a in lines]))

