"""One lookup and two downstream calls per request: one after the other vs all at once (StructuredTaskScope)."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import Label, Line, Section, fmt, table_of, chart_of


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    lines = sorted((a for a in analysed if a.row.workload == "fanout"),
                   key=lambda a: (a.row.thread_mode != "platform", a.row.fanout != "sequential",
                                  a.row.concurrency))
    if not lines:
        return None
    call_ms = lines[0].row.stub_delay_ms + 2 * lines[0].row.downstream_latency_ms
    verdict = [f"Each request reads the order and makes two downstream calls of {fmt(call_ms)} ms: one after the "
               f"other that is ≥ {fmt(2 * call_ms)} ms (the sum), all at once it can be "
               f"{fmt(call_ms)} ms (the slowest)."]
    def in_service_ms(a: Line) -> float:
        # More users than threads: the median also counts the wait for a thread; the time in service is
        # the analysis' service time (from a row of the same fan-out that did not queue).
        return a.service_time_ms if a.queued else a.measured.p50_ms

    near = analysis.rig.fanout_slowest_call_factor  # under this many times the slowest call: near it, not the sum
    for mode in ("platform", "virtual"):
        by = {a.row.fanout: a for a in lines if a.row.thread_mode == mode}
        seq, par = by.get("sequential"), by.get("structured")
        if seq and par:
            par_ms = in_service_ms(par)
            queue = (f" (their medians, {fmt(seq.measured.p50_ms)} and {fmt(par.measured.p50_ms)} ms, add the wait for "
                     f"one of {fmt(par.row.tomcat_max_threads)} threads)" if par.queued else "")
            verdict.append(
                f"{mode}: {fmt(in_service_ms(seq))} ms in service sequential vs {fmt(par_ms)} ms structured{queue}, "
                f"{fmt(par_ms / call_ms if call_ms else math.nan, 2)}× the slowest call — "
                + ("latency approaches the slowest call, not the sum" if par_ms < near * call_ms
                   else "the structured fan-out did NOT approach the slowest call")
                + f"; throughput {fmt(seq.measured.throughput_rps, 1)} → {fmt(par.measured.throughput_rps, 1)} req/s "
                f"({seq.bottleneck} → {par.bottleneck}).")
    by_platform = {a.row.fanout: a for a in lines if a.row.thread_mode == "platform"}
    seq, par = by_platform.get("sequential"), by_platform.get("structured")
    if seq and par:
        verdict.append(_platform_sentence(seq, par, in_service_ms(seq), in_service_ms(par),
                                          analysis.rig.figure_noise_share))

    def variant(a: Line) -> str:
        return f"{mode_label(a.row)}, {a.row.fanout}"

    return Section("fanout", "Fan-out: two calls and a lookup, one after the other or with StructuredTaskScope",
                   verdict, table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]))



def _platform_sentence(seq: Line, par: Line, seq_ms: float, par_ms: float, noise: float) -> str:
    """Platform threads carry as many more requests as the fan-out is shorter only where both rows stopped at the
    threads and the throughputs moved as the times did (the two ratios within `noise` of each other)."""
    shorter = seq_ms / par_ms if par_ms else math.nan
    more = (par.measured.throughput_rps / seq.measured.throughput_rps if seq.measured.throughput_rps
            else math.nan)
    forked = ("the forked calls themselves run on virtual threads (StructuredTaskScope's default) either way.")
    at_threads = seq.bottleneck == par.bottleneck == "thread-pool"
    if at_threads and abs(more / shorter - 1) < noise:
        return (f"With platform Tomcat a request still holds its thread for the whole fan-out, so a fan-out "
                f"{fmt(shorter, 2)}× shorter carried {fmt(more, 2)}× the requests on the same "
                f"{fmt(par.row.tomcat_max_threads)} threads; {forked}")
    return (f"With platform Tomcat a request holds its thread for the whole fan-out, yet a fan-out "
            f"{fmt(shorter, 2)}× shorter carried {fmt(more, 2)}× the requests ({seq.bottleneck} → {par.bottleneck}): "
            f"the threads alone did not set the rate; {forked}")
