"""The JIT's progress in a JVM of ours, read once a tick of the warm-up (measure.settle): its compile time and methods
compiled from HotSpot's own counters (measure.perfdata) where the JVM keeps them, else its compiler threads' CPU from
/proc; and those threads' CPU always."""

from __future__ import annotations

import os
from pathlib import Path

from vtlab.measure import perfdata, samplers

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # /proc's CPU ticks a second
PERFDATA, COMPILER_THREADS = "perfdata", "compiler-threads"  # where the JIT's progress was read


def compiler_ticks(pid: int, seen: dict[int, float], proc: Path = Path("/proc")) -> float | None:
    """The CPU ticks the JVM's JIT compiler threads (HotSpot's "C1/C2 CompilerThreadN") have used so far; `seen`
    keeps each thread's last reading, so that one the JVM ends (it adds and retires them as the queue grows and
    shrinks) still counts. None when the process is gone."""
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            if "CompilerThre" not in (task / "comm").read_text():
                continue
            stat = samplers.parse_stat((task / "stat").read_text())
        except OSError:
            continue  # the thread ended between the listing and the read
        seen[int(task.name)] = float(stat.own)
    return sum(seen.values())


class JitMeter:
    """The JIT's progress in a JVM of ours, a reading a tick: its compile time from HotSpot's counters (perfdata)
    where the JVM keeps them, else its compiler threads' CPU (/proc), which counts no compile count; and its compiler
    threads' CPU always, what is taken out of the service's CPU per request (the counters' compile time is elapsed
    time: on a full host a compile waits for a core, and taking that wait out would make requests look cheaper)."""

    def __init__(self, pid: int, counters: Path | None = None, proc: Path = Path("/proc")):
        self.pid, self.counters, self.proc = pid, counters or perfdata.path_of(pid), proc
        self.threads: dict[int, float] = {}
        self.source = ""
        self.seconds: list[tuple[float, float]] = []   # (Unix s, compile seconds so far)
        self.compiles: list[tuple[float, float]] = []  # (Unix s, methods compiled so far)
        self.cpu: list[tuple[float, float]] = []       # (Unix s, the compiler threads' CPU seconds so far)

    def read(self, now: float) -> None:
        ticks = compiler_ticks(self.pid, self.threads, self.proc)
        if ticks is not None:
            self.cpu.append((now, ticks / CLOCK_TICKS))
        if self.source != COMPILER_THREADS:
            progress = perfdata.compilation(self.counters)
            if progress is not None:
                self.source = PERFDATA
                self.seconds.append((now, progress.seconds))
                self.compiles.append((now, float(progress.compiles)))
                return
        if self.source == PERFDATA or ticks is None:
            return  # a reading missed (the JVM ending): the counters' own series stays one source
        self.source = COMPILER_THREADS
        self.seconds.append((now, ticks / CLOCK_TICKS))
