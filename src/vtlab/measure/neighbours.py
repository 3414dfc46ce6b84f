"""Other processes on the machine: how busy it is before a run starts, and who keeps it busy.

A row's numbers assume the machine is vtlab's. Each row records the CPU no tier used (foreign_cpu_pct,
see series.windows.foreign_percent); this module looks once before the first row, so a user learns that a
build or a browser is eating a core before spending an hour measuring beside it. It looks while the run sets up
(the tiers start, the database is seeded): the set-up's own processes are the run's, and a wait of its own before
every run cost each invocation WATCH_S more.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from vtlab.core import constants
from vtlab.measure import samplers
from vtlab.series import windows

WATCH_S = 3.0  # long enough to see a steady neighbour, short enough to wait for at every run
TOP = 3


@dataclass(frozen=True)
class Neighbour:
    pid: int
    command: str
    cpu_pct: float  # of one core


@dataclass(frozen=True)
class HostLoad:
    busy_pct: float  # of the whole machine, every process but ours
    top: list[Neighbour]

    def describe(self) -> str:
        return ", ".join(f"{n.command} (pid {n.pid}) {n.cpu_pct:.0f}% of a core" for n in self.top) or "none"

    watched_s: float = WATCH_S

    def record(self) -> dict[str, object]:
        return {"busy_pct": round(self.busy_pct, 1), "watched_s": round(self.watched_s, 1),
                "top": [{"pid": n.pid, "command": n.command, "cpu_pct": round(n.cpu_pct, 1)} for n in self.top]}


class Watch:
    """The machine's other processes from the moment it is made to `done`: at least WATCH_S, however quickly the
    run set up in between."""

    def __init__(self) -> None:
        self.started, self.host, self.first = time.monotonic(), _host_ticks(), samplers.process_table()

    def done(self, ours: set[int]) -> HostLoad:
        """What processes outside the trees rooted at `ours` (read now: the tiers set up meanwhile) used."""
        time.sleep(max(0.0, WATCH_S - (time.monotonic() - self.started)))
        return _load(self.host, self.first, ours, time.monotonic() - self.started)


def before_run(watching: Watch, ours: set[int]) -> HostLoad:
    """Warn, before the first row, when other processes already use the machine the rows will measure on."""
    host = watching.done(ours)
    if host.busy_pct > constants.CURRENT.foreign_cpu_flag_pct:
        print(f"vtlab: warning: before the run, other processes kept {host.busy_pct:.0f}% of this machine busy "
              f"({host.describe()}); rows measured beside them are flagged (foreign_cpu_pct)", file=sys.stderr)
    return host


def _load(first_host: int, first: dict[int, samplers.ProcStat], ours: set[int], seconds: float) -> HostLoad:
    """The machine's CPU over the `seconds` since `first` that processes outside the trees rooted at `ours` used."""
    last_host, last = _host_ticks(), samplers.process_table()
    mine = _trees(last, ours | {os.getpid()})
    used = {pid: last[pid].total - first[pid].total for pid in last  # a build's finished compilers too
            if pid in first and pid not in mine and last[pid].total > first[pid].total}
    total = last_host - first_host
    busy = sum(used.values()) / total * 100 if total > 0 else float("nan")
    heaviest = sorted(used.items(), key=lambda item: (-item[1], item[0]))[:TOP]
    return HostLoad(busy, [Neighbour(pid, _command(pid), ticks / windows.CLOCK_TICKS / seconds * 100)
                           for pid, ticks in heaviest], seconds)


def _host_ticks() -> int:
    return samplers.parse_host_stat(Path("/proc/stat").read_text())[1]


def _trees(table: dict[int, samplers.ProcStat], roots: set[int]) -> set[int]:
    found, frontier = set(roots), set(roots)
    while frontier:
        frontier = {pid for pid, stat in table.items() if stat.ppid in frontier} - found
        found |= frontier
    return found


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"
