"""Virtual ÷ platform between two aggregates, computed from valid ones only: the ratio of the throughputs their
headline cells show and the range both 95% intervals allow; where a mode is missing, has no valid rep or served
nothing, no ratio, and why."""

from __future__ import annotations

import math
from dataclasses import dataclass

from vtlab.explain.model import Aggregate
from vtlab.report import validrows


@dataclass(frozen=True)
class Ratio:
    value: float = math.nan
    low: float = math.nan   # low ÷ high to high ÷ low of the two intervals; NaN where they allow no range
    high: float = math.nan
    why_not: str = ""       # where no ratio was computed: why, in words

    @property
    def computed(self) -> bool:
        return not self.why_not

    def text(self) -> str:
        """ "4.92× [4.85–4.99]", "4.50×" without a range, or "no ratio: no valid platform row (too-noisy)"."""
        if not self.computed:
            return f"no ratio: {self.why_not}"
        ranged = "" if math.isnan(self.low) else f" [{self.low:.2f}–{self.high:.2f}]"
        return f"{self.value:.2f}×{ranged}"


def told_rps(line: Aggregate) -> float:
    """The throughput a line is told with, and the one its ratio divides: one rep's own, several reps' mean. The
    mean, not the reps' median: the headline cell shows it as the centre of its 95% interval and the ratio's range
    joins those intervals, so a ratio of medians could stand outside its own brackets."""
    return line.line.measured.throughput_rps


def between(platform: Aggregate | None, virtual: Aggregate | None) -> Ratio:
    """virtual ÷ platform where both were measured, both have a valid rep and platform served something."""
    if platform is None or virtual is None:
        missing = [mode for mode, line in (("platform", platform), ("virtual", virtual)) if line is None]
        return Ratio(why_not=" and ".join(missing) + " threads not measured here")
    invalid = [validrows.none_valid(mode, [line]) for mode, line in (("platform", platform), ("virtual", virtual))
               if not line.valid]
    if invalid:
        return Ratio(why_not="; ".join(invalid))
    p, v = told_rps(platform), told_rps(virtual)
    if not p > 0:
        return Ratio(why_not="the platform threads served nothing")
    if not (platform.interval_known and virtual.interval_known and platform.interval_low > 0):
        return Ratio(v / p)
    return Ratio(v / p, virtual.interval_low / platform.interval_high, virtual.interval_high / platform.interval_low)
