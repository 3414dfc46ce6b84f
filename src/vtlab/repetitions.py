"""Repetitions of one scenario aggregated: the median with min-max over the valid reps and the spread
warning (pyperf's rule), deterministic on ties."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence

from vtlab import dimensions
from vtlab.verdicts import Aggregate, Verdict

SPREAD_WARNING = 0.10            # pyperf's rule: spread >= 10% of the median deserves a warning

# Repetitions of one scenario: rows equal in every key dimension but the repetition (the registry's).
SCENARIO = dimensions.SCENARIO_KEY


def most_common(values: Sequence[str]) -> str:
    """The most frequent value; a tie goes to the one seen first (rep order), never to a set's hash order."""
    return max(dict.fromkeys(values), key=values.count) if values else ""


def aggregate(verdicts: Sequence[Verdict]) -> tuple[Aggregate, ...]:
    """One line per scenario (in order of first appearance): median with min-max over valid reps, and the
    spread warning. Failed rows never reach here."""
    groups: dict[tuple[str, ...], list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        if not verdict.failed:
            groups[dimensions.key(verdict.row, SCENARIO)].append(verdict)
    return tuple(_aggregate(members) for members in groups.values())


def _aggregate(members: Sequence[Verdict]) -> Aggregate:
    valid = [m for m in members if m.valid] or list(members)
    rps = [m.measured.throughput_rps for m in valid]
    p99 = [m.measured.p99_ms for m in valid if not math.isnan(m.measured.p99_ms)]
    median = statistics.median(rps)
    spread = (max(rps) - min(rps)) / median if median else 0.0
    walls = [m.bottleneck for m in valid]
    return Aggregate(
        row=members[0].row, reps=len(members), valid_reps=sum(1 for m in members if m.valid),
        throughput_median=median, throughput_min=min(rps), throughput_max=max(rps),
        spread=spread, spread_warning=spread >= SPREAD_WARNING and len(rps) > 1,
        p99_median=statistics.median(p99) if p99 else math.nan,
        ceiling_rps=statistics.median(m.ceiling_rps for m in valid),
        limit=most_common([m.limit for m in valid]), bottleneck=most_common(walls),
        # reps that name different walls: the line names the most common and says it was not unanimous
        bottlenecks_seen="/".join(dict.fromkeys(walls)) if len(set(walls)) > 1 else "",
        valid=any(m.valid for m in members),
        flags=tuple(sorted({flag for m in members for flag in m.flags})))
