"""The build gate: `--fail-on 'throughput<-5%,p99>+10%'` fails (exit 1) when a significant change crosses a threshold.

A condition names a metric, a direction and a change in % of the base run; for the error rate, whose base is
mostly 0, in percentage points of the requests (`errors>+1%`: one request in a hundred more failed); for a capacity
run's capacity (`capacity<-5%`, compare.capacity), in % of the base's. It is crossed
only by a change the comparison called better or worse (its 95% interval excludes no change) whose estimate lies
beyond the threshold: noise never fails a build, and neither does a real change smaller than the team cares about.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from vtlab.compare.capacity import METRIC as CAPACITY
from vtlab.compare.metrics import BY_NAME
from vtlab.compare.stats import BETTER, WORSE, Change

# Every metric a row comparison measures, and the capacity two capacity runs compare.
GATED = (*BY_NAME, CAPACITY)
_CONDITION = re.compile(r"^\s*(?P<metric>[a-z0-9]+)\s*(?P<op>[<>])\s*(?P<pct>[+-]?\d+(?:\.\d+)?)\s*%\s*$")


class Condition(NamedTuple):
    metric: str
    below: bool         # "<": fails when the change is below the threshold
    threshold: float    # a share of the base (-0.05 for -5%)

    def crossed(self, change: Change) -> bool:
        if change.verdict not in (BETTER, WORSE):
            return False
        moved = change.delta if self.metric == "errors" else change.share
        return moved < self.threshold if self.below else moved > self.threshold

    def __str__(self) -> str:
        return f"{self.metric}{'<' if self.below else '>'}{self.threshold * 100:+g}%"


def parse(text: str) -> tuple[Condition, ...]:
    """Conditions separated by commas; ValueError naming the one that is not `METRIC<PCT%` or `METRIC>PCT%` with a
    metric the comparison measures."""
    conditions = []
    for part in text.split(","):
        match = _CONDITION.match(part)
        if not match:
            raise ValueError(f"--fail-on: '{part.strip()}' is not METRIC<PERCENT% or METRIC>PERCENT% "
                             f"(e.g. 'throughput<-5%,p99>+10%')")
        if match["metric"] not in GATED:
            raise ValueError(f"--fail-on: unknown metric '{match['metric']}'; one of {', '.join(GATED)}")
        conditions.append(Condition(match["metric"], match["op"] == "<", float(match["pct"]) / 100))
    return tuple(conditions)


class Breach(NamedTuple):
    scenario: str
    condition: Condition
    change: Change


def breaches(conditions: Iterable[Condition], changes: Iterable[tuple[str, str, Change]]) -> list[Breach]:
    """Every (scenario, metric, change) that crosses a condition on its metric."""
    listed = list(changes)
    return [Breach(scenario, condition, change) for condition in conditions
            for scenario, metric, change in listed if metric == condition.metric and condition.crossed(change)]
