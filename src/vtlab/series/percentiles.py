"""A latency percentile of a row's hold with its 95% interval, from the row's kept requests: the figure the
capacity search decides on beyond its noise. The value is k6's (the percentile of every successful request of the
hold); its interval is the batch means' — the hold cut by start time into `batches` equal runs, each run's
percentile one nearly independent observation, as the throughput's interval is cut (windows.per_second_interval)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.series import windows
from vtlab.series.store import Request, percentile


def interval(requests: Sequence[Request], share: float, batches: int = windows.BATCHES) -> tuple[float, float, float]:
    """(value, low, high) of the successful requests' percentile `share` (0.99 for p99); the bounds are nan with
    fewer than three batches holding a success, or no request at all."""
    ok = [r for r in requests if r.ok]
    if not ok:
        return math.nan, math.nan, math.nan
    value = percentile(sorted(r.duration_ms for r in ok), share)
    start, end = min(r.start_s for r in ok), max(r.start_s for r in ok)
    width = (end - start) / batches if end > start else 0.0
    cut: list[list[float]] = [[] for _ in range(batches)]
    for r in ok:
        index = min(batches - 1, int((r.start_s - start) / width)) if width else 0
        cut[index].append(r.duration_ms)
    observed = [percentile(sorted(durations), share) for durations in cut if durations]
    if len(observed) < 3:
        return value, math.nan, math.nan
    half = windows.half_width(observed)
    return value, value - half, value + half
