"""The rig's between-run noise floor: how far one run's throughput (or allocation, or GC pause) strays from
another's at the same point.

Measured, not assumed: the same points run several times in one sitting on a quiet machine, their CSVs kept in
reference/noise-floor/ with the command that made them (its README). A metric's floor is the largest coefficient of
variation between the runs of any one point (sample standard deviation over mean), with how many runs gave it, so
a comparison can take Student t at that count. The rig records the throughput's, the allocation's and the GC
pauses' in metadata.json ("rig"): a run analysed later is judged by the floors it was measured with. A metric the
reference runs did not record has no floor (NaN over 0 runs) and the reason why, never a stand-in.
`python -m vtlab.core.noisefloor` prints every point's figures.
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
    cv_pct: float  # between-run standard deviation of one point's metric, % of its mean (the largest point's)
    runs: int      # the runs of that point; 0 where no floor was measured

    @property
    def half_share(self) -> float:
        """The 95% half-width, as a share of one run's throughput, of where another run of the point may land:
        Student t at the runs times the coefficient of variation."""
        return t_975(self.runs - 1) * self.cv_pct / 100


def half_share(rig) -> float:
    """The 95% half-width, as a share of one run's throughput, of where another run of the same point may land: the
    rig's recorded floor (core.constants: noise_floor_cv_pct, noise_floor_runs; reference/noise-floor/)."""
    return Floor(rig.noise_floor_cv_pct, rig.noise_floor_runs).half_share


NONE = Floor(math.nan, 0)  # no floor measured: nothing is widened by it, and a one-rep change is not judged by it

# The metrics whose floors the rig records, by matrix.csv column: the prefix of their two fields in the rig's
# constants (PREFIX_cv_pct, PREFIX_runs: constants.floor) and the unit the README prints them in
RECORDED = {"throughput_rps": ("noise_floor", "req/s"),
            "alloc_kb_per_req": ("noise_floor_alloc", "KiB per request"),
            "gc_pause_ms_per_1k_req": ("noise_floor_gc", "ms paused per 1,000 requests")}


class Point(NamedTuple):
    name: str             # the run folder and the point's scenario, as the README's table names it
    values: tuple[float, ...]  # each run's value of the metric read

    @property
    def floor(self) -> Floor:
        return Floor(statistics.stdev(self.values) / statistics.fmean(self.values) * 100, len(self.values))


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


def measured(folder: Path = NOISE_FLOOR, column: str = "throughput_rps") -> Floor:
    """The floor of `column` in the runs kept under `folder`: the point whose runs spread the most. ValueError
    saying why when no point was run at least twice with the column filled in."""
    kept = points(folder, column)
    if not kept:
        raise ValueError(_why_none(folder, column))
    return max(point.floor for point in kept)


def _why_none(folder: Path, column: str) -> str:
    # which it is decides what would measure it: runs of a newer vtlab, or more runs of a point
    tables = []
    for path in sorted(folder.glob("*/matrix.csv")):
        with path.open(newline="") as handle:
            reader = csv.DictReader(handle)
            tables.append((reader.fieldnames or [], [cells.get(column) for cells in reader]))
    where = f"the reference runs ({folder.parent.name}/{folder.name}/)"
    if not tables:
        return f"{where}: none, the noise floor is not measured"
    if not any(column in header for header, _ in tables):
        return f"{where} have no {column} column: they were recorded before it was"
    if not any(value for _, values in tables for value in values):
        return f"{where} left {column} empty in every row"
    return f"{where} hold no point run twice with {column} measured"


@functools.cache
def current(column: str = "throughput_rps") -> Floor:
    """The floor of `column` this version of vtlab compares with: the committed measurement's; NONE (no comparison
    widened by it) where there is none to read: a metric the reference runs lack, or while the first is measured."""
    return _current(column)[0]


@functools.cache
def why_none(column: str) -> str:
    """Why `column` has no floor in this version ("" where it has one)."""
    return _current(column)[1]


def _current(column: str) -> tuple[Floor, str]:
    try:
        return measured(NOISE_FLOOR, column), ""
    except (OSError, ValueError) as err:
        return NONE, str(err)


if __name__ == "__main__":
    for column, (_, unit) in RECORDED.items():
        print(f"{column} ({unit}):")
        for point in points(column=column):
            runs = ", ".join(f"{value:.1f}" for value in point.values)
            print(f"  {point.name}: {len(point.values)} runs, mean {statistics.fmean(point.values):.1f}, "
                  f"sd {statistics.stdev(point.values):.2f}, CV {point.floor.cv_pct:.2f}% ({runs})")
        floor = current(column)
        print(f"  floor: CV {floor.cv_pct:.2f}% over {floor.runs} runs" if floor.runs else
              f"  no floor: {why_none(column)}")
