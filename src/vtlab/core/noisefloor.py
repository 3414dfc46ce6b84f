"""The rig's between-run noise floor: how far one run's throughput strays from another's at the same point.

Measured, not assumed: the same points run several times in one sitting on a quiet machine, their CSVs kept in
reference/noise-floor/ with the command that made them (its README). The floor is the largest coefficient of
variation between the runs of any one point (sample standard deviation over mean), with how many runs gave it, so
a comparison can take Student t at that count. The rig records both in metadata.json ("rig"): a run analysed later
is judged by the floor it was measured with. `python -m vtlab.core.noisefloor` prints every point's figures.
"""

from __future__ import annotations

import csv
import functools
import json
import math
import statistics
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from vtlab.core.settings import NOISE_FLOOR
from vtlab.core.studentt import t_975


class Floor(NamedTuple):
    cv_pct: float  # between-run standard deviation of one point's throughput, % of its mean (the largest point's)
    runs: int      # the runs of that point

    @property
    def half_share(self) -> float:
        """The 95% half-width, as a share of one run's throughput, of where another run of the point may land:
        Student t at the runs times the coefficient of variation."""
        return t_975(self.runs - 1) * self.cv_pct / 100


class Point(NamedTuple):
    name: str             # the run folder and the point's scenario, as the README's table names it
    throughputs: tuple[float, ...]

    @property
    def floor(self) -> Floor:
        return Floor(statistics.stdev(self.throughputs) / statistics.fmean(self.throughputs) * 100,
                     len(self.throughputs))


def points(folder: Path = NOISE_FLOOR, column: str = "throughput_rps") -> list[Point]:
    """Every point run at least twice under `folder`, in the order first seen, with each run's `column` (the
    throughput unless asked for another metric: vtlab compare reads each one's). A run folder holds the run's
    matrix.csv and metadata.json, whose plan names the dimensions a row has: rows equal in all of them but the rep
    are runs of one point. Rows a tier died in, or without a throughput, are not runs; a run without the column
    gives that point nothing."""
    found: dict[tuple[str, ...], list[float]] = defaultdict(list)
    names: dict[tuple[str, ...], str] = {}
    for path in sorted(folder.glob("*/matrix.csv")):
        planned = json.loads((path.parent / "metadata.json").read_text())["plan"]["rows"]
        point_of = sorted({name for row in planned for name in row} - {"rep"})
        with path.open(newline="") as handle:
            rows = [cells for cells in csv.DictReader(handle) if not cells.get("failed_tier")
                    and math.isfinite(float(cells.get("throughput_rps") or "nan"))]
        varied = [name for name in point_of if len({cells.get(name) for cells in rows}) > 1]
        for cells in rows:
            key = (path.parent.name, *(cells.get(name) or "" for name in point_of))
            names.setdefault(key, f"{path.parent.name}: " + ", ".join(
                f"{name} {cells.get(name)}" for name in dict.fromkeys(("thread_mode", *varied))))
            value = float(cells.get(column) or "nan")
            if math.isfinite(value):
                found[key].append(value)
    return [Point(names[key], tuple(values)) for key, values in found.items()
            if len(values) >= 2 and statistics.fmean(values) > 0]


def measured(folder: Path = NOISE_FLOOR) -> Floor:
    """The floor of the runs kept under `folder`: the point whose runs spread the most. ValueError when no point
    was run at least twice."""
    kept = points(folder)
    if not kept:
        raise ValueError(f"{folder} holds no point run twice: the noise floor is not measured")
    return max(point.floor for point in kept)


@functools.cache
def current() -> Floor:
    """The floor this version of vtlab compares with: the committed measurement's; NaN (no comparison widened by
    it) only where there is none to read, as while the first is being measured."""
    try:
        return measured()
    except (OSError, ValueError):
        return Floor(math.nan, 2)


if __name__ == "__main__":
    for point in points():
        runs = ", ".join(f"{rps:.1f}" for rps in point.throughputs)
        print(f"{point.name}: {len(point.throughputs)} runs, mean {statistics.fmean(point.throughputs):.1f} req/s, "
              f"sd {statistics.stdev(point.throughputs):.2f}, CV {point.floor.cv_pct:.2f}% ({runs})")
    print(f"floor: CV {current().cv_pct:.2f}% over {current().runs} runs")
