"""CPU-bound requests: virtual threads cannot make cores out of nothing."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from vtlab import analyze
from vtlab.scenarios.common import Line, Section, fmt, num, table_of, chart_of, ordered


def section(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = ordered([a for a in analysed if analyze.workload(a) == "cpu"])
    if not lines:
        return None
    rps = [num(a, "throughput_rps") for a in lines]
    best, worst = max(rps), min(rps)
    best_line = lines[rps.index(best)]
    spread = (best - worst) / best if best else math.nan
    cpu_ms = num(best_line, "service_time_ms")
    verdict = [
        f"Pure computation: {fmt(cpu_ms, 2)} ms of the service's CPU per request, no I/O. "
        + "; ".join(f"{mode_label(a)} {fmt(num(a, 'throughput_rps'), 1)} req/s ({a['bottleneck']}, "
                    f"host CPU {fmt(num(a, 'host_cpu_pct'))}%)" for a in lines) + ".",
        f"The CPU is the wall — cores ÷ CPU per request of every tier ≈ {fmt(num(best_line, 'ceiling_cpu_rps'), 0)} "
        "req/s — and neither more threads nor virtual ones can add work the cores do not have. "
        + (f"The thread model moves throughput by only {fmt(spread * 100)}%: a platform pool sized to the "
           "cores is enough." if spread < analyze.SPREAD_WARNING else
           f"The thread model still moves throughput by {fmt(spread * 100)}% (best: {mode_label(best_line)}): "
           "at this CPU per request that is each model's own overhead per request, not concurrency."),
    ]
    starved = [a for a in lines if a["thread_mode"] == "virtual" and "missing-samples" in str(a.get("flags"))]
    if starved:
        verdict.append("The virtual row's meter samples went missing: a CPU-bound virtual thread keeps its carrier "
                       "until it blocks or ends (no time slicing), so the actuator's scrapes — on virtual threads "
                       "too — waited behind the computation. Platform threads are time-sliced by the OS.")
    return Section("cpu", "CPU-bound work: computation only", verdict, table_of(lines, mode_label),
                   chart_of(lines, [mode_label(a) for a in lines]))

