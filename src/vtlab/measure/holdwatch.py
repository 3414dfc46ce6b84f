"""What is read from the service's JVM during the hold only, ticked once a second by the drive loop: its threads'
counters (threadcounts) and, where asked for, its profile (profiler). Neither runs in the warm-up. And, where asked
for, its memory at the hold's very end (memprobe)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vtlab.measure import memprobe, profiler, threadcounts


@dataclass(frozen=True)
class Watched:
    """What the hold gave: the threads' switches and carriers (None: not read) and the profile's cells."""
    threads: threadcounts.Switches | None
    profile: dict[str, object]

    def cells(self, requests_per_s: float, virtual: bool) -> dict[str, object]:
        return {**threadcounts.columns(self.threads, requests_per_s, virtual), **self.profile}


NOTHING = Watched(None, {})  # a service vtlab has no process of (a --url, a cluster's pod)


class HoldWatch:
    def __init__(self, pid: int, tool: profiler.Tool | None, folder: Path, slug: str, start_s: float, stop_s: float):
        self.counts = threadcounts.ThreadCounts(pid, start_s, stop_s)
        self.profile = profiler.RowProfile(tool, pid, folder, slug, start_s, stop_s) if tool else None

    def tick(self, elapsed_s: float) -> None:
        self.counts.tick(elapsed_s)
        if self.profile is not None:
            self.profile.tick(elapsed_s)

    def stop(self, elapsed_s: float) -> None:
        """The row ended (or was cut short): the profiler lets go of the JVM while it still runs."""
        if self.profile is not None:
            self.profile.stop(elapsed_s)

    def close(self) -> Watched:
        return Watched(threadcounts.summarise(self.counts.readings), self.profile.close() if self.profile else {})


class MemoryProbe:
    """The memory probe of one row: taken once, when the hold's last request has ended (settle.HoldDecider)."""

    def __init__(self, jcmds: Sequence[Path], pid: int | None):
        self.take_probe = memprobe.prober(list(jcmds), pid)
        self.probe: memprobe.Probe | None = None

    def take(self, in_flight: int) -> None:
        if self.take_probe is not None and self.probe is None:
            self.probe = self.take_probe(in_flight)

    def cells(self, settles: bool) -> dict[str, object]:
        """The probe's cells; not taken, why."""
        if self.probe is not None:
            return self.probe.cells()
        why = ("not probed: no jcmd, or a service vtlab has no process of" if self.take_probe is None
               else "not probed: the hold's last requests had not ended when the cool-down did" if settles
               else "not probed: a fixed warm-up or a shaped load has no moment with every user waiting and none "
                    "counted")
        return {**memprobe.NOT_PROBED, "probe_problem": why}
