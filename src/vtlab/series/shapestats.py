"""What a row's load shape measured, from its kept series: the spike's p99 before and during it, the
requests it failed and the seconds p99 took to recover; each step's throughput and p99 and the knee; a
soak's drift per minute. The CSV's shape columns; a re-cut computes them the same way."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.core import constants as rig_constants
from vtlab.series import store, windows
from vtlab.core.shapes import Shape


# The CSV columns a shape fills (the others stay empty for it).
COLUMNS = ("base_p99_ms", "spike_p99_ms", "spike_failed", "recovery_s", "steps_rps", "steps_p99_ms", "knee_load",
           "rss_drift_mb_per_min", "threads_drift_per_min", "gc_pause_ms_per_min")


def figures(shape: Shape, k6: store.K6Series, meters: windows.Series, cpu: windows.Series, load: int,
            hold_start_s: float, hold_s: float,
            rig: rig_constants.Constants = rig_constants.CURRENT) -> dict[str, object]:
    """Every shape column for the row, from its series: the shape's own filled, the rest empty. `rig`: the
    constants the run measured with (a re-cut passes what the run recorded)."""
    measured: dict[str, object] = {}
    if shape.name == "spike":
        measured = _spike(shape, k6, hold_start_s, hold_s, rig)
    elif shape.name == "steps":
        measured = _steps(shape, k6, load, hold_start_s, hold_s, rig.knee_growth_share)
    elif shape.name == "soak":
        measured = _soak(meters, cpu, hold_start_s, hold_s)
    return {column: measured.get(column, "") for column in COLUMNS}


def _p99(requests: Sequence[store.Request]) -> float:
    ok = sorted(r.duration_ms for r in requests if r.ok)
    return store.percentile(ok, 0.99) if ok else math.nan


def _spike(shape: Shape, k6: store.K6Series, hold_start_s: float, hold_s: float,
           rig: rig_constants.Constants) -> dict[str, object]:
    start, end = (hold_start_s + t for t in shape.spike_window(hold_s))
    before = [r for r in k6.requests if hold_start_s <= r.start_s < start]
    during = [r for r in k6.requests if start <= r.start_s < end]
    base_p99 = _p99(before)
    return {"base_p99_ms": base_p99, "spike_p99_ms": _p99(during),
            "spike_failed": sum(1 for r in during if not r.ok),
            "recovery_s": recovery_s(store.per_second(k6), base_p99, end, hold_start_s + hold_s, rig)}


def recovery_s(seconds: Sequence[dict[str, float]], base_p99: float, spike_end: float, hold_end: float,
               rig: rig_constants.Constants = rig_constants.CURRENT) -> float:
    """Seconds from the spike's end until the per-second p99 stayed within spike_recovered_p99_ratio × the
    pre-spike p99 for spike_recovered_for_s seconds in a row; NaN when it never did before the hold ended."""
    if math.isnan(base_p99):
        return math.nan
    within, for_s = rig.spike_recovered_p99_ratio, rig.spike_recovered_for_s
    calm = 0
    for line in seconds:
        if line["t_s"] < math.floor(spike_end) or line["t_s"] >= hold_end:
            continue
        p99 = line["p99_ms"]
        calm = calm + 1 if not math.isnan(p99) and p99 <= within * base_p99 else 0
        if calm == for_s:
            return max(0.0, line["t_s"] - for_s + 1 - spike_end)
    return math.nan


def _steps(shape: Shape, k6: store.K6Series, load: int, hold_start_s: float, hold_s: float,
           growth: float) -> dict[str, object]:
    rates, p99s, levels = [], [], []
    for k, (start, end) in enumerate(shape.step_windows(hold_s)):
        # the step's first second is its change: leave it out of what the step measured
        window = [r for r in k6.requests if hold_start_s + start + 1 <= r.start_s < hold_start_s + end]
        rates.append(sum(1 for r in window if r.ok) / max(end - start - 1, 1))
        p99s.append(_p99(window))
        levels.append(shape.level(load, k))
    return {"steps_rps": ";".join(f"{level}={rate:.1f}" for level, rate in zip(levels, rates, strict=True)),
            "steps_p99_ms": ";".join(f"{level}={p99:.0f}" for level, p99 in zip(levels, p99s, strict=True)),
            "knee_load": knee(levels, rates, growth)}


def knee(levels: Sequence[int], rates: Sequence[float],
         growth: float = rig_constants.CURRENT.knee_growth_share) -> int:
    """The highest load up to which throughput kept growing with it: the last step whose throughput rose by
    at least `growth` (the rig's knee_growth_share) of the load's own rise from the step before."""
    last = levels[0] if levels else 0
    for k in range(1, len(levels)):
        wanted = rates[k - 1] * (levels[k] / levels[k - 1] - 1)
        if rates[k] - rates[k - 1] < growth * wanted:
            break
        last = levels[k]
    return last


def _soak(meters: windows.Series, cpu: windows.Series, hold_start_s: float, hold_s: float) -> dict[str, object]:
    start, end = hold_start_s, hold_start_s + hold_s
    rss = [(t, v["rss_kb"] / 1024) for t, v in cpu.window(start, end) if "rss_kb" in v]
    threads = [(t, v["jvm_threads"]) for t, v in meters.window(start, end) if "jvm_threads" in v]
    minutes = hold_s / 60
    return {"rss_drift_mb_per_min": slope_per_min(rss), "threads_drift_per_min": slope_per_min(threads),
            "gc_pause_ms_per_min": windows.increase(meters, "gc_pause_s", start, end) * 1000 / minutes}


def slope_per_min(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) points, per minute: a trend, not the difference of two
    readings (a GC or a burst at either end would be the whole answer)."""
    if len(points) < 3:
        return math.nan
    mean_t = sum(t for t, _ in points) / len(points)
    mean_v = sum(v for _, v in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / spread * 60 if spread else math.nan
