"""A before/after measured as one (`vtlab compare --service A.jar --vs B.jar`): each point's paired ratio of B's
throughput to A's (explain.pairs) read as a change the gate judges like any other. The change is B ÷ A − 1 with the
interval of the paired ratio: better or worse only where that interval excludes 1.00×, so a drift of the runner
under both jars' blocks moves no verdict, and where one was measured, only where its ratio lies beyond the machine's
A/A floor (core.aafloor: the false difference two identical JVMs showed here); a point without a ratio is unknown,
and a gate asked for fails it rather than let it through (as a capacity search that did not finish)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.core.aafloor import Floor as AAFloor
from vtlab.compare.stats import BETTER, SAME, UNKNOWN, WORSE, Change
from vtlab.explain.model import PairedPoint
from vtlab.report.labels import load_of, scenario_label

METRIC = "throughput"  # the one figure a pair compares: each block's successful requests a second


def change(point: PairedPoint, floor: AAFloor | None = None) -> Change:
    """B against A at one point, as shares of A's throughput (base 1): the paired ratio − 1 and its interval's; the
    same where its ratio lies within the machine's A/A `floor` (no larger than two identical JVMs' false one)."""
    if not point.computed or math.isnan(point.low):
        why = point.why_not or "one pair counted: a ratio without a spread has no interval"
        return Change(1.0, point.ratio, point.ratio - 1, math.nan, math.nan, UNKNOWN, why)
    verdict = BETTER if point.low > 1 else WORSE if point.high < 1 else SAME
    why = ""
    if verdict != SAME and floor is not None and floor.holds(point.ratio):
        verdict, why = SAME, f"no larger than this machine's A/A floor of ±{floor.share:.1%}"
    return Change(1.0, point.ratio, point.ratio - 1, point.low - 1, point.high - 1, verdict, why)


def scenario(point: PairedPoint) -> str:
    return f"{scenario_label(point.row)}, {load_of(point.row)}"


def changes(points: Sequence[PairedPoint], floor: AAFloor | None = None) -> list[tuple[str, str, Change]]:
    """(scenario, "throughput", change) for every point, in the order they were measured, told against the machine's
    A/A `floor` where the run recorded one."""
    return [(scenario(point), METRIC, change(point, floor)) for point in points]


def lines(points: Sequence[PairedPoint], found: list[tuple[str, str, Change]], failed: set[str],
          gated: bool) -> list[str]:
    """The comparison in words, a line a point; `failed`: the scenarios a gate condition failed on; `gated`: whether
    a gate was asked for (which a point without a ratio fails)."""
    if not points:
        return ["no paired point was measured"]
    a, b = points[0].arms.versus
    said = [f"{b} against {a} ({points[0].arms.a} threads), throughput measured as one: B ÷ A in interleaved blocks"]
    for point, (name, _, moved) in zip(points, found, strict=True):
        if moved.verdict == UNKNOWN:
            said.append(f"  {name}: no ratio ({moved.why})" + ("  FAILS the gate: it passes only what was measured"
                                                               if gated else ""))
            continue
        gate = "  FAILS the gate" if name in failed else ""
        within = f": {moved.why}" if moved.why else ""
        said.append(f"  {name}: {moved.share * 100:+.1f}% [{moved.low * 100:+.1f}% to {moved.high * 100:+.1f}%], "
                    f"{len(point.counted)} pairs, {moved.verdict}{within}{gate}")
    return said


def unknown(found: list[tuple[str, str, Change]]) -> bool:
    """Whether a point has no ratio to judge."""
    return any(moved.verdict == UNKNOWN for _, _, moved in found)
