"""A paired plan's answers (plan.interleave): at each point, the ratio of arm b's throughput to arm a's, one per pair
of adjacent blocks, and the 95% interval of their geometric mean from the pairs' own spread (Student t over the log
ratios). A drift of the host slower than a block moves both blocks of a pair alike and cancels in their ratio;
what is left of it, and of every faster disturbance, is the pairs' spread, which the interval carries.

What leaves a pair out, and so may leave a point without an answer, is written here and nothing else: a block whose
flags say its figure is not the service's at that load (failures over the threshold, a stall, a saturated or
unpriced generator, the JIT still compiling, samples missing, a failed row). A block that drifted or was noisy
because the machine did (DRIFT) stands: the pairing is what answers for it."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from vtlab.core.arms import Arms, arm_of, point_key
from vtlab.core.studentt import t_975
from vtlab.explain.model import Pair, PairedPoint, Verdict
from vtlab.explain.validity import invalidating

# What the machine's own moving does to a block's hold: flags that make a row invalid on its own, never a pair.
DRIFT = ("not-steady", "too-noisy", "noisy-neighbour", "hypervisor-steal")


def points(verdicts: Sequence[Verdict], arms: Arms | None) -> tuple[PairedPoint, ...]:
    """Every point of a paired run with its ratio, in the order the points were measured; () for a run not paired.
    Failed rows count as blocks that are out (a tier died in them)."""
    if arms is None:
        return ()
    blocks: dict[tuple[str, ...], dict[str, dict[int, Verdict]]] = {}
    orders: dict[tuple[str, ...], dict[int, str]] = {}
    for verdict in verdicts:
        key, arm, block = point_key(verdict.row), arm_of(verdict.row, arms), verdict.row.rep
        blocks.setdefault(key, {"a": {}, "b": {}})[arm][block] = verdict
        orders.setdefault(key, {}).setdefault(block, "")
        orders[key][block] += arm
    return tuple(_point(by_arm, orders[key], arms) for key, by_arm in blocks.items() if by_arm["a"])


def _point(by_arm: Mapping[str, Mapping[int, Verdict]], order: Mapping[int, str], arms: Arms) -> PairedPoint:
    first = by_arm["a"][min(by_arm["a"])]
    pairs = tuple(_pair(block, by_arm["a"].get(block), by_arm["b"].get(block), order.get(block, ""))
                  for block in sorted(set(by_arm["a"]) | set(by_arm["b"])))
    counted = [pair for pair in pairs if not pair.why_out]
    if not counted:
        whys = "; ".join(dict.fromkeys(pair.why_out for pair in pairs))
        return PairedPoint(first.row, arms, pairs, why_not=f"no pair of blocks counts ({whys})")
    logs = [math.log(pair.ratio) for pair in counted]
    centre = statistics.fmean(logs)
    if len(logs) < 2:
        return PairedPoint(first.row, arms, pairs, math.exp(centre))
    half = t_975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return PairedPoint(first.row, arms, pairs, math.exp(centre), math.exp(centre - half), math.exp(centre + half))


def _pair(block: int, a: Verdict | None, b: Verdict | None, order: str) -> Pair:
    a_rps = a.measured.throughput_rps if a is not None and not a.failed else math.nan
    b_rps = b.measured.throughput_rps if b is not None and not b.failed else math.nan
    whys = [why for arm, verdict in (("a", a), ("b", b)) if (why := out_of_pair(verdict, arm))]
    if not whys and not a_rps > 0:
        whys.append("arm a served nothing")
    return Pair(block, order, a_rps, b_rps, "; ".join(whys), _k6_ms(a), _k6_ms(b))


def _k6_ms(verdict: Verdict | None) -> float:
    return verdict.measured.load_cpu_ms_per_req if verdict is not None and not verdict.failed else math.nan


def out_of_pair(verdict: Verdict | None, arm: str) -> str:
    """Why a block counts for nothing in its pair ("" where it counts): not measured, a failed row, or an
    invalidating flag beside those of the machine's drift (DRIFT)."""
    if verdict is None:
        return f"arm {arm} not measured"
    if verdict.failed:
        return f"arm {arm}: {verdict.flags[0]}"
    kept = [flag for flag in invalidating(verdict.flags) if flag not in DRIFT]
    return f"arm {arm}: {', '.join(kept)}" if kept else ""
