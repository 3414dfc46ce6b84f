"""Network latency injected between the tiers (Toxiproxy): where the bottleneck moves."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vtlab import analyze
from vtlab.scenarios.common import (TABLE_COLUMNS, POOL_COLUMNS, Line, Section, fmt, num, table_of, chart_of,
                                    matching_baseline)


def section(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    delayed = [a for a in analysed if num(a, "db_latency_ms", 0) > 0 or num(a, "downstream_latency_ms", 0) > 0]
    if not delayed:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms", "workload")
    lines = sorted([*delayed, *matching_baseline(analysed, delayed, same)],
                   key=lambda a: (a["thread_mode"] != "platform", num(a, "db_latency_ms", 0),
                                  num(a, "downstream_latency_ms", 0), num(a, "concurrency")))

    def where(a: Line) -> str:
        parts = []
        for column, tier in (("db", "PostgreSQL"), ("downstream", "downstream")):
            if num(a, f"{column}_latency_ms", 0) > 0:
                parts.append(f"{tier} +{fmt(num(a, f'{column}_latency_ms'))}±{fmt(num(a, f'{column}_jitter_ms', 0))} "
                             f"ms")
        return ", ".join(parts) + " each way" if parts else "loopback"

    verdict = ["Latency is added by a Toxiproxy between the tiers, to each direction of every connection, so "
               "every query or call pays it twice."]
    for mode in ("platform", "virtual"):
        mine = [a for a in lines if a["thread_mode"] == mode]
        base = next((a for a in mine if where(a) == "loopback"), None)
        for a in (a for a in mine if where(a) != "loopback"):
            sentence = (f"{mode} with {where(a)}: {fmt(num(a, 'throughput_rps'), 1)} req/s, median "
                        f"{fmt(num(a, 'p50_ms'))} ms ({a['bottleneck']}, ceiling {fmt(num(a, 'ceiling_rps'), 1)} "
                        f"req/s)")
            if base:
                moved = base["bottleneck"] != a["bottleneck"]
                sentence += (f" against {fmt(num(base, 'throughput_rps'), 1)} req/s on loopback ({base['bottleneck']})"
                             + (f" — the bottleneck moved from {base['bottleneck']} to {a['bottleneck']}"
                                if moved else ""))
            if a["bottleneck"] == "connection-pool" and num(a, "throughput_rps", 0) > 0:
                # Every connection busy: Little's law gives how long each request kept one.
                hold_ms = num(a, "hikari_pool") / num(a, "throughput_rps") * 1000
                sentence += (f"; all {a.get('hikari_pool')} connections were busy (up to "
                             f"{fmt(num(a, 'hikari_pending_max'))} waiters), so each request kept one "
                             f"~{fmt(hold_ms)} ms (connections ÷ throughput) — the "
                             f"{fmt(analyze.db_round_trip_s(a) * 1000)} ms round trip plus the query, where on "
                             "loopback it is the query alone")
            verdict.append(sentence + ".")
    proxy = [a for a in delayed if num(a, "proxy_cpu_pct", 0) > 0]
    if proxy:
        verdict.append(f"The proxy itself used {fmt(max(num(a, 'proxy_cpu_pct') for a in proxy))}% of one core at most "
                       "(sampled as its own tier, counted in the CPU ceiling).")

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {where(a)}"

    return Section("latency", "Injected network latency: the database and the downstream stop being on loopback",
                   verdict, table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines],
                                                                       ("throughput_rps", "p50_ms")),
                   [*TABLE_COLUMNS, POOL_COLUMNS[0]])

