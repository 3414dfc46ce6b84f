"""What every scenario section is built from: the Section, its table and chart columns, and the
small helpers that format a line of the analysis."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from vtlab import analyze

TABLE_COLUMNS = [("variant", "variant"), ("load", "load"), ("rps", "req/s"), ("p50", "p50 ms"),
                 ("p99", "p99 ms"), ("ceiling", "ceiling req/s"), ("bottleneck", "bottleneck")]
PINNED_COLUMN = ("pinned", "pinned events (reasons)")
WRITES_COLUMN = ("writes", "stored / acknowledged")
POOL_COLUMNS = [("pending", "pool waiters max"), ("pinned", "pinned events (reasons)")]
MEMORY_COLUMNS = [("rss", "RSS max MB"), ("heap", "heap max MB"), ("gc", "GC pauses · ms")]
MODEL_COLUMNS = [("threads", "JVM threads max"), ("rss", "RSS max MB"), ("cpu_ms", "app CPU ms/req")]
Line = Mapping[str, object]


@dataclass
class Section:
    key: str
    title: str
    verdict: list[str]
    table: list[dict[str, str]]
    chart: dict[str, list] = field(default_factory=dict)  # labels, throughput, p99: what the chart draws
    columns: list[tuple[str, str]] = field(default_factory=lambda: list(TABLE_COLUMNS))


def fmt(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) or math.isinf(value) else f"{value:,.{digits}f}"


def num(line: Line, column: str, default: float = math.nan) -> float:
    return analyze.num(line, column, default)


def table_of(lines: Sequence[Line], mode_label: Callable[[Line], str], variant: Callable[[Line], str] | None = None
           ) -> list[dict[str, str]]:
    return [{"variant": (variant or mode_label)(a), "load": f"{a['concurrency']} users",
             "rps": fmt(num(a, "throughput_rps"), 1) + ("" if a["valid"] else " (invalid)"),
             "p50": fmt(num(a, "p50_ms")), "p99": fmt(num(a, "p99_ms")), "ceiling": fmt(num(a, "ceiling_rps"), 1),
             "bottleneck": str(a["bottleneck"]),
             "pinned": fmt(num(a, "pinned_events")) + (f" ({a['pinned_reasons']})" if a.get("pinned_reasons") else ""),
             "writes": f"{fmt(num(a, 'rows_inserted'))} / {fmt(num(a, 'writes_acknowledged'))}",
             "pending": fmt(num(a, "hikari_pending_max")), "rss": fmt(num(a, "rss_mb_max")),
             "heap": fmt(num(a, "heap_used_mb_max")),
             "gc": f"{fmt(num(a, 'gc_pauses'))} · {fmt(num(a, 'gc_pause_ms'))}",
             "threads": fmt(num(a, "jvm_threads_max")), "cpu_ms": fmt(num(a, "app_cpu_ms_per_req"), 2)} for a in lines]


def chart_of(lines: Sequence[Line], labels: Sequence[str], draw: tuple[str, str] | None = None) -> dict[str, list]:
    chart = {"labels": list(labels), "throughput_rps": [num(a, "throughput_rps") for a in lines],
             "p99_ms": [num(a, "p99_ms") for a in lines]}
    if draw:
        chart.update({key: [num(a, key) for a in lines] for key in draw})
        chart["draw"] = list(draw)
    return chart


def ordered(lines: Sequence[Line]) -> list[Line]:
    return sorted(lines, key=lambda a: (a["thread_mode"] != "platform", num(a, "tomcat_max_threads"),
                                        num(a, "concurrency"), str(a.get("rep"))))


def ratio_sentence(lines: Sequence[Line]) -> list[str]:
    platform = [a for a in lines if a["thread_mode"] == "platform"]
    virtual = [a for a in lines if a["thread_mode"] == "virtual"]
    if not platform or not virtual:
        return []
    p, v = max(num(a, "throughput_rps") for a in platform), max(num(a, "throughput_rps") for a in virtual)
    return [f"Virtual threads deliver {fmt(v / p if p else math.nan, 1)}× the platform throughput here."] if p else []


def matching_baseline(analysed: Sequence[Line], chosen: Sequence[Line], same: Sequence[str]) -> list[Line]:
    """The plain rows (no variant) that share `same` columns with a chosen variant row: its loopback,
    HikariCP, no-context or blocking counterpart."""
    keys = {tuple(str(a.get(c)) for c in same) for a in chosen}
    return [a for a in analysed if analyze.workload(a) == "order-summary" and not analyze.is_variant(a)
            and tuple(str(a.get(c)) for c in same) in keys]

