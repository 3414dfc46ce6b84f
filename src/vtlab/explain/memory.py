"""Memory per waiting request: across the rows of one scenario and thread model at several loads, the least-squares
slope of the memory probe's figures (measure.memprobe) against the requests in flight at the probe, with a 95%
interval from the fit's residuals: the live heap after a full collection (of it, the virtual threads' stack chunks),
the platform threads' stacks committed, and the RSS; and the platform threads' stacks, reserved and committed, per
thread. The heap and the stacks are what a waiting request holds; the RSS also carries the heap the collector has
grown into, so its slope is wide."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from vtlab.core import dimensions
from vtlab.core.studentt import t_975
from vtlab.explain.model import Verdict
from vtlab.explain.validity import OUT_OF_MEMORY


@dataclass(frozen=True)
class Slope:
    """MB = base + slope × requests in flight, the slope in KB per request."""
    per_request_kb: float
    half_kb: float       # its 95% half-width (NaN from two points: a line through them has no residual to tell)
    base_mb: float


@dataclass(frozen=True)
class PerRequest:
    """One scenario's memory per waiting request, in one thread model."""
    scenario: tuple[str, ...]    # every dimension but the load, the thread model and its thread count
    thread_mode: str
    lines: tuple[Verdict, ...]   # the probed rows, fewest requests in flight first
    heap: Slope
    stack_chunks: Slope  # the heap's jdk.internal.vm.StackChunk: a parked virtual thread's frames
    stacks: Slope        # the platform threads' stacks, committed
    rss: Slope
    # the platform threads' stacks at the most loaded row, per thread (Native Memory Tracking; NaN without it)
    stack_reserved_kb: float
    stack_committed_kb: float


NO_SLOPE = Slope(math.nan, math.nan, math.nan)
# What makes rows points of one fit: every dimension but the load, the repetition, the thread model and its thread
# count (platform rows given a thread per user differ in it from load to load).
SCENARIO = tuple(n for n in dimensions.NAMES if n not in ("concurrency", "rep", "thread_mode", "tomcat_max_threads"))


def fit(points: Sequence[tuple[float, float]]) -> Slope:
    """The least-squares line of (requests in flight, MB): its slope in KB per request and the slope's 95% interval
    (Student's t on n-2 degrees of freedom); no slope from fewer than two distinct loads."""
    xs = [x for x, _ in points]
    if len(points) < 2 or max(xs) == min(xs):
        return NO_SLOPE
    n = len(points)
    mean_x, mean_y = sum(xs) / n, sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx
    base = mean_y - slope * mean_x
    if n < 3:
        return Slope(slope * 1024, math.nan, base)
    residual = sum((y - base - slope * x) ** 2 for x, y in points) / (n - 2)
    return Slope(slope * 1024, t_975(n - 2) * math.sqrt(residual / sxx) * 1024, base)


def per_request(verdicts: Sequence[Verdict]) -> list[PerRequest]:
    """Each scenario's and thread model's memory per waiting request, from its rows with a probe (none that failed
    or ran out of memory: such a heap measures the collector's end, not the requests), in the order first seen."""
    groups: dict[tuple[str, ...], list[Verdict]] = {}
    for v in verdicts:
        if v.failed or OUT_OF_MEMORY in v.flags or not v.measured.probe_in_flight > 0:
            continue
        groups.setdefault((dimensions.key(v.row, SCENARIO), v.row.thread_mode), []).append(v)
    told = []
    for (scenario, mode), lines in groups.items():
        lines.sort(key=lambda v: v.measured.probe_in_flight)
        top = lines[-1].measured
        per_thread = 1024 / top.probe_threads if top.probe_threads > 0 else math.nan
        told.append(PerRequest(
            scenario, mode, tuple(lines),
            _fit(lines, lambda m: m.probe_heap_live_mb),
            _fit(lines, lambda m: m.probe_stack_chunks_mb),
            _fit(lines, lambda m: m.probe_stack_committed_mb),
            _fit(lines, lambda m: m.probe_rss_mb),
            _nan_or(top.probe_stack_reserved_mb * per_thread), _nan_or(top.probe_stack_committed_mb * per_thread)))
    return told


def _nan_or(value: float) -> float:
    """math.nan itself for a figure not read: verdicts and fits compare equal only with the one NaN object."""
    return math.nan if math.isnan(value) else value


def _fit(lines: Sequence[Verdict], figure) -> Slope:
    return fit([(v.measured.probe_in_flight, figure(v.measured)) for v in lines
                if not math.isnan(figure(v.measured))])

