"""The service's threads as the kernel counts them over the hold: context switches (voluntary: the thread blocked;
involuntary: the scheduler took the core away), the carriers of virtual threads and the CPU of the garbage
collector's threads, read from /proc/PID/task/*/status and stat once a second by the drive loop.

The counters are each thread's own, so the hold's switches are summed thread by thread: from a thread's first
reading in the hold (or from zero, for a thread born during it) to its last. A thread that ended between two
readings loses at most its last second; how many ended is kept beside the figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.measure import samplers
from vtlab.series import windows

# The virtual-thread scheduler is the JVM's first ForkJoinPool; its workers ("ForkJoinPool-1-worker-N") are
# the carriers. The kernel keeps 15 characters of a thread's name.
CARRIER_NAME = "ForkJoinPool-1-"
# HotSpot's collector threads by name: Parallel's and G1's workers ("GC Thread#N"), G1's concurrent ones ("G1 Conc#N",
# "G1 Refine#N", "G1 Main Marker"...), ZGC's and Shenandoah's; and the VM thread, where Serial GC collects (it also
# runs the JVM's other safepoint operations, a small share beside a collection's).
GC_THREAD_NAMES = ("GC Thread", "G1 ", "VM Thread", "ZWorker", "ZDriver", "ZDirector", "Shenandoah")


@dataclass(frozen=True)
class ThreadStatus:
    name: str
    voluntary: int
    involuntary: int
    ticks: int = 0  # the thread's own CPU (user + system), in clock ticks


def parse_status(text: str, stat: str = "") -> ThreadStatus:
    """A thread's /proc status and (for its CPU) its stat."""
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    ticks = samplers.parse_stat(stat).own if stat else 0
    return ThreadStatus(fields.get("Name", "").strip(), int(fields["voluntary_ctxt_switches"]),
                        int(fields["nonvoluntary_ctxt_switches"]), ticks)


def read_threads(pid: int, proc: Path = Path("/proc")) -> dict[int, ThreadStatus]:
    threads: dict[int, ThreadStatus] = {}
    try:
        tids = list((proc / str(pid) / "task").iterdir())
    except OSError:
        return threads
    for tid in tids:
        try:
            threads[int(tid.name)] = parse_status((tid / "status").read_text(), _stat(tid))
        except (OSError, ValueError, KeyError):
            continue  # ended between listing and reading
    return threads


def _stat(task: Path) -> str:
    try:
        return (task / "stat").read_text()
    except OSError:
        return ""  # ended after its status was read: its CPU is its last reading's


@dataclass(frozen=True)
class Switches:
    """What the hold's readings add up to."""
    voluntary_per_s: float
    involuntary_per_s: float
    carriers_max: int
    threads_ended: int
    gc_ticks_per_s: float = 0.0  # the collector's threads' CPU


@dataclass
class ThreadCounts:
    """The readings of one row's hold (start_s..stop_s on the drive loop's clock)."""
    pid: int
    start_s: float
    stop_s: float
    readings: list[tuple[float, dict[int, ThreadStatus]]] = field(default_factory=list)

    def tick(self, elapsed_s: float, proc: Path = Path("/proc")) -> None:
        if self.start_s <= elapsed_s <= self.stop_s:
            self.readings.append((elapsed_s, read_threads(self.pid, proc)))


def summarise(readings: list[tuple[float, dict[int, ThreadStatus]]]) -> Switches | None:
    """The hold's switches per second, thread by thread; None with fewer than two readings (not measured)."""
    if len(readings) < 2 or readings[-1][0] <= readings[0][0]:
        return None
    first_seen: dict[int, ThreadStatus] = dict(readings[0][1])
    last_seen: dict[int, ThreadStatus] = {}
    for _, threads in readings:
        for tid, status in threads.items():
            first_seen.setdefault(tid, ThreadStatus(status.name, 0, 0, 0))  # born during the hold: all its own
            last_seen[tid] = status
    voluntary = sum(last_seen[tid].voluntary - first_seen[tid].voluntary for tid in last_seen)
    involuntary = sum(last_seen[tid].involuntary - first_seen[tid].involuntary for tid in last_seen)
    seconds = readings[-1][0] - readings[0][0]
    carriers = max(sum(1 for status in threads.values() if status.name.startswith(CARRIER_NAME))
                   for _, threads in readings)
    ended = len(set(last_seen) - set(readings[-1][1]))
    gc_ticks = sum(last_seen[tid].ticks - first_seen[tid].ticks for tid in last_seen
                   if last_seen[tid].name.startswith(GC_THREAD_NAMES))
    return Switches(voluntary / seconds, involuntary / seconds, carriers, ended, gc_ticks / seconds)


def columns(switches: Switches | None, requests_per_s: float, virtual: bool) -> dict[str, object]:
    """The row's cells: switches per request (every request of the hold, failed ones too, cost switches) and
    the carriers, on a virtual row only (a platform row's first ForkJoinPool carries no virtual threads)."""
    gc_cpu_pct = switches.gc_ticks_per_s / windows.CLOCK_TICKS * 100 if switches is not None else math.nan
    if switches is None or requests_per_s <= 0:
        return {"csw_voluntary_per_req": math.nan, "csw_involuntary_per_req": math.nan, "carriers_max": "",
                "threads_ended": "", "gc_cpu_pct": gc_cpu_pct}
    return {"csw_voluntary_per_req": switches.voluntary_per_s / requests_per_s,
            "csw_involuntary_per_req": switches.involuntary_per_s / requests_per_s,
            "carriers_max": switches.carriers_max if virtual else "", "threads_ended": switches.threads_ended,
            "gc_cpu_pct": gc_cpu_pct}
