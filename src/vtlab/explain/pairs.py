"""A paired plan's answers (plan.interleave): at each point, the ratio of arm b's throughput to arm a's, one per pair
of adjacent blocks, and the 95% interval of their geometric mean from the pairs' own spread (Student t over the log
ratios). A drift of the host moves a pair's two blocks nearly alike: what it moves one more than the other is a
block's worth of it, whose linear part the pairs' balanced orders (AB then BA, or BA then AB) cancel over a couple;
what is left of it, and of every faster disturbance, is the pairs' spread, which the interval carries.

What leaves a pair out, and so may leave a point without an answer, is written here and nothing else: a block whose
flags say its figure is not the service's at that load (failures over the threshold, a stall, a saturated or
unpriced generator, the JIT still compiling, a failed row), an arm that served nothing, and two
blocks not measured one right after the other (a resumed run's block beside its partner from the run before).

The JIT still compiling is also read across an arm's blocks (still_compiling), as only a point's blocks show it: a
later block has no warm-up of its own to judge it, and a first block's warm-up saw its own windows only. Where the
arm's CPU a request (the compiler's apart) still fell over its blocks and its rate still rose, each by more than the
warm-up's test allows, each of them whose compiler took more than the test's share of its CPU is jit-not-settled, as
the warm-up would have called it (its excuse for a host with room asks that the CPU a request had stopped falling,
which here it had not): each JVM of spring-petclinic-rest's A/A at 10 users (paa1, 2026-12-02) served
3-4x more by its fourth block than its first, at its own pace, its compiler at 12-23% of its CPU in every block,
and the pairs could not cancel it (0.73x [0.47-1.13], then 1.12x [0.71-1.78] in a second run).

A block that drifted or was noisy because the machine did (MACHINE_DRIFT) stands: the pairing is what
answers for it; so does one whose samplers missed readings (SAMPLING_GAP): its evidence is short, not its throughput."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from vtlab.core import constants as rig_constants
from vtlab.core.arms import Arms, arm_of, point_key
from vtlab.core.studentt import t_975
from vtlab.explain import compiler
from vtlab.explain.model import Measured, Pair, PairedPoint, Verdict
from vtlab.explain.validity import IN_A_PAIR, JIT_NOT_SETTLED, MACHINE_DRIFT, invalidating_beyond

# A sampler's gap (the service's meters unread, a CPU reading short): the row's evidence is missing, not k6's count
# of what it served, which is all a pair compares. A CPU-bound virtual row's scrapes starved (23 of 116 meter
# samples) while k6 counted 895 req/s (seq1, 2026-11-28).
SAMPLING_GAP = "missing-"


def standing(every: Sequence[Verdict], arms: Arms | None, rig: rig_constants.Constants
             ) -> tuple[list[Verdict], tuple[PairedPoint, ...]]:
    """The run's rows with each block its arm's JIT was still compiling in set apart (still_compiling), each block
    that counts in a pair of a point with an interval, and is invalid only for the machine's moving, standing valid
    (its flags kept, IN_A_PAIR beside them: the pairing answers for them; a sampler's gap still leaves the row's own
    evidence short), and every point of a paired run with its ratio (points)."""
    if arms is None:
        return list(every), ()
    compiling = {position for by_arm in _blocks(every, arms).values() for position in still_compiling(by_arm, rig)}
    every = [replace(verdict, valid=False, flags=(*verdict.flags, JIT_NOT_SETTLED))
             if position in compiling and JIT_NOT_SETTLED not in verdict.flags else verdict
             for position, verdict in enumerate(every)]
    found = _blocks(every, arms)
    answered = tuple(_point(by_arm, arms) for by_arm in found.values())
    stand = {by_arm[arm][pair.block][0] for by_arm, point in zip(found.values(), answered, strict=True)
             if not math.isnan(point.low) for pair in point.counted for arm in ("a", "b")}
    return [replace(verdict, valid=True, flags=(*verdict.flags, IN_A_PAIR))
            if position in stand and not verdict.valid and not invalidating_beyond(verdict.flags, MACHINE_DRIFT)
            else verdict for position, verdict in enumerate(every)], answered


def points(every: Sequence[Verdict], arms: Arms | None) -> tuple[PairedPoint, ...]:
    """Every point of a paired run with its ratio, in the order the points were measured; () for a run not paired.
    `every`: the run's rows in the CSV's order, failed ones too (a block a tier died in leaves its pair out). A block
    measured again (a failed one, on --resume) is its last measurement, a failed one never over a measured one."""
    if arms is None:
        return ()
    return tuple(_point(by_arm, arms) for by_arm in _blocks(every, arms).values())


def still_compiling(by_arm: Mapping[str, Mapping[int, tuple[int, Verdict]]], rig: rig_constants.Constants
                    ) -> list[int]:
    """The positions of a point's blocks whose arm's JIT was still compiling and moved what the pairs compare: over
    the arm's blocks its CPU a request, the compiler's apart, fell by more than settle_cpu_fall and its rate rose by
    more than settle_rate_spread (each read from the log-linear fit through them, first to last: noise from block to
    block is not a trend), and the block's compiler took more than settle_jit_share of its CPU. A rate a wall held
    the JIT does not move: the default run's virtual arm at its 50-connection pool got 39% cheaper a request over its
    3 blocks, its compiler at 16-17% of its CPU in the first two, at 47.3, 47.7, 47.6 req/s (2026-12-03), and its
    pairs stand. An arm whose blocks did not all read the compiler's CPU (a --url service, an older CSV) is not
    judged."""
    found = []
    for blocks in by_arm.values():
        measured = [(position, verdict.measured) for _, (position, verdict) in sorted(blocks.items())
                    if not verdict.failed and verdict.measured.throughput_rps > 0]
        if len(measured) < 2 or not compiler.apart([m for _, m in measured]):
            continue
        costs = [compiler.service_cpu_ms_per_s(m) / m.throughput_rps for _, m in measured]
        rise = -fitted_fall([m.throughput_rps for _, m in measured])
        if min(costs) > 0 and fitted_fall(costs) > rig.settle_cpu_fall and rise > rig.settle_rate_spread:
            found += [position for position, m in measured if compiler.share(m) > rig.settle_jit_share]
    return found


def fitted_fall(values: Sequence[float]) -> float:
    """How far the least-squares line through ln(values), in their order, falls from the first to the last: 0.2 is a
    fifth less, a negative fall a rise. Two values: their own fall."""
    xs = range(len(values))
    logs = [math.log(value) for value in values]
    x_mean, y_mean = statistics.fmean(xs), statistics.fmean(logs)
    slope = (sum((x - x_mean) * (y - y_mean) for x, y in zip(xs, logs, strict=True))
             / sum((x - x_mean) ** 2 for x in xs))
    return 1 - math.exp(slope * (len(values) - 1))


def _blocks(every: Sequence[Verdict], arms: Arms) -> dict[tuple[str, ...], dict[str, dict[int, tuple[int, Verdict]]]]:
    """Each point's blocks by arm and number, each with its position in `every` (points says which one is kept)."""
    blocks: dict[tuple[str, ...], dict[str, dict[int, tuple[int, Verdict]]]] = {}
    for position, verdict in enumerate(every):
        key, arm, block = point_key(verdict.row), arm_of(verdict.row, arms), verdict.row.rep
        kept = blocks.setdefault(key, {"a": {}, "b": {}})[arm]
        if block not in kept or not verdict.failed or kept[block][1].failed:
            kept[block] = (position, verdict)
    return blocks


