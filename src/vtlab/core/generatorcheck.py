"""What k6's own CPU costs a row when the tiers share the cores, measured rather than assumed.

bench/generator-crosscheck/crosscheck.py drives one service point with vtlab's k6 (its script and output, as a row
runs it) and with wrk, a dedicated client written in C that spends a fraction of k6's CPU per request, one after the
other, and reads the service's own success counter over the same window for both; its results are kept in
reference/generator-crosscheck/ with the commands that made them. The throughput wrk reached beyond k6's, as a share
of wrk's, is what k6 cost the row: where the host was busy, every core the generator took was a core the service did
not get. The points where that cost is beyond the between-run noise floor price k6: the least busy host among them is
where the rig starts pricing it, and a line through the origin of their cost against the share of the machine k6
took gives the throughput a row loses per share of the machine its generator takes, with its standard error from
those points' residuals and the largest share of the machine k6 took among them. The rig records all four; the
analysis carries a row's predicted loss as a correction where it is bounded (k6's share within the priced range, the
loss's 95% upper end below the whole throughput) and calls the generator interfering where the loss is above the
between-run noise floor and cannot be bounded.
`python -m vtlab.core.generatorcheck` prints every point.
"""

from __future__ import annotations

import csv
import functools
import math
import statistics
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

from vtlab.core import noisefloor
from vtlab.core.studentt import t_975
from vtlab.core.settings import GENERATOR_CROSSCHECK


class Point(NamedTuple):
    delay_ms: int
    connections: int
    k6_rps: tuple[float, ...]   # the service's successes per second over each window k6 drove
    wrk_rps: tuple[float, ...]  # the same, each window wrk drove
    k6_share: float             # k6's CPU as a share of the whole machine (1 = every core), mean of its runs
    wrk_share: float
    host_busy: float            # the machine's busy share while k6 drove it, mean of its runs

    @property
    def loss(self) -> float:
        """What k6 cost the row: the throughput wrk reached beyond k6's (means of their runs), as a share of wrk's."""
        return 1 - statistics.fmean(self.k6_rps) / statistics.fmean(self.wrk_rps)

    def costly(self, noise_share: float) -> bool:
        """k6 cost the row more than the rig's between-run noise (noisefloor: the share one run strays by)."""
        return self.loss > noise_share


class Price(NamedTuple):
    """What the cross-check says k6 costs a row on shared cores: a point is costly where k6 cost it more than the
    between-run noise floor (a cost a second run could not take back)."""
    host_busy_pct: float    # the least busy host at which a point showed a cost: below it, none was seen
    loss_per_share: float   # the least-squares slope through the origin of loss against k6's share, costly points
    # the slope's standard error, from the costly points' residuals about it (n − 1 degrees of freedom: one parameter
    # fitted), and its 95% half-width, t(n − 1) × s.e.; NaN from one costly point, which leaves no residual
    loss_per_share_se: float = math.nan
    loss_per_share_ci95: float = math.nan
    # The largest share of the machine k6 took among the costly points: the slope is priced up to here and not
    # beyond. A line through the origin is what the points were fitted with, not what they showed: the loss fell
    # from 48% at 20% of the machine to 27% at 25%, so a share beyond the measured ones could cost anything, and the
    # slope's interval, which only knows the points' scatter about the line, would not say so.
    share_max: float = math.nan


def points(path: Path = GENERATOR_CROSSCHECK) -> list[Point]:
    """Each point's runs by client, in the order the file first names them."""
    runs: dict[tuple[int, int], dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    with path.open(newline="") as handle:
        for cells in csv.DictReader(handle):
            runs[(int(cells["delay_ms"]), int(cells["connections"]))][cells["client"]].append(cells)

    def mean(rows: list[dict[str, str]], column: str) -> float:
        return statistics.fmean(float(cells[column]) for cells in rows)

    found = []
    for (delay, connections), by_client in runs.items():
        k6, wrk = by_client.get("k6"), by_client.get("wrk")
        if not k6 or not wrk:
            continue
        machine = float(k6[0]["cpus"]) * 100
        found.append(Point(delay, connections, tuple(float(c["rps"]) for c in k6),
                           tuple(float(c["rps"]) for c in wrk), mean(k6, "client_cpu_pct") / machine,
                           mean(wrk, "client_cpu_pct") / machine, mean(k6, "host_cpu_pct") / 100))
    return found


def price(path: Path = GENERATOR_CROSSCHECK, noise_share: float | None = None) -> Price:
    """The host's busy share from which k6 was seen to cost a row, and what each share of the machine it takes
    costs there; a point is costly beyond `noise_share` (the committed noise floor's by default). ValueError where
    no point showed a cost: the file cannot price k6's share."""
    floor = noisefloor.current().half_share if noise_share is None else noise_share
    costly = [point for point in points(path) if point.costly(floor)]
    if not costly:
        raise ValueError(f"{path}: no point where k6 cost the row more than the between-run noise: nothing to price")
    squares = sum(p.k6_share ** 2 for p in costly)
    slope = sum(p.k6_share * p.loss for p in costly) / squares
    df = len(costly) - 1
    residuals = sum((p.loss - slope * p.k6_share) ** 2 for p in costly)
    se = math.sqrt(residuals / df / squares) if df else math.nan
    return Price(min(p.host_busy for p in costly) * 100, slope, se, t_975(df) * se,
                 max(p.k6_share for p in costly))


@functools.cache
def current() -> Price:
    """The price this version of vtlab judges with: the committed cross-check's; NaN (no row judged by it) only
    while it prices nothing — no file yet, or no costly point in it, as while crosscheck.py writes the first."""
    try:
        return price()
    except (OSError, ValueError):
        return Price(math.nan, math.nan)


if __name__ == "__main__":
    for p in points():
        print(f"delay {p.delay_ms} ms, {p.connections} connections: k6 {statistics.fmean(p.k6_rps):.0f} req/s "
              f"({', '.join(f'{r:.0f}' for r in p.k6_rps)}) with {p.k6_share:.1%} of the machine, wrk "
              f"{statistics.fmean(p.wrk_rps):.0f} ({', '.join(f'{r:.0f}' for r in p.wrk_rps)}) with "
              f"{p.wrk_share:.1%}; host {p.host_busy:.1%} busy under k6; k6 cost {p.loss:.1%}"
              + ("" if p.costly(noisefloor.current().half_share) else " (within the between-run noise)"))
    print(f"priced: from a host {current().host_busy_pct:.1f}% busy, {current().loss_per_share:.3f} of the "
          f"throughput per share of the machine k6 takes (s.e. {current().loss_per_share_se:.3f}, 95% "
          f"±{current().loss_per_share_ci95:.3f}), up to {current().share_max:.1%} of the machine")
