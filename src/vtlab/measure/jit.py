"""The JIT's progress in a JVM of ours, read once a tick of the warm-up (measure.settle): its compile time and methods
compiled from HotSpot's own counters (measure.perfdata) where the JVM keeps them, else its compiler threads' CPU from
/proc; and those threads' CPU always. Through the whole row, the same threads' CPU is also read beside the tiers' by the
CPU sampler (with_compiler_cpu), so that the hold's share of it is cut from the row's kept series like the rest."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from vtlab.measure import perfdata, samplers
from vtlab.series import holdstats

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # /proc's CPU ticks a second
PERFDATA, COMPILER_THREADS = "perfdata", "compiler-threads"  # where the JIT's progress was read


def compiler_ticks(pid: int, seen: dict[int, float], proc: Path = Path("/proc"),
                   names: dict[int, bool] | None = None) -> float | None:
    """The CPU ticks the JVM's JIT compiler threads (HotSpot's "C1/C2 CompilerThreadN") have used so far; `seen`
    keeps each thread's last reading, so that one the JVM ends (it adds and retires them as the queue grows and
    shrinks) still counts. `names`, where given, keeps whether each thread is a compiler's, so that its name is read
    once: a compiler thread is added by a compiler thread (HotSpot's CompileBroker, from its compiling loop), so even
    one read before it named itself carries its creator's name. None when the process is gone."""
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
    except OSError:
        return None
    for task in tasks:
        tid = int(task.name)
        try:
            compiler = names.get(tid) if names is not None else None
            if compiler is None:
                compiler = "CompilerThre" in (task / "comm").read_text()
                if names is not None:
                    names[tid] = compiler
            if not compiler:
                continue
            stat = samplers.parse_stat((task / "stat").read_text())
        except OSError:
            continue  # the thread ended between the listing and the read
        seen[tid] = float(stat.own)
    return sum(seen.values())


def with_compiler_cpu(read: Callable[[], dict[str, float]], pid: int | None,
                      proc: Path = Path("/proc")) -> Callable[[], dict[str, float]]:
    """The CPU sampler's `read` with the JVM's compiler threads' CPU seconds so far added to each reading
    (holdstats.JIT_CPU), where `pid` is a JVM of ours; a reading /proc could not give goes without it (the row's
    jit_cpu_ms_per_s stays empty where none was taken). Each thread's name is read once: at the sampler's 4 Hz a
    platform JVM's 200 request threads would otherwise cost 800 reads a second, the rig's own CPU."""
    if pid is None:
        return read
    seen: dict[int, float] = {}
    names: dict[int, bool] = {}

    def read_with() -> dict[str, float]:
        reading = read()
        ticks = compiler_ticks(pid, seen, proc, names)
        if ticks is not None:
            reading[holdstats.JIT_CPU] = ticks / CLOCK_TICKS
        return reading
    return read_with


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