# The most pairs told as a next run's count (or a run's own, where it counted more): beyond it the pairs' spread dwarfs
# the difference, and the run's time with it (3 pairs of 10 s blocks are ~2 min a point here).
MOST_PAIRS = 30


def most_pairs(point: PairedPoint) -> int:
    """The most pairs pairs_to_tell tells for a point: MOST_PAIRS, or the pairs it counted where that is more."""
    return max(MOST_PAIRS, len(point.counted))


def pairs_to_tell(point: PairedPoint, holds: Callable[[float], bool] | None = None) -> int | None:
    """About how many counted pairs, at the point's own pairs' spread, would take its interval off 1.00×: the least n
    with Student's t (n − 1 degrees of freedom) × the log ratios' standard deviation ÷ √n below |log ratio|, the
    count a next run's --blocks would ask; most_pairs + 1 where even most_pairs would not. Read from the spread and
    ratio as they came out, it is the count at which a next run excludes 1.00× about half the time: a plan, not a
    promise. None where that is no question: an A/A's (its interval holding 1.00× is its answer), no interval, one
    that already excludes 1.00×, a ratio that reads 1.00×, pairs with no spread, or a ratio the machine's A/A floor
    holds (`holds`: two identical JVMs differed as much here, so more pairs would only tell that difference)."""
    counted = point.counted
    if (point.arms.aa or not point.computed or len(counted) < 2 or not point.contains_one
            or round(point.ratio, 2) == 1.0 or (holds is not None and holds(point.ratio))):
        return None
    logs = [math.log(pair.ratio) for pair in counted]
    spread, apart = statistics.stdev(logs), abs(statistics.fmean(logs))
    if spread == 0:
        return None
    most = most_pairs(point)
    return next((n for n in range(len(counted) + 1, most + 1) if t_975(n - 1) * spread / math.sqrt(n) < apart),
                most + 1)


