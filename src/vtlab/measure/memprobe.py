"""What the requests waiting in the service hold: read once per row, at the one moment when every user waits on a
request and none of them is counted — the hold's last request has ended and the users wait on requests of the
cool-down (measure.settle ends the row right after). Read then:

- the live heap after a full collection, and what it is made of: `jcmd GC.class_histogram` (which collects first);
- the service's RSS;
- with Native Memory Tracking (planner.NATIVE_MEMORY_TRACKING, on for the row), its platform threads and their
  stacks, reserved and committed (`jcmd VM.native_memory summary`). A virtual thread's stack lives in the heap, as
  stack chunks, and is counted there.

The collection pauses the service, which only the cool-down's requests see. Across rows of one scenario at several
loads, the slope of these figures against the requests in flight is the memory each waiting request costs
(explain.memory).
"""

from __future__ import annotations

import math
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.measure import samplers

JCMD_TIMEOUT_S = 60       # a full collection of a few GB on 2 busy cores, and the attach
TOP_CLASSES = 8           # what the live heap is made of: its largest classes by bytes
STACK_CHUNK = "jdk.internal.vm.StackChunk"  # a parked virtual thread's frames, in the heap

_TOTAL = re.compile(r"^Total\s+(\d+)\s+(\d+)\s*$", re.MULTILINE)
_CLASS_LINE = re.compile(r"^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", re.MULTILINE)
_THREAD_SECTION = re.compile(r"-\s+Thread \(reserved=(\d+)KB, committed=(\d+)KB\)\s*\n\s*\(threads #(\d+)\)"
                             r"\s*\n\s*\(stack: reserved=(\d+)KB, committed=(\d+)KB")  # JDK 25 adds ", peak=…"


@dataclass(frozen=True)
class Probe:
    in_flight: int                       # requests k6 had in flight at the probe (every user's, in a closed row)
    heap_live_mb: float = math.nan       # live objects after a full collection
    stack_chunks_mb: float = math.nan    # of them, the virtual threads' stack chunks
    rss_mb: float = math.nan
    top_classes: dict[str, float] = field(default_factory=dict)  # class -> MB, largest first
    threads: float = math.nan            # platform threads (NMT)
    stack_reserved_mb: float = math.nan  # their stacks (NMT)
    stack_committed_mb: float = math.nan
    problem: str = ""                    # why a figure is missing

    def cells(self) -> dict[str, object]:
        return {"probe_in_flight": self.in_flight, "probe_heap_live_mb": self.heap_live_mb,
                "probe_stack_chunks_mb": self.stack_chunks_mb, "probe_rss_mb": self.rss_mb,
                "probe_top_classes": ";".join(f"{name}={mb:.1f}" for name, mb in self.top_classes.items()),
                "probe_threads": self.threads, "probe_stack_reserved_mb": self.stack_reserved_mb,
                "probe_stack_committed_mb": self.stack_committed_mb, "probe_problem": self.problem}


NOT_PROBED = {column: "" for column in Probe(0).cells()}  # every cell of the probe, empty


def parse_histogram(text: str) -> tuple[float, dict[str, float]]:
    """(live bytes in all, every class's MB, largest first) from `jcmd GC.class_histogram`."""
    total = _TOTAL.search(text)
    if not total:
        raise ValueError("no Total line in the class histogram")
    classes = sorted(((int(nbytes), name) for _, nbytes, name in _CLASS_LINE.findall(text)), reverse=True)
    return float(total.group(2)), {name: nbytes / 2**20 for nbytes, name in classes}


def parse_threads(text: str) -> tuple[int, float, float]:
    """(platform threads, their stacks reserved and committed in KB) from `jcmd VM.native_memory summary`."""
    section = _THREAD_SECTION.search(text)
    if not section:
        raise ValueError("no Thread section in the native memory summary")
    return int(section.group(3)), float(section.group(4)), float(section.group(5))


def prober(jcmds: list[Path], pid: int | None) -> Callable[[int], Probe] | None:
    """The probe of the service `pid` (None: a service vtlab has no process of) by the first of `jcmds` that exists
    (the row's runtime's, else vtlab's own); Native Memory Tracking is on for it (planner.Plan.service_options)."""
    jcmd = next((tool for tool in jcmds if tool.exists()), None)
    if pid is None or jcmd is None:
        return None
    return lambda in_flight: take(jcmd, pid, in_flight, tracked=True)


def take(jcmd: Path, pid: int, in_flight: int, tracked: bool) -> Probe:
    """The probe of the service `pid` with `in_flight` requests waiting in it; `tracked`: NMT is on. Never raises:
    a figure it could not read is missing, with why."""
    problems: list[str] = []
    heap, chunks, classes = math.nan, math.nan, {}
    try:
        total, every = parse_histogram(_jcmd(jcmd, pid, "GC.class_histogram"))
        heap, chunks = total / 2**20, every.get(STACK_CHUNK, 0.0)
        classes = dict(list(every.items())[:TOP_CLASSES])
    except (OSError, ValueError, subprocess.SubprocessError) as err:
        problems.append(f"heap: {err}")
    try:
        rss = samplers.parse_rss_kb(Path(f"/proc/{pid}/statm").read_text()) / 1024
    except OSError as err:
        rss = math.nan
        problems.append(f"rss: {err}")
    threads, reserved, committed = math.nan, math.nan, math.nan
    if tracked:
        try:
            count, reserved_kb, committed_kb = parse_threads(_jcmd(jcmd, pid, "VM.native_memory", "summary"))
            threads, reserved, committed = float(count), reserved_kb / 1024, committed_kb / 1024
        except (OSError, ValueError, subprocess.SubprocessError) as err:
            problems.append(f"threads: {err}")
    return Probe(in_flight, heap, chunks, rss, classes, threads, reserved, committed, "; ".join(problems))


def _jcmd(jcmd: Path, pid: int, *command: str) -> str:
    done = subprocess.run([str(jcmd), str(pid), *command], capture_output=True, text=True, timeout=JCMD_TIMEOUT_S)
    if done.returncode != 0:
        raise ValueError(f"jcmd {command[0]} exited with {done.returncode}: {(done.stderr or done.stdout)[-200:]}")
    return done.stdout
