"""The WebFlux + R2DBC twin against platform and virtual threads: the twin compared with virtual threads only where
both rows are valid."""

from __future__ import annotations


from vtlab.core import dimensions
from vtlab.explain.model import Analysis, Context
from vtlab.report import validrows
from vtlab.report.scenarios.common import (overlap_words, Label, TABLE_COLUMNS, MODEL_COLUMNS, Line, Section,
                                           cpu_saturated, fmt, invalid_mark, table_of, chart_of, rps_text,
                                           separated)


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    reactive = [a for a in analysed if a.row.thread_mode == "webflux"]
    if not reactive:
        return None
    same = ("hikari_pool", "concurrency", "stub_delay_ms", "load_model")
    keys = {dimensions.key(a.row, same) for a in reactive}
    blocking = [a for a in analysed if a.row.workload == "order-summary" and a.row.thread_mode != "webflux"
                and a.row.conn_mode == "released" and a.row.path_mode == "normal"
                and a.row.pool_impl == "hikari" and a.row.context == "none"
                and not a.row.db_latency_ms and not a.row.downstream_latency_ms
                and dimensions.key(a.row, same) in keys]
    order = {"platform": 0, "virtual": 1, "webflux": 2}
    lines = sorted([*blocking, *reactive], key=lambda a: (a.row.concurrency, order.get(a.row.thread_mode, 3)))
    verdict = []
    for users in sorted({a.row.concurrency for a in reactive}):
        at = {a.row.thread_mode: a for a in lines if a.row.concurrency == users}
        verdict.append(f"{fmt(users)} users: " + "; ".join(
            f"{name} {rps_text(a)} req/s{invalid_mark(a)}, p99 {fmt(a.measured.p99_ms)} ms, "
            f"{fmt(a.measured.jvm_threads_max)} JVM threads, RSS {fmt(a.measured.rss_mb_max)} MB, "
            f"{fmt(a.measured.app_cpu_ms_per_req, 2)} ms of its own CPU per request ({a.bottleneck})"
            for name, a in at.items()) + ".")
        virtual, webflux = at.get("virtual"), at.get("webflux")
        why = validrows.unanswered([("virtual", [virtual] if virtual else []),
                                    ("WebFlux", [webflux] if webflux else [])])
        if virtual and webflux and why:
            verdict.append(f"Virtual threads and WebFlux are not compared: {why}.")
        elif virtual and webflux and virtual.measured.throughput_rps:
            verdict.append(_against_virtual(virtual, webflux, analysis.context, analysis.rig.figure_noise_share))
        if webflux and not webflux.valid:
            lower = "; read it as a lower bound" if webflux.bottleneck == "load-generator" else ""
            verdict.append(f"The WebFlux row is not valid ({validrows.reasons(webflux)}){lower}.")

    def variant(a: Line) -> str:
        return mode_label(a.row)

    return Section("reactive", "The reactive twin: WebFlux + R2DBC beside both thread models", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, *MODEL_COLUMNS])



def _against_virtual(virtual: Line, webflux: Line, context: Context, noise: float) -> str:
    """The twin against virtual threads: "the same wall" only where the analysis named the same one, the reactive
    stack's CPU called its wall only where it was slower, spent more CPU per request (beyond `noise`, the rig's
    figure_noise_share) and the CPU was full."""
    if not separated(virtual, webflux):
        if virtual.bottleneck == webflux.bottleneck:
            return ("Virtual threads and WebFlux are within noise of each other "
                    f"({overlap_words(virtual, webflux)}): the "
                    "same wall on this I/O-bound workload — both hold a request without holding a thread, so the "
                    "users, the downstream and the CPU decide, not the programming model.")
        return ("Virtual threads and WebFlux are within noise of each other "
                f"({overlap_words(virtual, webflux)}), though "
                f"named different walls ({virtual.bottleneck} vs {webflux.bottleneck}).")
    ratio = webflux.measured.throughput_rps / virtual.measured.throughput_rps
    cpu_v, cpu_w = virtual.measured.app_cpu_ms_per_req, webflux.measured.app_cpu_ms_per_req
    told = f"WebFlux at {fmt(ratio, 2)}× virtual threads ({webflux.bottleneck} vs {virtual.bottleneck})"
    if not cpu_w > cpu_v * (1 + noise):
        return told + "."
    spent = (f"the twin spent {fmt(cpu_w, 2)} ms of its own CPU per request against {fmt(cpu_v, 2)} ms, "
             f"with the host {fmt(webflux.measured.host_cpu_pct)}% busy")
    if ratio < 1 and cpu_saturated(webflux, context):
        return f"{told}: {spent} — on these cores the reactive stack's cost per request, not threads, sets its wall."
    if ratio >= 1:
        return f"{told}: {spent} — and still served more, so its CPU per request did not set its wall."
    return f"{told}: {spent} — but the CPU was not saturated, so its cost per request did not set its wall."
