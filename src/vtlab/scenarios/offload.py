"""Request work handed to an explicit executor: a fixed platform pool vs a virtual thread per task."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vtlab import analyze
from vtlab.scenarios.common import Line, Section, fmt, num, table_of, chart_of


def section(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = sorted((a for a in analysed if analyze.workload(a) == "offload"),
                   key=lambda a: (a["thread_mode"] != "platform", a.get("offload_executor") != "platform",
                                  num(a, "concurrency")))
    if not lines:
        return None

    def variant(a: Line) -> str:
        executor = (f"{fmt(num(a, 'offload_pool'))} platform threads" if a.get("offload_executor") == "platform"
                    else "virtual threads")
        return f"{mode_label(a)} Tomcat → {executor}"

    def cap_words(a: Line) -> str:
        caps = []
        if a["thread_mode"] == "platform":
            caps.append(f"Tomcat's {fmt(num(a, 'tomcat_max_threads'))} threads")
        if a.get("offload_executor") == "platform":
            caps.append(f"the {fmt(num(a, 'offload_pool'))}-thread offload pool")
        return " and ".join(caps) if caps else "no thread pool (only users, connections and CPU)"

    verdict = [f"{variant(a)}: {fmt(num(a, 'throughput_rps'), 1)} req/s at {a['concurrency']} users, p99 "
               f"{fmt(num(a, 'p99_ms'))} ms — capped by {cap_words(a)}, ceiling {fmt(num(a, 'ceiling_rps'), 1)} "
               f"req/s ({a['bottleneck']})." for a in lines]
    best = max(lines, key=lambda a: num(a, "throughput_rps"))
    verdict.append(f"Every request thread waits for its offloaded task, so the narrowest pool on the path sets the "
                   f"wall: only {variant(best)} had none below the users ({fmt(num(best, 'throughput_rps'), 1)} "
                   "req/s). A virtual-thread executor behind platform Tomcat still stops at Tomcat's threads.")
    return Section("offload", "Explicit executors: offloading the work from the request thread", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]))

