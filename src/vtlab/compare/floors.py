"""The rig's between-run noise per metric, for a scenario measured once: the same reference runs the throughput's
floor comes from (reference/noise-floor, core.noisefloor), read for every metric a comparison reads; for the
metrics the rig records a floor of (throughput, allocation, GC pauses), the one each run recorded."""

from __future__ import annotations

import functools
import math
from pathlib import Path

from vtlab.compare.metrics import METRICS
from vtlab.core import constants, noisefloor
from vtlab.core.noisefloor import Floor
from vtlab.core.settings import NOISE_FLOOR


class Floors:
    """Each metric's floor: the largest coefficient of variation between runs of one reference point. A metric the
    reference runs never measured twice has none (NaN) and the reason why: a single-rep change in it is not
    judged."""

    def __init__(self, by_column: dict[str, Floor], why: dict[str, str] | None = None):
        self.by_column = by_column
        self.why = why or {}

    def of(self, column: str) -> Floor:
        return self.by_column.get(column, noisefloor.NONE)

    def why_none(self, column: str) -> str:
        """What a `?` says of a one-rep change in `column`: that no floor was measured for it, and why."""
        reason = self.why.get(column, "the reference runs did not measure it twice")
        return f"no floor measured for {column}: {reason}"

    def recorded_by(self, rig: constants.Constants) -> Floors:
        """These floors with the ones the run's rig recorded in their place: a run is judged by the floors it was
        measured with (a run from before they were recorded gets this version's, as its rig does)."""
        by_column, why = dict(self.by_column), dict(self.why)
        for column in noisefloor.RECORDED:
            floor = constants.floor(rig, column)
            if floor is None:
                continue
            if floor.runs >= 2 and math.isfinite(floor.cv_pct):
                by_column[column] = floor
                why.pop(column, None)
            else:
                by_column.pop(column, None)
                why.setdefault(column, "none was recorded with the run")
        return Floors(by_column, why)


def measured(folder: Path = NOISE_FLOOR) -> Floors:
    found, why = {}, {}
    for metric in METRICS:
        try:
            found[metric.column] = noisefloor.measured(folder, metric.column)
        except ValueError as err:
            why[metric.column] = str(err)
    return Floors(found, why)


@functools.cache
def current() -> Floors:
    try:
        return measured()
    except OSError as err:
        return Floors({}, {metric.column: f"the reference runs cannot be read ({err})" for metric in METRICS})
