"""The rig's between-run noise per metric, for a scenario measured once: the same reference runs the throughput's
floor comes from (reference/noise-floor, core.noisefloor), read for every metric a comparison reads."""

from __future__ import annotations

import functools
import math
from pathlib import Path

from vtlab.compare.metrics import METRICS
from vtlab.core import noisefloor
from vtlab.core.noisefloor import Floor
from vtlab.core.settings import NOISE_FLOOR


class Floors:
    """Each metric's floor: the largest coefficient of variation between runs of one reference point. A metric the
    reference runs never measured twice has none (NaN): a single-rep change in it is not judged."""

    def __init__(self, by_column: dict[str, Floor]):
        self.by_column = by_column

    def of(self, column: str) -> Floor:
        return self.by_column.get(column, Floor(math.nan, 0))


def measured(folder: Path = NOISE_FLOOR) -> Floors:
    found = {}
    for metric in METRICS:
        kept = noisefloor.points(folder, metric.column)
        if kept:
            found[metric.column] = max(point.floor for point in kept)
    return Floors(found)


@functools.cache
def current() -> Floors:
    try:
        return measured()
    except (OSError, ValueError):
        return Floors({})
