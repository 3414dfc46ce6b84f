"""The objective a capacity is measured at (`vtlab capacity --slo 'p99<=500ms,errors<=0.1%'`): conditions on a
latency percentile or on the error rate, each an upper limit, all of which a load must meet. Parsed once here, so
the search, capacity.json and the summary read the same conditions."""

from __future__ import annotations

import re
from typing import NamedTuple

# The percentiles an objective may name, as the share of requests each one is.
PERCENTILES = {"p50": 0.50, "p90": 0.90, "p99": 0.99, "p99.9": 0.999}
ERRORS = "errors"
ACCEPTED = ("conditions joined by commas, each METRIC<=LIMIT: p50, p90, p99 or p99.9 in ms or s (e.g. p99<=500ms, "
            "p99.9<=1.5s) or errors in % (e.g. errors<=0.1%)")

_CONDITION = re.compile(r"^\s*(?P<metric>p50|p90|p99\.9|p99|errors)\s*<=\s*(?P<limit>\d+(?:\.\d+)?)\s*"
                        r"(?P<unit>ms|s|%)\s*$")
_UNITS = {"ms": 1.0, "s": 1000.0, "%": 0.01}


class Condition(NamedTuple):
    metric: str     # a key of PERCENTILES, or ERRORS
    limit: float    # ms for a percentile; a share of the requests (0.001 for 0.1%) for the error rate

    @property
    def is_errors(self) -> bool:
        return self.metric == ERRORS

    def __str__(self) -> str:
        if self.is_errors:
            return f"errors<={self.limit * 100:g}%"
        return f"{self.metric}<={self.limit:g}ms"

    def limit_text(self) -> str:
        return f"{self.limit * 100:g}%" if self.is_errors else f"{self.limit:g} ms"


class Objective(NamedTuple):
    conditions: tuple[Condition, ...]

    def __str__(self) -> str:
        return ",".join(str(c) for c in self.conditions)


def parse(text: str) -> Objective:
    """The conditions of `text`; ValueError naming the part that is not one and the forms accepted. A percentile's
    limit takes ms or s and the error rate's %, nothing else: a bare number would leave its unit to a guess."""
    conditions: list[Condition] = []
    for part in text.split(","):
        match = _CONDITION.match(part)
        if not match or (match["metric"] == ERRORS) != (match["unit"] == "%"):
            raise ValueError(f"'{part.strip()}' is not accepted; use {ACCEPTED}")
        condition = Condition(match["metric"], float(match["limit"]) * _UNITS[match["unit"]])
        if condition.is_errors and condition.limit > 1:
            raise ValueError(f"'{part.strip()}' is not accepted: an error rate is at most 100%; use {ACCEPTED}")
        if not condition.is_errors and condition.limit <= 0:
            raise ValueError(f"'{part.strip()}' is not accepted: no response takes 0 ms; use {ACCEPTED}")
        if any(c.metric == condition.metric for c in conditions):
            raise ValueError(f"'{text}' is not accepted: {condition.metric} is limited twice; use {ACCEPTED}")
        conditions.append(condition)
    return Objective(tuple(conditions))
