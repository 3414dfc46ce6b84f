"""Statistics over a window of sampler readings: a tier's CPU, the host's and the neighbours' share, a gauge's
maximum, a counter's growth and rate, the batch-means interval and the trend test that say how much a hold's
mean can be trusted, and the recent rate the stall watch reads.

Pure: a `Series` of timestamped readings in, numbers out. Measuring a row and cutting its kept series again
(series.recut) compute the same figures here, so the two never differ.
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from vtlab.core import constants as rig_constants
from vtlab.core.studentt import t_975

# /proc counts CPU time in clock ticks; every tier's `<tier>_ticks` reading is in them
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Series:
    """Timestamped readings: (monotonic seconds, {name: value})."""
    points: list[tuple[float, dict[str, float]]] = field(default_factory=list)

    def window(self, start: float, end: float) -> list[tuple[float, dict[str, float]]]:
        return [(t, v) for t, v in self.points if start <= t <= end]


def cpu_percent(series: Series, tier: str, start: float, end: float) -> tuple[float, float]:
    """(mean, max) CPU of one tier over the window, in % of one core (200% = two cores busy)."""
    points = [(t, v[f"{tier}_ticks"]) for t, v in series.window(start, end) if f"{tier}_ticks" in v]
    if len(points) < 2:
        return float("nan"), float("nan")
    mean = (points[-1][1] - points[0][1]) / CLOCK_TICKS / (points[-1][0] - points[0][0]) * 100
    peaks = [(b[1] - a[1]) / CLOCK_TICKS / (b[0] - a[0]) * 100
             for a, b in zip(points, points[1:], strict=False) if b[0] > a[0]]
    # Instantaneous peaks over 0.25 s are tick-quantised; smooth over 1 s windows.
    step = max(1, len(peaks) // max(1, int(points[-1][0] - points[0][0])))
    smoothed = [sum(peaks[i:i + step]) / len(peaks[i:i + step]) for i in range(0, len(peaks), step)]
    return mean, max(smoothed)


def host_percent(series: Series, start: float, end: float) -> float:
    """Mean busy share of the whole machine over the window (100% = every CPU busy)."""
    points = [v for _, v in series.window(start, end) if "host_total" in v]
    if len(points) < 2 or points[-1]["host_total"] == points[0]["host_total"]:
        return float("nan")
    return ((points[-1]["host_busy"] - points[0]["host_busy"])
            / (points[-1]["host_total"] - points[0]["host_total"]) * 100)


def foreign_percent(series: Series, tiers: Sequence[str], start: float, end: float) -> float:
    """Share of the whole machine (100% = every CPU) over the window that other processes — neither vtlab's tiers
    among `tiers` nor the harness — and the hypervisor's steal took. Where the sampler counted the neighbours'
    processes themselves (others_ticks) they are read; else (a series from before them, a cluster node's) the
    machine's busy time that no tier used stands for them."""
    if all("others_ticks" in v and "host_steal" in v for _, v in series.window(start, end)):
        return _neighbours_percent(series, tiers, start, end)
    keys = ["host_busy", "host_total", "host_irq", "harness_ticks", *(f"{tier}_ticks" for tier in tiers)]
    points = [v for _, v in series.window(start, end) if all(key in v for key in keys)]
    if len(points) < 2 or points[-1]["host_total"] == points[0]["host_total"]:
        return float("nan")
    first, last = points[0], points[-1]
    ours = sum(last[key] - first[key] for key in keys[3:]) + last["host_irq"] - first["host_irq"]
    # The machine counts ticks per CPU and processes per thread, so the two differ by a tick's
    # rounding per thread: a few ticks below zero are our own rounding, not a negative neighbour.
    return max(0.0, (last["host_busy"] - first["host_busy"] - ours) / (last["host_total"] - first["host_total"]) * 100)


def _neighbours_percent(series: Series, tiers: Sequence[str], start: float, end: float) -> float:
    """The neighbours' processes and the steal; a sampled tier left out of `tiers` (one not on this host's side
    of the question) counts as a neighbour."""
    points = [v for _, v in series.window(start, end) if "host_total" in v]
    if len(points) < 2 or points[-1]["host_total"] == points[0]["host_total"]:
        return float("nan")
    first, last = points[0], points[-1]
    left_out = [key for key in last if key.endswith("_ticks") and key in first
                and key not in ("harness_ticks", "others_ticks") and key.removesuffix("_ticks") not in tiers]
    used = sum(last[key] - first[key] for key in ("others_ticks", "host_steal", *left_out))
    # a neighbour that exits is reaped into its parent's ticks, so the sum does not drop; below zero is rounding
    return max(0.0, used / (last["host_total"] - first["host_total"]) * 100)


def steal_percent(series: Series, start: float, end: float) -> float:
    """Share of the whole machine the hypervisor gave another guest while this one wanted it (part of
    foreign_percent): on a shared host it grows with every wake-up of an idle CPU."""
    points = [v for _, v in series.window(start, end) if "host_steal" in v and "host_total" in v]
    if len(points) < 2 or points[-1]["host_total"] == points[0]["host_total"]:
        return float("nan")
    return ((points[-1]["host_steal"] - points[0]["host_steal"])
            / (points[-1]["host_total"] - points[0]["host_total"]) * 100)


def pressure_percent(series: Series, start: float, end: float) -> float:
    """Share of the window's wall time in which at least one runnable task waited for a CPU (100% = all of it): the
    growth of the kernel's PSI total (cpu_pressure_us, µs) over the time between its first and last reading. NaN
    where it was not sampled (PSI off, an older kernel, a series from before it was read)."""
    return rate_over(series, "cpu_pressure_us", start, end) / 1e6 * 100  # µs waited a second → % of that second


def maximum(series: Series, key: str, start: float, end: float) -> float:
    values = [v[key] for _, v in series.window(start, end) if key in v]
    return max(values) if values else float("nan")


def median(series: Series, key: str, start: float, end: float) -> float:
    values = [v[key] for _, v in series.window(start, end) if key in v]
    return statistics.median(values) if values else float("nan")


def spread_pct(series: Series, key: str, start: float, end: float) -> float:
    """How far a reading moved over the window: its 10th to 90th percentile, in % of its median. NaN under ten
    readings, too few for a decile."""
    values = [v[key] for _, v in series.window(start, end) if key in v]
    if len(values) < 10:
        return float("nan")
    deciles = statistics.quantiles(values, n=10)
    centre = statistics.median(values)
    return (deciles[-1] - deciles[0]) / centre * 100 if centre > 0 else float("nan")


def mean(series: Series, key: str, start: float, end: float) -> float:
    values = [v[key] for _, v in series.window(start, end) if key in v]
    return sum(values) / len(values) if values else float("nan")


def increase(series: Series, key: str, start: float, end: float) -> float:
    """How much a counter grew over the window (e.g. GC pauses during the hold)."""
    values = [v[key] for _, v in series.window(start, end) if key in v]
    return values[-1] - values[0] if len(values) >= 2 else float("nan")


def rate_over(series: Series, key: str, start: float, end: float) -> float:
    """A counter's growth per second between the first and the last reading inside the window."""
    points = [(t, v[key]) for t, v in series.window(start, end) if key in v]
    if len(points) < 2 or points[-1][0] <= points[0][0]:
        return float("nan")
    return (points[-1][1] - points[0][1]) / (points[-1][0] - points[0][0])


def rate_between_changes(series: Series, key: str, start: float, end: float) -> float:
    """A counter that moves in steps (one per event, e.g. per young collection): its growth per second from the
    first reading after its first step in the window to the first after its last, which spans whole steps only;
    NaN with fewer than two steps (a window between two steps says nothing of the rate)."""
    points = [(t, v[key]) for t, v in series.window(start, end) if key in v]
    steps = [b for a, b in zip(points, points[1:], strict=False) if b[1] != a[1]]
    if len(steps) < 2 or steps[-1][0] <= steps[0][0]:
        return float("nan")
    return (steps[-1][1] - steps[0][1]) / (steps[-1][0] - steps[0][0])


# The rig's batch count (hold_batches): a row's figures pass the run's recorded one (holdstats.Hold.rig); this version's
# stands in where no run is at hand.
BATCHES = rig_constants.CURRENT.hold_batches


def per_second_interval(values: Sequence[float], batches: int = BATCHES) -> tuple[float, float]:
    """A per-second series' mean (e.g. k6's successes each second of the hold) and the 95% half-width of that
    mean by batch means: the series cut into `batches` equal runs of seconds, each run's mean one observation.
    Batches of two seconds or more (seconds next to each other are not independent; batches of them nearly are:
    a GC pause spans two seconds, not two batches); under six seconds, of one second, so a short hold still has
    its interval, wider for its few batches. (mean, nan) when too short for three batches; (nan, nan) for no
    seconds at all."""
    if not values:
        return math.nan, math.nan
    mean = sum(values) / len(values)
    # batches of two seconds or more where the hold allows three of them; a hold under six seconds: of one
    batches = min(batches, len(values) // 2) if len(values) >= 6 else len(values)
    if batches < 3:
        return mean, math.nan
    return mean, half_width([sum(values[a:b]) / (b - a) for a, b in batch_bounds(len(values), batches)])


def batch_bounds(length: int, batches: int) -> list[tuple[int, int]]:
    """`length` seconds cut into `batches` runs as equal as whole seconds allow: each run's (first, end)."""
    edges = [round(i * length / batches) for i in range(batches + 1)]
    return list(zip(edges, edges[1:], strict=False))


def half_width(observations: Sequence[float]) -> float:
    """The 95% half-width of the mean of nearly independent observations: Student t × s / √n (nan under two)."""
    n = len(observations)
    if n < 2:
        return math.nan
    mean = sum(observations) / n
    spread = math.sqrt(sum((x - mean) ** 2 for x in observations) / (n - 1))
    return t_975(n - 1) * spread / math.sqrt(n)


def trend(values: Sequence[float], batches: int = BATCHES) -> tuple[float, float]:
    """How far a per-second series drifted over its whole length, as a share of its mean, and the 95%
    half-width of that drift: the least-squares slope through its batch means (seconds next to each other
    are not independent; batches of them nearly are), times the length. (nan, nan) when too short."""
    batches = min(batches, len(values) // 2)
    mean = sum(values) / len(values) if values else 0.0
    if batches < 4 or mean <= 0:
        return math.nan, math.nan
    points = [((a + b) / 2, sum(values[a:b]) / (b - a)) for a, b in batch_bounds(len(values), batches)]
    mean_t = sum(t for t, _ in points) / len(points)
    mean_v = sum(v for _, v in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    slope = sum((t - mean_t) * (v - mean_v) for t, v in points) / spread
    residual = sum((v - mean_v - slope * (t - mean_t)) ** 2 for t, v in points) / (len(points) - 2)
    half_width = t_975(len(points) - 2) * math.sqrt(residual / spread)
    return slope * len(values) / mean, half_width * len(values) / mean


def share_positive(series: Series, key: str, start: float, end: float) -> float:
    """Share of the window's readings in which `key` was above zero (e.g. the pool had waiters)."""
    values = [v[key] for _, v in series.window(start, end) if key in v]
    return sum(1 for value in values if value > 0) / len(values) if values else float("nan")


def recent_rate(series: Series, key: str, now: float, window_s: float = 5.0) -> float:
    """A counter's rate over the last window_s seconds up to `now` (monotonic). 0 when the window holds fewer
    than two readings: a service that answers not even its own scrapes completes nothing (the stall watch
    reads it so)."""
    points = [(t, v[key]) for t, v in series.points[-4 * int(window_s) - 4:] if key in v and t >= now - window_s]
    if len(points) < 2 or points[-1][0] <= points[0][0]:
        return 0.0
    return (points[-1][1] - points[0][1]) / (points[-1][0] - points[0][0])
