"""This machine's A/A points (core.aafloor), kept beside its calibration (plan.machinecache), the newest KEPT of the
last month. `vtlab run --aa` adds each finished A/A's points with an interval; a paired run is planned with what is
kept (cli.flags.plan_of)."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from vtlab.core.aafloor import AA, Floor
from vtlab.plan import machinecache
from vtlab.plan.calibration import machine_key

KIND = "aa-floor"
KEPT = 10  # the newest A/A points kept: enough to see the floor move, few enough that an old one ages out


def path_for(cores: int) -> Path:
    return machinecache.path_for(KIND, cores)


def load(cores: int, now: datetime.datetime | None = None) -> Floor:
    """This machine's A/A floor from its points of the last month: none where it has measured none (or the file is
    another machine's, or unreadable)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    document = machinecache.read(KIND, cores)
    found = Floor.of(document) if document is not None else None
    if found is None:
        return Floor(machine_key(cores))
    return Floor(found.machine, tuple(aa for aa in found.measured if machinecache.recent(aa.measured_at, now)))


def add(cores: int, measured: Sequence[AA], now: datetime.datetime | None = None) -> Floor:
    """`measured` (an A/A run's points) added to this machine's, its usable ones (a run's point kept before replaced),
    the newest KEPT kept; the floor as it now is."""
    before = load(cores, now)
    usable = [aa for aa in measured if aa.usable()]
    if not usable:
        return before
    kept = Floor(before.machine, machinecache.merged(before.measured, usable, lambda aa: (aa.run_dir, aa.point), KEPT))
    machinecache.write(KIND, cores, kept.describe())
    return kept
