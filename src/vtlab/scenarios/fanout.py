"""One lookup and two downstream calls per request: one after the other vs all at once (StructuredTaskScope)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from vtlab import analyze
from vtlab.scenarios.common import Line, Section, fmt, num, table_of, chart_of


def section(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = sorted((a for a in analysed if analyze.workload(a) == "fanout"),
                   key=lambda a: (a["thread_mode"] != "platform", a.get("fanout") != "sequential",
                                  num(a, "concurrency")))
    if not lines:
        return None
    call_ms = num(lines[0], "stub_delay_ms") + 2 * num(lines[0], "downstream_latency_ms", 0)
    verdict = [f"Each request reads the order and makes two downstream calls of {fmt(call_ms)} ms: one after the "
               f"other that is ≥ {fmt(2 * call_ms)} ms (the sum), all at once it can be "
               f"{fmt(call_ms)} ms (the slowest)."]
    def in_service_ms(a: Line) -> float:
        # More users than threads: the median also counts the wait for a thread; the time in service is
        # the analysis' service time (from a row of the same fan-out that did not queue).
        return num(a, "service_time_ms") if analyze.queued(a) else num(a, "p50_ms")

    for mode in ("platform", "virtual"):
        by = {a.get("fanout"): a for a in lines if a["thread_mode"] == mode}
        seq, par = by.get("sequential"), by.get("structured")
        if seq and par:
            par_ms = in_service_ms(par)
            queue = (f" (their medians, {fmt(num(seq, 'p50_ms'))} and {fmt(num(par, 'p50_ms'))} ms, add the wait for "
                     f"one of {fmt(num(par, 'tomcat_max_threads'))} threads)" if analyze.queued(par) else "")
            verdict.append(
                f"{mode}: {fmt(in_service_ms(seq))} ms in service sequential vs {fmt(par_ms)} ms structured{queue}, "
                f"{fmt(par_ms / call_ms if call_ms else math.nan, 2)}× the slowest call — "
                + ("latency approaches the slowest call, not the sum" if par_ms < 1.5 * call_ms
                   else "the structured fan-out did NOT approach the slowest call")
                + f"; throughput {fmt(num(seq, 'throughput_rps'), 1)} → {fmt(num(par, 'throughput_rps'), 1)} req/s "
                f"({seq['bottleneck']} → {par['bottleneck']}).")
    if any(a["thread_mode"] == "platform" for a in lines):
        verdict.append("With platform Tomcat a request still holds its thread for the whole fan-out, so halving its "
                       "time doubles what 200 threads carry; the forked calls themselves run on virtual threads "
                       "(StructuredTaskScope's default) either way.")

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {a.get('fanout')}"

    return Section("fanout", "Fan-out: two calls and a lookup, one after the other or with StructuredTaskScope",
                   verdict, table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]))

