"""The WebFlux + R2DBC twin against platform and virtual threads."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vtlab import analyze
from vtlab.scenarios.common import TABLE_COLUMNS, MODEL_COLUMNS, Line, Section, fmt, num, table_of, chart_of


def section(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    reactive = [a for a in analysed if a["thread_mode"] == "webflux"]
    if not reactive:
        return None
    same = ("hikari_pool", "concurrency", "stub_delay_ms", "load_model")
    keys = {tuple(str(a.get(c)) for c in same) for a in reactive}
    blocking = [a for a in analysed if analyze.workload(a) == "order-summary" and a["thread_mode"] != "webflux"
                and a.get("conn_mode") == "released" and a.get("path_mode") == "normal"
                and str(a.get("pool_impl") or "hikari") == "hikari" and str(a.get("context") or "none") == "none"
                and not num(a, "db_latency_ms", 0) and not num(a, "downstream_latency_ms", 0)
                and tuple(str(a.get(c)) for c in same) in keys]
    order = {"platform": 0, "virtual": 1, "webflux": 2}
    lines = sorted([*blocking, *reactive], key=lambda a: (num(a, "concurrency"), order.get(str(a["thread_mode"]), 3)))
    verdict = []
    for users in sorted({num(a, "concurrency") for a in reactive}):
        at = {str(a["thread_mode"]): a for a in lines if num(a, "concurrency") == users}
        verdict.append(f"{fmt(users)} users: " + "; ".join(
            f"{name} {fmt(num(a, 'throughput_rps'), 1)} req/s, p99 {fmt(num(a, 'p99_ms'))} ms, "
            f"{fmt(num(a, 'jvm_threads_max'))} JVM threads, RSS {fmt(num(a, 'rss_mb_max'))} MB, "
            f"{fmt(num(a, 'app_cpu_ms_per_req'), 2)} ms of its own CPU per request ({a['bottleneck']})"
            for name, a in at.items()) + ".")
        virtual, webflux = at.get("virtual"), at.get("webflux")
        if virtual and webflux and num(virtual, "throughput_rps"):
            ratio = num(webflux, "throughput_rps") / num(virtual, "throughput_rps")
            if abs(ratio - 1) < analyze.SPREAD_WARNING:
                verdict.append("Virtual threads and WebFlux reach the same wall on this I/O-bound workload: both "
                               "hold a request without holding a thread, so the users, the downstream and the CPU "
                               "decide, not the programming model.")
            else:
                cpu_v, cpu_w = num(virtual, "app_cpu_ms_per_req"), num(webflux, "app_cpu_ms_per_req")
                verdict.append(
                    f"WebFlux at {fmt(ratio, 2)}× virtual threads ({webflux['bottleneck']} vs "
                    f"{virtual['bottleneck']}): "
                    f"the twin spent {fmt(cpu_w, 2)} ms of its own CPU per request against {fmt(cpu_v, 2)} ms, "
                    f"with the host {fmt(num(webflux, 'host_cpu_pct'))}% busy — on these cores the reactive stack's "
                    "cost per request, not threads, sets its wall."
                    if cpu_w > cpu_v * (1 + analyze.SPREAD_WARNING) else
                    f"WebFlux at {fmt(ratio, 2)}× virtual threads ({webflux['bottleneck']} vs "
                    f"{virtual['bottleneck']}).")
            if not webflux["valid"]:
                verdict.append(f"The WebFlux row is not valid ({webflux['flags']}); read it as a lower bound.")

    def variant(a: Line) -> str:
        return mode_label(a)

    return Section("reactive", "The reactive twin: WebFlux + R2DBC beside both thread models", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, *MODEL_COLUMNS])

