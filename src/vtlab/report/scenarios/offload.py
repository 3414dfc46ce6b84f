"""Request work handed to an explicit executor: a fixed platform pool vs a virtual thread per task."""

from __future__ import annotations


from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import Label, Line, Section, fmt, table_of, chart_of


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    lines = sorted((a for a in analysed if a.row.workload == "offload"),
                   key=lambda a: (a.row.thread_mode != "platform", a.row.offload_executor != "platform",
                                  a.row.concurrency))
    if not lines:
        return None

    def variant(a: Line) -> str:
        executor = (f"{fmt(a.row.offload_pool)} platform threads" if a.row.offload_executor == "platform"
                    else "virtual threads")
        return f"{mode_label(a.row)} Tomcat → {executor}"

    def cap_words(a: Line) -> str:
        caps = []
        if a.row.thread_mode == "platform":
            caps.append(f"Tomcat's {fmt(a.row.tomcat_max_threads)} threads")
        if a.row.offload_executor == "platform":
            caps.append(f"the {fmt(a.row.offload_pool)}-thread offload pool")
        return " and ".join(caps) if caps else "no thread pool (only users, connections and CPU)"

    verdict = [f"{variant(a)}: {fmt(a.measured.throughput_rps, 1)} req/s at {a.row.concurrency} users, p99 "
               f"{fmt(a.measured.p99_ms)} ms — capped by {cap_words(a)}, ceiling {fmt(a.ceiling_rps, 1)} "
               f"req/s ({a.bottleneck})." for a in lines]
    best = max(lines, key=lambda a: a.measured.throughput_rps)
    verdict.append(f"Every request thread waits for its offloaded task, so the narrowest pool on the path sets the "
                   f"wall: only {variant(best)} had none below the users ({fmt(best.measured.throughput_rps, 1)} "
                   "req/s). A virtual-thread executor behind platform Tomcat still stops at Tomcat's threads.")
    return Section("offload", "Explicit executors: offloading the work from the request thread", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]))

