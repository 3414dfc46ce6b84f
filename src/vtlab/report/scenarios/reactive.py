"""The WebFlux + R2DBC twin against platform and virtual threads."""

from __future__ import annotations


from vtlab.explain import analyze
from vtlab.core import dimensions
from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import (Label, TABLE_COLUMNS, MODEL_COLUMNS, Line, Section, fmt, table_of, chart_of,
                                    rps_text, separated)


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
            f"{name} {rps_text(a)} req/s, p99 {fmt(a.measured.p99_ms)} ms, "
            f"{fmt(a.measured.jvm_threads_max)} JVM threads, RSS {fmt(a.measured.rss_mb_max)} MB, "
            f"{fmt(a.measured.app_cpu_ms_per_req, 2)} ms of its own CPU per request ({a.bottleneck})"
            for name, a in at.items()) + ".")
        virtual, webflux = at.get("virtual"), at.get("webflux")
        if virtual and webflux and virtual.measured.throughput_rps:
            ratio = webflux.measured.throughput_rps / virtual.measured.throughput_rps
            if not separated(virtual, webflux):
                verdict.append("Virtual threads and WebFlux are within noise of each other (their 95% intervals "
                               "overlap): the same wall on this I/O-bound workload — both "
                               "hold a request without holding a thread, so the users, the downstream and the CPU "
                               "decide, not the programming model.")
            else:
                cpu_v, cpu_w = virtual.measured.app_cpu_ms_per_req, webflux.measured.app_cpu_ms_per_req
                verdict.append(
                    f"WebFlux at {fmt(ratio, 2)}× virtual threads ({webflux.bottleneck} vs "
                    f"{virtual.bottleneck}): "
                    f"the twin spent {fmt(cpu_w, 2)} ms of its own CPU per request against {fmt(cpu_v, 2)} ms, "
                    f"with the host {fmt(webflux.measured.host_cpu_pct)}% busy — on these cores the reactive stack's "
                    "cost per request, not threads, sets its wall."
                    if cpu_w > cpu_v * (1 + analyze.SPREAD_WARNING) else
                    f"WebFlux at {fmt(ratio, 2)}× virtual threads ({webflux.bottleneck} vs "
                    f"{virtual.bottleneck}).")
            if not webflux.valid:
                verdict.append(f"The WebFlux row is not valid ({';'.join(webflux.flags)}); read it as a lower bound.")

    def variant(a: Line) -> str:
        return mode_label(a.row)

    return Section("reactive", "The reactive twin: WebFlux + R2DBC beside both thread models", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, *MODEL_COLUMNS])

