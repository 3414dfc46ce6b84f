"""Per-tier CPU on a cluster, from the kubelet's summary (`/api/v1/nodes/NODE/proxy/stats/summary`), as the
samplers' series a local run takes from /proc.

The kubelet does not count live: each pod's cumulative CPU (`cpu.usageCoreNanoSeconds`) is cAdvisor's, refreshed
every 10–15 s and stamped with the moment it was read (`cpu.time`). Sampled every 2 s and stamped with vtlab's
clock, most intervals would show no CPU and a few 10–15 s of it at once: a tier's peak would read ~5× its mean
and the generator look saturated. So an observation keeps the kubelet's own time (`observe`), and the row's
series is made after the load (`resample`): each pod's counter interpolated between its observations onto the
sampler's clock. A peak is then a peak over the kubelet's refresh, never a burst of its bookkeeping, and the
hold's mean is exact to the interpolation between two observations.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from bisect import bisect_right
from collections.abc import Mapping

from vtlab.core import constants
from vtlab.series.windows import CLOCK_TICKS, Series

# The kubelet's and the API server's answers are slower to get than /proc: sampled every 2 s, and the analysis
# judges the sample counts by these intervals (metadata "rig").
CONSTANTS = dataclasses.replace(constants.CURRENT, cpu_interval_s=2.0, meter_interval_s=2.0)

REFRESH_S = 15  # cAdvisor's housekeeping: every 10 s, stretched to 15 s when nothing changes

# Observation keys: "<tier>@<pod>" (ticks) and "<tier>@<pod>@at" (Unix seconds of the kubelet's reading); the
# host (the service's node) as "host@<node>", its cores as "host_cores".
_AT = "@at"


def observe(summary: dict, namespace: str, tiers: Mapping[str, str], host_node: str | None,
            host_cores: int | None) -> dict[str, float]:
    """One node's summary: the cumulative CPU of the row's pods on it (`tiers`: pod name -> the CSV's tier key,
    e.g. "app"), each at the kubelet's time, the service's working set, and the node's own CPU when it is the
    service's (`host_node`)."""
    reading: dict[str, float] = {}
    for pod in summary.get("pods", []):
        ref = pod.get("podRef", {})
        tier = tiers.get(ref.get("name", "")) if ref.get("namespace") == namespace else None
        cpu = pod.get("cpu", {})
        if tier is None or "usageCoreNanoSeconds" not in cpu or "time" not in cpu:
            continue
        key = f"{tier}@{ref['name']}"
        reading[key] = cpu["usageCoreNanoSeconds"] / 1e9 * CLOCK_TICKS
        reading[key + _AT] = unix_s(cpu["time"])
        if tier == "app" and "workingSetBytes" in pod.get("memory", {}):
            reading["rss_kb"] = pod["memory"]["workingSetBytes"] / 1024
    node = summary.get("node", {})
    cpu = node.get("cpu", {})
    if host_node and node.get("nodeName") == host_node and host_cores and "usageCoreNanoSeconds" in cpu:
        reading[f"host@{host_node}"] = cpu["usageCoreNanoSeconds"] / 1e9 * CLOCK_TICKS
        reading[f"host@{host_node}{_AT}"] = unix_s(cpu["time"])
        reading["host_cores"] = float(host_cores)
    return reading


def unix_s(timestamp: str) -> float:
    """An RFC 3339 time as the kubelet writes it (e.g. 2026-11-25T10:00:02.123456789Z) in Unix seconds."""
    text = timestamp.replace("Z", "+00:00")
    if "." in text:  # Python takes at most microseconds: the fraction's leading digits, then its zone
        whole, _, rest = text.partition(".")
        fraction = rest[:len(rest) - len(rest.lstrip("0123456789"))]
        text = f"{whole}.{fraction[:6].ljust(6, '0')}{rest[len(fraction):]}"
    moment = dt.datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{timestamp!r}: the kubelet's time without its zone")
    return moment.timestamp()


def resample(observed: Series, origin_unix_s: float) -> Series:
    """The samplers' CPU series (t in seconds since `origin_unix_s`, the row's clock) from the raw observations:
    at each sample's t, a tier's ticks are the sum of its pods' counters interpolated at that moment. A tier is
    left out of a sample unless every pod of it seen in the row has an observation at or before and at or after
    that moment (a runner that has not started or has gone: unknown, never zero). The host's total ticks are its
    cores × the wall clock, as /proc counts them; nothing else runs on the nodes of the other tiers, so the
    service's node stands for the host."""
    counters: dict[str, list[tuple[float, float]]] = {}  # "<tier>@<pod>" -> [(unix s, ticks)], sorted, distinct
    cores = 0.0
    for _, reading in observed.points:
        cores = reading.get("host_cores", cores)
        for key, value in reading.items():
            if "@" in key and not key.endswith(_AT) and key + _AT in reading:
                counters.setdefault(key, []).append((reading[key + _AT], value))
    for key, points in counters.items():
        counters[key] = sorted(set(points))
    resampled = []
    for t, reading in observed.points:
        at = origin_unix_s + t
        by_tier: dict[str, list[float | None]] = {}
        for key, points in counters.items():
            by_tier.setdefault(key.split("@")[0], []).append(interpolate(points, at))
        known = {tier: sum(values) for tier, values in by_tier.items() if None not in values}
        if not known:  # a sample that knows no tier is no sample (holdstats counts them)
            continue
        sample = {"host_irq": 0.0, "harness_ticks": 0.0}
        if "rss_kb" in reading:
            sample["rss_kb"] = reading["rss_kb"]
        if "host" in known:
            sample.update(host_busy=known.pop("host"), host_total=at * cores * CLOCK_TICKS)
        sample.update({f"{tier}_ticks": ticks for tier, ticks in known.items()})
        resampled.append((t, sample))
    return Series(resampled)


def interpolate(points: list[tuple[float, float]], at: float) -> float | None:
    """A cumulative counter's value at `at`, linear between the observations around it; None outside them."""
    if not points or not points[0][0] <= at <= points[-1][0]:
        return None
    after = bisect_right(points, (at, float("inf")))
    if after >= len(points):
        return points[-1][1]
    (t0, v0), (t1, v1) = points[after - 1], points[after]
    return v0 + (v1 - v0) * (at - t0) / (t1 - t0)
