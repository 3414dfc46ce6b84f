"""This machine's A/A floor: how far from 1.00× the paired design's answer lay where there was nothing to find.

An A/A (`vtlab run --aa MODE`) measures one configuration against itself on two JVMs, in the same blocks and turns
as any paired run. Its ratio is the false difference the design found on this machine: what two identical JVMs look
like here, their placement, JIT and the host's moving included. A comparison on the same machine is told against the
widest of them, not only against its own interval (the pairs' spread cannot see a difference both arms' JVMs carry
with nothing to find) and not against a floor another machine measured (core.noisefloor's reference is between runs,
on the machine it was measured on).

Every finished A/A's points are kept in the machine's cache (plan.aacache). A paired run records the floor it was
planned with in its plan's record (planner.Plan.aa_floor, metadata.json's plan.paired.aa_floor), so a report read
later judges by what the machine had measured then."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class AA:
    """One A/A point as it was measured: when, in which run folder, at which point (in words), its paired ratio, the
    95% interval and the counted pairs."""
    measured_at: str  # ISO 8601, UTC
    run_dir: str
    point: str
    ratio: float
    low: float
    high: float
    pairs: int

    @property
    def false_difference(self) -> float:
        """How far from 1.00× its ratio lay, as a share, either way alike (on the log scale): 0.02 for 1.02× and for
        1 ÷ 1.02×. Its ratio, not its interval's edge: an A/A of two pairs has an interval Student's t widens 12.7
        times its spread (aa1, 2026-12-02: 1.02× [0.83–1.25]), which says how little two pairs tell, not how far apart
        two identical JVMs are."""
        return max(self.ratio, 1 / self.ratio) - 1

    @property
    def holds_one(self) -> bool:
        return self.low <= 1.0 <= self.high

    def usable(self) -> bool:
        return all(math.isfinite(v) and v > 0 for v in (self.ratio, self.low, self.high)) and self.low <= self.high \
            and self.pairs >= 2


@dataclass(frozen=True)
class Floor:
    """The A/A points this machine has measured, newest last (none: it has measured none yet, which a run records
    too); its floor the widest false difference among them."""
    machine: str
    measured: tuple[AA, ...] = ()

    @property
    def known(self) -> bool:
        return bool(self.measured)

    @property
    def share(self) -> float:
        """The floor, as a share: NaN where no A/A was measured."""
        return max((aa.false_difference for aa in self.measured), default=math.nan)

    @property
    def widest(self) -> AA:
        return max(self.measured, key=lambda aa: aa.false_difference)

    @property
    def held_one(self) -> int:
        """How many of its A/A intervals hold 1.00× (each should, but for one in twenty)."""
        return sum(aa.holds_one for aa in self.measured)

    def band(self) -> tuple[float, float]:
        """The ratios this machine's design cannot tell from 1.00×: [1 ÷ (1 + floor), 1 + floor]."""
        return 1 / (1 + self.share), 1 + self.share

    def holds(self, ratio: float) -> bool:
        """Whether a comparison's ratio lies in the band: no farther from 1.00× than two identical JVMs' have here, so
        a difference its interval shows is no larger than the design's own false one. False where none was measured
        (nothing to tell it from: the interval's own word stands)."""
        if not self.known:
            return False
        lowest, highest = self.band()
        return lowest <= ratio <= highest

    def describe(self) -> dict[str, object]:
        return {"machine": self.machine, "measured": [asdict(aa) for aa in self.measured]}

    @classmethod
    def of(cls, described: Mapping[str, object]) -> Floor | None:
        """From describe()'s dict, as written in a cache file or a run's record, its unusable points left out; None
        where it cannot be read."""
        try:
            measured = tuple(AA(**{**point, "pairs": int(point["pairs"])})  # type: ignore[arg-type]
                             for point in described.get("measured", ()))  # type: ignore[union-attr]
            return cls(str(described["machine"]), tuple(aa for aa in measured if aa.usable()))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            return None
