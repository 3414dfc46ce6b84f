"""What this machine remembers between runs beside its calibration: a JSON file per kind in the cache, keyed by the
machine as it is (calibration.machine_key), so that another machine — or this one after a kernel or memory change —
reads nothing of it. Its A/A floor (plan.aacache) and the advice tried that did not help (plan.triedcache)."""

from __future__ import annotations

import datetime
import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from vtlab.plan.calibration import MAX_AGE_DAYS, cache_dir, file_key, machine_key

T = TypeVar("T")


def path_for(kind: str, cores: int) -> Path:
    """The kind's file: under $VTLAB_MEMORY where set (the live tests keep theirs apart, so that nothing a test
    measured is taken for the machine's), else the cache's folder."""
    folder = Path(os.environ["VTLAB_MEMORY"]) if os.environ.get("VTLAB_MEMORY") else cache_dir()
    return folder / f"{kind}-{file_key(cores)}.json"


def read(kind: str, cores: int) -> dict | None:
    """The kind's file as written for this machine; None where there is none, it is another machine's or it cannot
    be read."""
    try:
        found = json.loads(path_for(kind, cores).read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and found.get("machine") == machine_key(cores) else None


def write(kind: str, cores: int, document: dict) -> Path:
    """The kind's file replaced whole (renamed into place), this machine's key in it."""
    path = path_for(kind, cores)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(".part")
    part.write_text(json.dumps({**document, "machine": machine_key(cores)}, indent=2) + "\n")
    part.replace(path)
    return path


def merged(before: Sequence[T], added: Sequence[T], same: Callable[[T], object], kept: int) -> tuple[T, ...]:
    """`added` after `before`, each in place of an earlier entry `same` tells it is (a resumed run or try judged
    again), the newest `kept` kept."""
    again = {same(entry) for entry in added}
    return (*(entry for entry in before if same(entry) not in again), *added)[-kept:]


def recent(measured_at: str, now: datetime.datetime) -> bool:
    """Whether a point measured at `measured_at` (ISO 8601) is of the last MAX_AGE_DAYS: a kernel, firmware or
    governor change moves what a machine measures, as its calibration's."""
    try:
        age = (now - datetime.datetime.fromisoformat(measured_at)).total_seconds() / 86_400
    except (TypeError, ValueError):
        age = math.inf
    return age <= MAX_AGE_DAYS
