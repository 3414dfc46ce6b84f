"""CPU-bound requests: virtual threads cannot make cores out of nothing — where the valid rows show the cores full."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis, Context
from vtlab.report import validrows
from vtlab.report.scenarios.common import (overlap_words, Label, Line, Section, chart_of, cpu_saturated, fmt, ordered,
                                           separated, table_of)

MISSING_SAMPLES = "missing-samples"


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    lines = ordered([a for a in analysed if a.row.workload == "cpu"])
    if not lines:
        return None
    trusted = validrows.valid(lines)
    # what a request costs, from the best valid row where there is one (the wall sentence says where there is none)
    best_line = max(trusted or lines, key=lambda a: a.measured.throughput_rps)
    verdict = [
        f"Pure computation: {_cost_words(best_line)}, no I/O. "
        + "; ".join(f"{mode_label(a.row)} {fmt(a.measured.throughput_rps, 1)} req/s ({a.bottleneck}, "
                    f"host CPU {fmt(a.measured.host_cpu_pct)}%{'' if a.valid else '; invalid'})" for a in lines) + ".",
    ]
    if not trusted:  # the sentence above told their figures, each marked invalid
        verdict.append("Neither the CPU's wall nor the thread model's effect is concluded: "
                       f"{validrows.none_valid('CPU-bound', lines, lambda a: mode_label(a.row))}.")
    else:
        verdict.append(_wall_sentence(trusted, mode_label, analysis.context))
    left_out = validrows.left_out(lines, lambda a: mode_label(a.row))
    if trusted and left_out:
        verdict.append(f"Concluded from the valid rows only{left_out}.")
    for a in (a for a in lines if a.row.thread_mode == "virtual" and MISSING_SAMPLES in a.flags):
        verdict.append(_starved_sentence(a, analysis.context))
    return Section("cpu", "CPU-bound work: computation only", verdict, table_of(lines, mode_label),
                   chart_of(lines, [mode_label(a.row) for a in lines]))


def _cost_words(a: Line) -> str:
    """What one request costs: the service's CPU where it was measured, else the time it took and its source."""
    if a.service_time_source == "app CPU per request":
        return f"{fmt(a.service_time_ms, 2)} ms of the service's CPU per request"
    return f"{fmt(a.service_time_ms, 2)} ms per request ({a.service_time_source}; the service's CPU was not measured)"


# The walls the analysis names ahead of the CPU that a full CPU does not explain.
NOT_THE_CPU = ("out-of-memory", "connection-limit", "stall", "load-generator", "client-pool", "failures", "overload",
               "gc", "vu-cap", "unexplained")


def _wall_sentence(lines: list[Line], mode_label: Label, context: Context) -> str:
    """The CPU named the wall only where every (valid) row shows it saturated and names it; the thread model's
    effect in any case."""
    rps = [a.measured.throughput_rps for a in lines]
    best, worst = max(rps), min(rps)
    best_line, worst_line = lines[rps.index(best)], lines[rps.index(worst)]
    spread = (best - worst) / best if best else math.nan
    full = [a for a in lines if cpu_saturated(a, context)]
    # a full CPU beside a wall that is not a resource the work needs (k6 taking the cores, GC pauses, a stall,
    # failures) is not the CPU's wall; threads busy computing on a pool sized to the cores are
    named = [a for a in full if a.bottleneck not in NOT_THE_CPU]
    if len(named) == len(lines):
        wall = (f"The CPU is the wall — cores ÷ CPU per request of every tier ≈ {fmt(best_line.ceilings.cpu, 0)} "
                "req/s — and neither more threads nor virtual ones can add work the cores do not have. ")
    elif full:
        wall = (f"The CPU was full in {', '.join(mode_label(a.row) for a in full)}"
                + (" only" if len(full) < len(lines) else "") + "; "
                + ", ".join(f"{mode_label(a.row)} {_stopped(a.bottleneck)} with the host CPU at "
                            f"{fmt(a.measured.host_cpu_pct)}%" for a in lines if a not in named) + ". ")
    else:
        wall = (f"No row saturated the CPU (host CPU at most {fmt(max(a.measured.host_cpu_pct for a in lines))}%): "
                "the cores were not the wall here — bottleneck "
                + ", ".join(f"{a.bottleneck} ({mode_label(a.row)})" for a in lines) + ". ")
    if len(lines) < 2:
        return wall.rstrip()
    if not separated(best_line, worst_line):
        platform = [a for a in lines if a.row.thread_mode == "platform"]
        threads = platform[0].row.tomcat_max_threads if platform else 0
        pool = "sized to the cores" if threads == context.host_cpus else f"of {fmt(threads)} threads"
        enough = f": a platform pool {pool} is enough" if platform and len(named) == len(lines) else ""
        return wall + (f"The thread model moves throughput by only {fmt(spread * 100)}%, within noise "
                       f"({overlap_words(best_line, worst_line)}){enough}.")
    why = (": at this CPU per request that is each model's own overhead per request, not concurrency"
           if len(named) == len(lines) else "")
    return wall + (f"The thread model still moves throughput by {fmt(spread * 100)}% "
                   f"(best: {mode_label(best_line.row)}){why}.")


def _starved_sentence(a: Line, context: Context) -> str:
    """Missing meter samples on a virtual row are the carriers busy computing only where the CPU was full."""
    if cpu_saturated(a, context):
        return ("The virtual row's meter samples went missing: a CPU-bound virtual thread keeps its carrier "
                "until it blocks or ends (no time slicing), so the actuator's scrapes — on virtual threads "
                "too — waited behind the computation. Platform threads are time-sliced by the OS.")
    return (f"The virtual row's meter samples went missing with the host CPU at {fmt(a.measured.host_cpu_pct)}%: "
            "not the carriers busy computing, which would have filled the cores.")


def _stopped(bottleneck: str) -> str:
    # a row the analysis saw no wall in stopped at nothing it could name: say so, not "stopped at unexplained"
    if bottleneck == "unexplained":
        return "stopped short of every ceiling (no wall seen)"
    return f"stopped at {bottleneck}"
