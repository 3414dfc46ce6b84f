"""Which CPUs each tier may use.

With enough cores, each tier gets its own set so none steals from another. Below that, pinning
hurts more than it helps (a JVM pinned to one CPU picks SerialGC and one carrier thread), so the
tiers share every CPU and the per-tier CPU columns show that none saturated.
"""

from __future__ import annotations

import os
from pathlib import Path

TIERS = ("app", "pg", "stub", "load")
MIN_CORES_TO_SPLIT = 8


def available() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def usable_share(cpus: int, quota_cores: float | None) -> float:
    """The share of `cpus` a cgroup's quota lets vtlab's processes use (1 where none binds): under 140 ms per 100 ms
    on 2 cores, 0.7 — the machine then looks 70% busy when every process of the rig is held back by its quota (an
    emulated slower machine), so what is busy is read against what could be."""
    return min(1.0, quota_cores / cpus) if quota_cores and cpus else 1.0


def quota(proc_cgroup: Path = Path("/proc/self/cgroup"), root: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPU this process may use by its cgroups' quotas, in cores (quota / period: the tightest of its cgroup's and
    every ancestor's, where a parent's binds too), or None where none limits it or none can be read: cgroup v2's
    cpu.max, v1's cpu.cfs_quota_us / cpu.cfs_period_us."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    limits: list[float] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        parts = [part for part in path.split("/") if part]
        # the cgroup, then each ancestor up to the mount's root (in a container, its own cgroup is mounted there)
        levels = [Path(*parts[:depth]) for depth in range(len(parts), -1, -1)]
        if controllers == "":  # v2: one hierarchy, at the root or under unified/ in hybrid mode
            found = [_v2_limit(base / level) for base in (root, root / "unified") for level in levels]
        elif "cpu" in controllers.split(","):
            found = [_v1_limit(root / name / level) for name in ("cpu", "cpu,cpuacct", "cpuacct,cpu")
                     for level in levels]
        else:
            continue
        limits += [limit for limit in found if limit is not None]
    return min(limits) if limits else None


def _v2_limit(folder: Path) -> float | None:
    try:
        wanted, period = (folder / "cpu.max").read_text().split()
        return None if wanted == "max" else int(wanted) / int(period)
    except (OSError, ValueError):
        return None


def _v1_limit(folder: Path) -> float | None:
    try:
        wanted = int((folder / "cpu.cfs_quota_us").read_text())
        return None if wanted < 0 else wanted / int((folder / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None


def automatic(cpus: list[int]) -> dict[str, set[int]]:
    if len(cpus) < MIN_CORES_TO_SPLIT:
        return {tier: set(cpus) for tier in TIERS}
    n = len(cpus)
    load = max(2, n // 4)
    stub = 1
    pg = max(1, n // 8)
    app = n - load - stub - pg
    cut = [0, app, app + pg, app + pg + stub, n]
    return {tier: set(cpus[cut[i]:cut[i + 1]]) for i, tier in enumerate(TIERS)}


def parse_cpu_list(text: str) -> set[int]:
    """'0-3,6' or '0-3+6' -> {0, 1, 2, 3, 6}."""
    cpus: set[int] = set()
    for piece in text.replace("+", ",").split(","):
        piece = piece.strip()
        if not piece:
            continue
        if "-" in piece:
            low, high = piece.split("-", 1)
            cpus.update(range(int(low), int(high) + 1))
        else:
            cpus.add(int(piece))
    return cpus


def parse_override(text: str, cpus: list[int]) -> dict[str, set[int]]:
    """'app=0-3 pg=4 stub=5 load=6-7' (space- or slash-separated) over the automatic map."""
    mapping = automatic(cpus)
    for item in text.replace("/", " ").split():
        tier, _, value = item.partition("=")
        if tier not in TIERS or not value:
            raise ValueError(f"expected TIER=CPUS with TIER one of {', '.join(TIERS)}, got {item!r}")
        chosen = parse_cpu_list(value)
        if not chosen <= set(cpus):
            raise ValueError(f"CPUs {sorted(chosen - set(cpus))} are not available (have {describe(set(cpus))})")
        mapping[tier] = chosen
    return mapping


def describe(cpus: set[int]) -> str:
    ordered = sorted(cpus)
    ranges, start = [], None
    for i, cpu in enumerate(ordered):
        if start is None:
            start = cpu
        if i + 1 == len(ordered) or ordered[i + 1] != cpu + 1:
            ranges.append(f"{start}-{cpu}" if cpu != start else f"{cpu}")
            start = None
    return "+".join(ranges)


def describe_map(mapping: dict[str, set[int]]) -> str:
    return " ".join(f"{tier}={describe(mapping[tier])}" for tier in TIERS)
