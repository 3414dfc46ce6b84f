"""The advice tried on this machine that did not help (core.triedbefore), kept beside its calibration
(plan.machinecache), the newest KEPT of the last month. `vtlab advise RUN --try` adds each try that did not help,
a point at a time; every run is planned with what is kept (cli.flags.plan_of), so that its advice does not suggest
it again."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from vtlab.core.triedbefore import NotHelped
from vtlab.plan import machinecache

KIND = "not-helped"
KEPT = 50  # a try's points, a few tries' worth


def load(cores: int, now: datetime.datetime | None = None) -> tuple[NotHelped, ...]:
    """What this machine's tries of the last month found not to help, oldest first (() where none is kept)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    document = machinecache.read(KIND, cores) or {}
    found = document.get("tried", [])
    kept = (NotHelped.of(entry) for entry in found if isinstance(entry, dict)) if isinstance(found, list) else ()
    return tuple(tried for tried in kept if tried is not None and machinecache.recent(tried.measured_at, now))


def add(cores: int, tried: Sequence[NotHelped], now: datetime.datetime | None = None) -> tuple[NotHelped, ...]:
    """`tried` added to what is kept, each in place of one of the same try, flag and point (a resumed try is judged
    again), the newest KEPT kept; all of it as it now is."""
    before = load(cores, now)
    if not tried:
        return before
    kept = machinecache.merged(before, tried, lambda entry: (entry.folder, entry.flag, entry.point), KEPT)
    machinecache.write(KIND, cores, {"tried": [entry.describe() for entry in kept]})
    return kept
