"""Run metadata: a plain dict filled by small collectors that read the system defensively."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

from vtlab.core.settings import APP_HOST, PG_HOST, REPO, STUB_HOST


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def git_commit() -> str:
    result = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True)
    if result.returncode != 0:
        return "unknown"
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return result.stdout.strip() + ("-dirty" if dirty else "")


def java_version(java: Path) -> str:
    result = subprocess.run([str(java), "-version"], capture_output=True, text=True)
    return (result.stderr or result.stdout).splitlines()[0] if result.returncode == 0 else "unknown"


def perf_event_paranoid() -> int | None:
    try:
        return int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
    except (OSError, ValueError):
        return None


def collect(java: Path, k6_version: str, core_map: str) -> dict[str, object]:
    addresses = {"service": APP_HOST, "stub": STUB_HOST, "PostgreSQL": PG_HOST}
    return {
        "host": {
            "cpu_model": cpu_model(),
            "cpu_count": os.cpu_count(),
            "cpus_available": len(os.sched_getaffinity(0)),
            "memory_gib": memory_gib(),
            "kernel": platform.release(),
            "os": platform.platform(),
            "loopback": "all tiers on one host over loopback: no network latency between them",
            "addresses": addresses,
            # whether async-profiler may sample the CPU with perf_events (<= 1, or root): else it falls back to a timer
            "perf_event_paranoid": perf_event_paranoid(),
        },
        "versions": {
            "java": java_version(java),
            "k6": k6_version,
            "python": platform.python_version(),
            "vtlab_commit": git_commit(),
        },
        "core_map": core_map,
    }
