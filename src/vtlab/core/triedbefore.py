"""Advice tried before that did not help: a setting `vtlab advise RUN --try` re-measured at a point of vtlab's own
service and found no better there (compare.tried's verdict), kept on this machine (plan.triedcache) so that a later
run's advice does not suggest it again at that point. A later run records what was kept when it was planned
(planner.Plan.not_helped), and its advice tells such a line as tried and not helped, never as a thing to try.

A try covers an advised line where the flag is the same, the point is the same (every key dimension but the
repetition: the thread mode, the load and the setting's value as it ran among them) and the size it tried was at
least the one advised now: a pool of 100 that did not help says nothing of a pool of 400, but a pool of 100 says a
pool of 80 will not either."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from vtlab.core import dimensions

# What tells one point of vtlab's own service from another: every key dimension but the repetition.
POINT = tuple(name for name in dimensions.RESUME_KEY if name != "rep")


def point_of(row: object) -> str:
    """A row's point, as kept: its POINT dimensions' values joined."""
    return "|".join(dimensions.key(row, POINT))


def split_flag(flag: str) -> tuple[str, str]:
    """ "--pools 100" → ("--pools", "100"); a flag without a value its value ""."""
    name, _, value = flag.strip().partition(" ")
    return name, value.strip()


@dataclass(frozen=True)
class NotHelped:
    """One setting tried at one point that did not help: when, in which try's folder, the flag and the size tried,
    the point (point_of) and where it was in words, and the try's line in words."""
    measured_at: str  # ISO 8601, UTC
    folder: str
    flag: str
    value: str
    point: str
    where: str
    said: str

    def covers(self, row: object, flag: str) -> bool:
        """Whether this try answers an advised line at `row` whose flag is `flag` ("--pools 80")."""
        name, value = split_flag(flag)
        if name != self.flag or point_of(row) != self.point:
            return False
        return value == self.value or _at_least(self.value, value)

    def describe(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def of(cls, described: Mapping[str, object]) -> NotHelped | None:
        """From describe()'s dict; None where it cannot be read."""
        try:
            return cls(**{name: str(described[name]) for name in cls.__dataclass_fields__})
        except (KeyError, TypeError):
            return None


def _at_least(tried: str, advised: str) -> bool:
    try:
        return math.isfinite(float(tried)) and float(tried) >= float(advised)
    except ValueError:
        return False


def covering(kept: tuple[NotHelped, ...], row: object, flag: str) -> NotHelped | None:
    """The newest try kept that answers an advised line (None: none does, or the line advises no flag)."""
    return next((tried for tried in reversed(kept) if flag and tried.covers(row, flag)), None)