def _point(by_arm: Mapping[str, Mapping[int, tuple[int, Verdict]]], arms: Arms) -> PairedPoint:
    first = min(by_arm["a"].values() or by_arm["b"].values(), key=lambda found: found[1].row.rep)[1]
    pairs = tuple(_pair(block, by_arm["a"].get(block), by_arm["b"].get(block))
                  for block in sorted(set(by_arm["a"]) | set(by_arm["b"])))
    counted = [pair for pair in pairs if not pair.why_out]
    turns = all(verdict.measured.taken_in_turns for arm in by_arm.values() for _, verdict in arm.values())
    if not counted:
        whys = "; ".join(dict.fromkeys(pair.why_out for pair in pairs))
        return PairedPoint(first.row, arms, pairs, why_not=f"no pair of blocks counts ({whys})", in_turns=turns)
    logs = [math.log(pair.ratio) for pair in counted]
    centre = statistics.fmean(logs)
    if len(logs) < 2:
        return PairedPoint(first.row, arms, pairs, math.exp(centre), in_turns=turns)
    half = t_975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return PairedPoint(first.row, arms, pairs, math.exp(centre), math.exp(centre - half), math.exp(centre + half),
                       in_turns=turns)


def _pair(block: int, a: tuple[int, Verdict] | None, b: tuple[int, Verdict] | None) -> Pair:
    """Block `block` of both arms, each with its position in the CSV: their order, their throughputs, and why the pair
    counts for nothing where it does not."""
    va, vb = (found[1] if found else None for found in (a, b))
    a_rps, b_rps = (v.measured.throughput_rps if v is not None and not v.failed else math.nan for v in (va, vb))
    whys = [why for arm, verdict in (("a", va), ("b", vb)) if (why := out_of_pair(verdict, arm))]
    if not whys:
        whys += [f"arm {arm} served nothing" for arm, rps in (("a", a_rps), ("b", b_rps)) if not rps > 0]
    if not whys and abs(a[0] - b[0]) != 1:
        whys.append("its blocks not measured one right after the other (a resumed run)")
    order = ("ab" if a[0] < b[0] else "ba") if a is not None and b is not None else ""
    def k6_ms(m: Measured) -> float:
        return m.load_cpu_ms_per_req

    def host_us(m: Measured) -> float:
        return m.host_work_us
    return Pair(block, order, a_rps, b_rps, "; ".join(whys), _figure(va, k6_ms), _figure(vb, k6_ms),
                _figure(va, host_us), _figure(vb, host_us))


def _figure(verdict: Verdict | None, of: Callable[[Measured], float]) -> float:
    return of(verdict.measured) if verdict is not None and not verdict.failed else math.nan


def out_of_pair(verdict: Verdict | None, arm: str) -> str:
    """Why a block counts for nothing in its pair ("" where it counts): not measured, a failed row, or an
    invalidating flag beside the machine's drift (MACHINE_DRIFT) and the samplers' gaps (SAMPLING_GAP)."""
    if verdict is None:
        return f"arm {arm} not measured"
    if verdict.failed:
        return f"arm {arm}: {verdict.flags[0]}"
    kept = beyond_drift(verdict.flags)
    return f"arm {arm}: {', '.join(kept)}" if kept else ""


def beyond_drift(flags: Sequence[str]) -> list[str]:
    """The invalidating flags a block counts for nothing with: all but the machine's drift and the samplers' gaps."""
    return [flag for flag in invalidating_beyond(flags, MACHINE_DRIFT) if not flag.startswith(SAMPLING_GAP)]
