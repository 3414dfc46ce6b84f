"""What every scenario section is built from: the Section, its table and chart columns, and the
small helpers that format a line of the analysis. A section concludes and compares from valid lines only
(report.validrows); an invalid line's figures are marked as such wherever they are told."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vtlab.core import dimensions
from vtlab.explain.facts import SATURATED
from vtlab.explain.model import Analysis, Context, Verdict  # noqa: F401 (Analysis: every section is told from one)
from vtlab.report import validrows
from vtlab.report.labels import fmt

TABLE_COLUMNS = [("variant", "variant"), ("load", "load"), ("rps", "req/s"), ("p50", "p50 ms"),
                 ("p99", "p99 ms"), ("ceiling", "ceiling req/s"), ("bottleneck", "bottleneck")]
PINNED_COLUMN = ("pinned", "pinned events (reasons)")
WRITES_COLUMN = ("writes", "stored / acknowledged")
POOL_COLUMNS = [("pending", "pool waiters"), ("pinned", "pinned events (reasons)")]
MEMORY_COLUMNS = [("rss", "RSS max MB"), ("heap", "heap max MB"), ("gc", "GC pauses · ms")]
MODEL_COLUMNS = [("threads", "JVM threads max"), ("rss", "RSS max MB"), ("cpu_ms", "app CPU ms/req")]
Line = Verdict  # one row's verdict: what a section tells (each told from the run's Analysis)
Label = Callable[[Any], str]  # a row's dimensions (dimensions.Row) -> its words


@dataclass
class Section:
    key: str
    title: str
    verdict: list[str]
    table: list[dict[str, str]]
    chart: dict[str, list] = field(default_factory=dict)  # labels, throughput, p99: what the chart draws
    columns: list[tuple[str, str]] = field(default_factory=lambda: list(TABLE_COLUMNS))


def throughput_range(a: Line) -> tuple[float, float]:
    """Where a line's throughput lies for a comparison: its interval widened to the rig's measured between-run
    noise floor for one rep (the interval of the reps' mean for several; see repetitions.noise_half)."""
    rps, half = a.measured.throughput_rps, a.noise_half_rps
    if math.isnan(half):  # a verdict built outside the analysis: its own interval, else the point
        half = 0.0 if math.isnan(a.measured.throughput_ci95_rps) else a.measured.throughput_ci95_rps
    return rps - half, rps + half


def separated(a: Line, b: Line) -> bool:
    """Whether two lines' throughputs differ beyond their noise: their intervals do not overlap."""
    (low_a, high_a), (low_b, high_b) = throughput_range(a), throughput_range(b)
    return high_a < low_b or high_b < low_a


def against(a: Line, ceiling: float, margin: float) -> str:
    """Where a line's throughput stands against a ceiling: "above" it beyond the line's comparison interval and the
    ceiling's own `margin` (the rig's ceiling_exceeded_margin: the test the analysis flags a passed ceiling by), "at"
    it (its interval reaches the share of it the analysis counts as saturated), "below" it, or "" where the ceiling
    is not a number to stand against."""
    if math.isnan(ceiling) or math.isinf(ceiling) or ceiling <= 0:
        return ""
    low, high = throughput_range(a)
    return "above" if low > ceiling * (1 + margin) else "at" if high >= SATURATED * ceiling else "below"


def cpu_saturated(a: Line, context: Context) -> bool:
    """Whether the row shows its CPU saturated, by the analysis' saturated share: the host busy, or the service
    alone filling the cores. On cores of its own (not shared) the service's allotment is not in the verdict:
    there the analysis' own naming of the CPU stands in."""
    m = a.measured
    return (m.host_cpu_pct >= SATURATED * 100 or m.app_cpu_pct >= SATURATED * context.host_cpus * 100
            or (not context.shared_cores and a.bottleneck == "cpu"))


def overlap_words(a: Line, b: Line) -> str:
    """What "within noise" rests on: the two half-widths the lines were compared at (one rep's own interval
    widened to the between-run noise floor, several reps' interval of their mean), which overlap."""
    half_a, half_b = ((high - low) / 2 for low, high in (throughput_range(a), throughput_range(b)))
    return f"their intervals for comparison, ± {fmt(half_a, 1)} and ± {fmt(half_b, 1)} req/s, overlap"


def rps_text(a: Line) -> str:
    """Throughput with its interval: "889.1 ± 17.9"."""
    ci = a.measured.throughput_ci95_rps
    return fmt(a.measured.throughput_rps, 1) + ("" if math.isnan(ci) else f" ± {fmt(ci, 1)}")


def invalid_mark(a: Line) -> str:
    """ " (invalid)" after a figure of a line no rep of which is valid, else nothing."""
    return "" if a.valid else " (invalid)"


def invalid_words(a: Line) -> str:
    """After a sentence told of one line: that its figures are no answer where no rep of it is valid, and why."""
    return "" if a.valid else f" The row is not valid ({validrows.reasons(a)}): its figures are not an answer."


def table_of(lines: Sequence[Line], mode_label: Label, variant: Callable[[Line], str] | None = None
             ) -> list[dict[str, str]]:
    return [_table_line(a, variant(a) if variant else mode_label(a.row)) for a in lines]


def _table_line(a: Line, variant: str) -> dict[str, str]:
    m = a.measured
    return {"variant": variant, "load": f"{a.row.concurrency} users",
            "rps": rps_text(a) + invalid_mark(a),
            "p50": fmt(m.p50_ms), "p99": fmt(m.p99_ms), "ceiling": fmt(a.ceiling_rps, 1), "bottleneck": a.bottleneck,
            "pinned": fmt(m.pinned_events) + (f" ({m.pinned_reasons})" if m.pinned_reasons else ""),
            "writes": f"{fmt(m.rows_inserted)} / {fmt(m.writes_acknowledged)}",
            "pending": waiters_text(a), "rss": fmt(m.rss_mb_max), "heap": fmt(m.heap_used_mb_max),
            "gc": f"{fmt(m.gc_pauses)} · {fmt(m.gc_pause_ms)}",
            "threads": fmt(m.jvm_threads_max), "cpu_ms": fmt(m.app_cpu_ms_per_req, 2)}


def waiters_text(a: Line) -> str:
    """Threads waiting for a connection: the pool's exact mean where it times its borrows, else the largest
    2 Hz sample, labelled as such (a sample rarely catches a wait of a millisecond)."""
    m = a.measured
    if not math.isnan(m.pool_waiting_mean):
        return f"{fmt(m.pool_waiting_mean, 1)} mean"
    return f"{fmt(m.hikari_pending_max)} max (sampled)"


def chart_of(lines: Sequence[Line], labels: Sequence[str], draw: tuple[str, str] | None = None) -> dict[str, list]:
    chart = {"labels": list(labels), "throughput_rps": [a.measured.throughput_rps for a in lines],
             "p99_ms": [a.measured.p99_ms for a in lines]}
    if draw:
        chart.update({key: [getattr(a.measured, key) for a in lines] for key in draw})
        chart["draw"] = list(draw)
    return chart


def ordered(lines: Sequence[Line]) -> list[Line]:
    return sorted(lines, key=lambda a: (a.row.thread_mode != "platform", a.row.tomcat_max_threads,
                                        a.row.concurrency, str(a.row.rep)))


def ratio_sentence(lines: Sequence[Line], label: Label = validrows.load) -> list[str]:
    """Best against best among the valid lines: the ratio where the two modes' intervals are apart, else that they
    are not; where a mode has no valid line, no comparison, and why (each line told apart by `label`)."""
    platform = [a for a in lines if a.row.thread_mode == "platform"]
    virtual = [a for a in lines if a.row.thread_mode == "virtual"]
    if not platform or not virtual:
        return []
    why = validrows.unanswered([("platform", platform), ("virtual", virtual)], label)
    if why:
        return [f"Virtual and platform threads are not compared here: {why}."]
    p = max(validrows.valid(platform), key=lambda a: a.measured.throughput_rps)
    v = max(validrows.valid(virtual), key=lambda a: a.measured.throughput_rps)
    if not p.measured.throughput_rps:
        return []
    if not separated(p, v):
        return [f"Virtual and platform threads are within noise of each other here (best {rps_text(v)} against "
                f"{rps_text(p)} req/s: {overlap_words(v, p)})."]
    return [f"Virtual threads deliver {fmt(v.measured.throughput_rps / p.measured.throughput_rps, 1)}× the platform "
            "throughput here."]


def matching_baseline(analysed: Sequence[Line], chosen: Sequence[Line], same: Sequence[str]) -> list[Line]:
    """The plain rows (no variant) that share `same` columns with a chosen variant row: its loopback,
    HikariCP, no-context or blocking counterpart."""
    keys = {dimensions.key(a.row, same) for a in chosen}
    return [a for a in analysed if a.row.workload == "order-summary" and not dimensions.is_variant(a.row)
            and dimensions.key(a.row, same) in keys]

