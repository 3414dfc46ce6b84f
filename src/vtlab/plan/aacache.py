"""This machine's A/A points (core.aafloor), kept in the cache beside its calibration: keyed by the machine as it is
(calibration.machine_key), the newest KEPT of the last MAX_AGE_DAYS. `vtlab run --aa` adds each finished A/A's points
with an interval; a paired run is planned with what is kept (cli.flags.plan_of)."""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Sequence
from pathlib import Path

from vtlab.core.aafloor import AA, Floor
from vtlab.plan.calibration import MAX_AGE_DAYS, cache_dir, machine_key

KEPT = 10  # the newest A/A points kept: enough to see the floor move, few enough that an old one ages out


def path_for(cores: int) -> Path:
    safe = "".join(ch if ch.isalnum() else "-" for ch in machine_key(cores)).strip("-")
    return cache_dir() / f"aa-floor-{safe[:150]}.json"


def _age_days(aa: AA, now: datetime.datetime) -> float:
    try:
        return (now - datetime.datetime.fromisoformat(aa.measured_at)).total_seconds() / 86_400
    except (TypeError, ValueError):
        return math.inf


def load(cores: int, now: datetime.datetime | None = None) -> Floor:
    """This machine's A/A floor from its points of the last MAX_AGE_DAYS: none where it has measured none (or the file
    is another machine's, or unreadable)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    machine = machine_key(cores)
    try:
        found = Floor.of(json.loads(path_for(cores).read_text()))
    except (OSError, ValueError):
        found = None
    if found is None or found.machine != machine:
        return Floor(machine)
    return Floor(machine, tuple(aa for aa in found.measured if _age_days(aa, now) <= MAX_AGE_DAYS))


def add(cores: int, measured: Sequence[AA], now: datetime.datetime | None = None) -> Floor:
    """`measured` (an A/A run's points) added to this machine's, its usable ones, the newest KEPT kept; the floor as it
    now is."""
    before = load(cores, now)
    usable = [aa for aa in measured if aa.usable()]
    if not usable:
        return before
    kept = Floor(before.machine, tuple([*before.measured, *usable][-KEPT:]))
    path = path_for(cores)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    part.write_text(json.dumps(kept.describe(), indent=2) + "\n")
    part.replace(path)
    return kept
