"""What is read from the service's JVM during the hold only, ticked once a second by the drive loop: its threads'
counters (threadcounts) and, where asked for, its profile (profiler). Neither runs in the warm-up."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vtlab.measure import profiler, threadcounts


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
