"""Watch the tiers while a row runs: a tier that dies ends the row at once, with what killed it.

Without this a dead service makes k6 hammer a closed port, and the row's numbers — hundreds of
thousands of refused connections a second — read like a measurement. A dead tier makes a failed row:
which tier, how it ended (exit code or signal) and the last lines of its log.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vtlab.rig import ownership
from vtlab.rig.procs import TierDied, ended

@dataclass(frozen=True)
class Probe:
    """One tier: returns how it ended, or None while it lives."""
    tier: str
    check: Callable[[], str | None]
    log: Path | None


def child(tier: str, proc: subprocess.Popen, log: Path | None) -> Probe:
    return Probe(tier, lambda: None if proc.poll() is None else ended(proc.returncode), log)


def daemon(tier: str, pid: Callable[[], int | None], log: Path | None) -> Probe:
    """A process we did not fork (PostgreSQL's postmaster): only /proc can tell it is gone."""
    first = pid()
    known = ownership.Process.read(first) if first else None

    def check() -> str | None:
        if known is None:
            return "was not running"
        return None if ownership.Process.read(known.pid) == known else "is gone (no exit status: not our child)"

    return Probe(tier, check, log)


def check(probes: list[Probe]) -> None:
    """Raise TierDied for the first tier found dead."""
    for probe in probes:
        how = probe.check()
        if how:
            raise TierDied(probe.tier, how, probe.log)
