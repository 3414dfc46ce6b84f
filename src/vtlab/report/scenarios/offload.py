"""Request work handed to an explicit executor: a fixed platform pool vs a virtual thread per task."""

from __future__ import annotations

import math
from collections.abc import Callable

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
        # a pool caps the row only with more users than its threads
        pools = []
        if a.row.thread_mode == "platform":
            pools.append((a.row.tomcat_max_threads, f"Tomcat's {fmt(a.row.tomcat_max_threads)} threads"))
        if a.row.offload_executor == "platform":
            pools.append((a.row.offload_pool, f"the {fmt(a.row.offload_pool)}-thread offload pool"))
        caps = [words for size, words in pools if size < a.row.concurrency]
        if caps:
            return " and ".join(caps)
        if pools:
            return f"none of its pools ({' and '.join(words for _, words in pools)}: no fewer threads than users)"
        return "no thread pool (only users, connections and CPU)"

    verdict = [f"{variant(a)}: {fmt(a.measured.throughput_rps, 1)} req/s at {a.row.concurrency} users, p99 "
               f"{fmt(a.measured.p99_ms)} ms — capped by {cap_words(a)}, ceiling {fmt(a.ceiling_rps, 1)} "
               f"req/s ({a.bottleneck})." for a in lines]
    verdict += _wall_sentences(lines, variant)
    return Section("offload", "Explicit executors: offloading the work from the request thread", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]))



def _narrowest_pool(a: Line) -> float:
    """The fewest threads on the request's path: Tomcat's (platform) and the offload pool's (a platform executor)."""
    pools = ([a.row.tomcat_max_threads] if a.row.thread_mode == "platform" else []) + (
        [a.row.offload_pool] if a.row.offload_executor == "platform" else [])
    return min(pools, default=math.inf)


def _wall_sentences(lines: list[Line], variant: Callable[[Line], str]) -> list[str]:
    """The narrowest pool named the wall only where the rows with a pool below their users stopped at it."""
    capped = [a for a in lines if _narrowest_pool(a) < a.row.concurrency]
    free = [a for a in lines if a not in capped]
    stopped = [a for a in capped if a.bottleneck == "thread-pool"]
    if capped and len(stopped) == len(capped):
        wall = ("Every request thread waits for its offloaded task, so the narrowest pool on the path sets the "
                "wall: each row with a pool below its users stopped at it ("
                + "; ".join(variant(a) for a in capped) + ")")
    elif capped:
        wall = ("Every request thread waits for its offloaded task, yet not every row with a pool below its users "
                "stopped at it: " + "; ".join(f"{variant(a)} ({a.bottleneck})" for a in capped if a not in stopped))
    else:
        wall = "No row had a pool below its users"
    if free:
        served = ", ".join(fmt(a.measured.throughput_rps, 1) for a in free) + " req/s"
        wall += (f"; only {', '.join(variant(a) for a in free)} had none below the users ({served})" if capped else
                 f" ({', '.join(variant(a) for a in free)}: {served})")
    sentences = [wall + "."]
    # platform Tomcat handing its work to virtual threads: the request thread still waits, Tomcat's pool stays
    for a in (a for a in lines if a.row.thread_mode == "platform" and a.row.offload_executor == "virtual"):
        if a.row.tomcat_max_threads >= a.row.concurrency:
            continue  # fewer users than Tomcat's threads: its pool could not show
        sentences.append(f"A virtual-thread executor behind platform Tomcat still stops at Tomcat's threads "
                         f"({variant(a)}: {fmt(a.measured.throughput_rps, 1)} req/s, thread-pool)."
                         if a.bottleneck == "thread-pool" else
                         f"A virtual-thread executor behind platform Tomcat met {a.bottleneck}, not Tomcat's "
                         f"{fmt(a.row.tomcat_max_threads)} threads ({variant(a)}: "
                         f"{fmt(a.measured.throughput_rps, 1)} req/s).")
    return sentences
