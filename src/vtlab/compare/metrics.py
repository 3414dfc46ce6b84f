"""The metrics a comparison reads per scenario, each with the direction that is better and its name in a gate."""

from __future__ import annotations

from typing import NamedTuple


class Metric(NamedTuple):
    name: str               # as the gate and compare.json name it
    column: str             # the Measured field (and matrix.csv column) it reads
    title: str
    unit: str
    higher_is_better: bool


METRICS = (
    Metric("throughput", "throughput_rps", "successful req/s", "req/s", True),
    Metric("p50", "p50_ms", "p50", "ms", False),
    Metric("p99", "p99_ms", "p99", "ms", False),
    Metric("cpu", "app_cpu_ms_per_req", "service CPU per request", "ms", False),
    Metric("rss", "rss_mb_max", "RSS max", "MB", False),
    Metric("alloc", "alloc_kb_per_req", "allocated per request", "KiB", False),
    # what a collector or heap change moves first: the time the service stood still, per unit of work served (a
    # row that serves more collects more), so two rows at different rates compare on what the collector costs
    Metric("gc", "gc_pause_ms_per_1k_req", "GC paused per 1,000 requests", "ms", False),
    Metric("errors", "error_rate", "error rate", "", False),
)
BY_NAME = {m.name: m for m in METRICS}
