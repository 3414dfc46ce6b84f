"""A comparison measured as one (RMIT, after Abedi & Brecht, ICPE 2017): the two arms of a paired plan — platform
and virtual threads, or one mode against itself (A/A) — each on a warm JVM of its own, both up for the run, measured
in short blocks taken in turn. Block k of one arm and block k of the other are a pair, adjacent in time; the pairs'
orders come in balanced couples (AB then BA, or BA then AB), each couple's chosen at random, so that neither a
drift slower than a block nor always going first favours an arm.

This module reads the flags that ask for it, orders a paired plan's rows that way and finds a block's partner. A
row's `rep` is its block; which arm it is of, core.arms says."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from vtlab.core import dimensions
from vtlab.core.arms import Arms, arm_of, point_key, with_arm_b
from vtlab.core.dimensions import Row

# The blocks of each arm at each point when --paired gives no --blocks: four pairs (two balanced couples) are the
# fewest whose interval (Student t, 3 degrees of freedom) is not wider than the pairs' own spread ×1.6.
DEFAULT_BLOCKS = 4


def arms_asked(given: Mapping[str, object]) -> Arms | None:
    """The arms the plan's flags (planner.Overrides, by field) ask for: --paired's platform and virtual, --aa's one
    mode twice, --vs's one mode on two jars, None for none of them; ValueError naming a flag that cannot go with
    them."""
    paired, aa, modes, versus = given.get("paired"), given.get("aa"), given.get("modes"), given.get("versus")
    if given.get("blocks") is not None and not (paired or aa or versus):
        raise ValueError("--blocks: only a paired plan has blocks; add --paired (or --aa MODE)")
    if not (paired or aa or versus):
        return None
    if given.get("reps") is not None:
        raise ValueError("--reps with --paired: a paired plan repeats each point in --blocks, taken in turn")
    if given.get("jvm_per_row"):
        raise ValueError("--jvm-per-row with --paired: a paired plan keeps one warm JVM per arm for the run")
    if given.get("aot") == "on":  # its training starts a service on the rig's port, which the other arm's JVM holds
        raise ValueError("--aot on with --paired: the AOT cache is trained on the service's port, which the other "
                         "arm's JVM holds; leave --aot out")
    if versus:
        if aa is not None:
            raise ValueError(f"--aa {aa} with --vs: a before/after measures two jars, an A/A one jar against itself; "
                             "give one of them")
        if modes is None or len(modes) != 1:
            raise ValueError("--vs compares two jars in one thread mode: add --modes virtual or --modes platform")
        return Arms(str(modes[0]), str(modes[0]), tuple(versus))
    if aa is None:
        return Arms("platform", "virtual")
    if modes is not None and modes != (aa,):
        raise ValueError(f"--aa {aa} with --modes {','.join(modes)}: an A/A measures one mode against itself; leave "
                         "--modes out")
    return Arms(str(aa), str(aa))


def by_profile(blocks: int, hold_s: int, given: Mapping[str, object]) -> tuple[dict[str, object], str]:
    """What a profile that pairs by default (Profile.pair_blocks: its blocks per arm, `hold_s` a block's hold) adds to
    the flags (planner.Overrides, by field): --paired with its blocks and holds, unless given; nothing where the
    profile does not pair, the command lets no profile pair (profile_pairs: only `vtlab run` does) or the flags chose
    a design (--paired, --sequential, --aa, --vs). Where a flag asks for what a paired plan cannot be, nothing either,
    and why the plan measures each mode in its own stretch of time."""
    if (not blocks or not given.get("profile_pairs") or given.get("paired") is not None or given.get("aa")
            or given.get("versus")):
        return {}, ""
    if given.get("unpairable"):
        return {}, str(given["unpairable"])
    modes = given.get("modes")
    if modes is not None and set(modes) != {"platform", "virtual"}:  # type: ignore[arg-type]
        return {}, f"--modes {','.join(modes)}: not both thread modes, so nothing to pair"  # type: ignore[arg-type]
    for flag, dest, why in (("--reps", "reps", "repeats each mode in its own stretch of time"),
                            ("--jvm-per-row", "jvm_per_row", "starts a JVM per row, not one per mode for the run")):
        if given.get(dest):
            return {}, f"{flag} {why}"
    if given.get("aot") == "on":
        return {}, "--aot on trains on the service's port, which the other mode's JVM would hold"
    # what blocks in turns (measure.turns) cannot take, each block a k6 run of its own around a 10 s hold instead
    shapes = given.get("shapes") or ()
    for flag, asked, why in (("--model open", given.get("model") == "open", "arrivals do not wait for a turn"),
                             ("--shape", any(shape != "steady" for shape in shapes), "a shape's stages run on k6's "
                              "clock, not a turn's"),
                             ("--workload write", "write" in (given.get("workloads") or ()), "both modes' writes "
                              "would land in one database"),
                             ("--runners", (given.get("runners") or 1) > 1, "a turn is one k6 per mode"),
                             ("--memory-probe on", given.get("memory_probe") == "on", "the probe is taken as a k6 "
                              "run's hold ends")):
        if asked:
            return {}, f"{flag}: {why}"
    return {"paired": True, "blocks": given.get("blocks") or blocks, "hold_s": given.get("hold_s") or hold_s}, ""


def couples(pairs: int, rng: random.Random) -> tuple[str, ...]:
    """The order of each of `pairs` pairs, "ab" or "ba": balanced couples (ab, ba) or (ba, ab), each chosen by
    `rng`; an odd last pair's order chosen alone."""
    orders: list[str] = []
    while len(orders) < pairs:
        first = rng.choice(("ab", "ba"))
        orders += [first, "ba" if first == "ab" else "ab"]
    return tuple(orders[:pairs])


def interleaved(rows: Sequence[Row], arms: Arms, seed: int) -> tuple[Row, ...]:
    """The rows in the order a paired plan measures them: point by point in the order the first arm meets them (its
    staircase: a block never follows a larger load on its JVM), each point's blocks pair by pair, each pair's
    order from `couples`. ValueError where a point lacks an arm or the arms' blocks differ in number."""
    rng = random.Random(seed)
    points: dict[tuple[str, ...], dict[str, dict[int, Row]]] = {}
    for row in rows:
        points.setdefault(point_key(row), {"a": {}, "b": {}})[arm_of(row, arms)][row.rep] = row
    ordered: list[Row] = []
    for by_arm in points.values():
        blocks_a, blocks_b = sorted(by_arm["a"]), sorted(by_arm["b"])
        if not blocks_a or blocks_a != blocks_b:
            where = dimensions.label(next(iter((by_arm["a"] or by_arm["b"]).values())))
            raise ValueError(f"--paired: {where} is not measured in both arms ({arms.a} and {arms.b}) alike")
        for block, order in zip(blocks_a, couples(len(blocks_a), rng), strict=True):
            ordered += [by_arm[arm][block] for arm in order]
    return tuple(ordered)


def arranged(rows: tuple[Row, ...], arms: Arms, seed: int) -> tuple[Row, ...]:
    """A paired plan's rows, the second arm of one mode added, in the order `interleaved` gives them; ValueError where a
    row's mode is of neither arm."""
    if arms.same_mode:
        rows = (*rows, *(with_arm_b(row) for row in rows))
    others = sorted({row.thread_mode for row in rows} - {arms.a, arms.b})
    if others:
        raise ValueError(f"--paired compares platform with virtual threads; --modes {','.join(others)} cannot be "
                         "one of its arms")
    return interleaved(rows, arms, seed)


def partner(rows: Sequence[Row], arms: Arms, position: int) -> int | None:
    """The position of the other arm's block of the pair the row at `position` is in (None: it has none)."""
    row = rows[position]
    key, arm = point_key(row), arm_of(row, arms)
    return next((i for i, other in enumerate(rows) if other.rep == row.rep and point_key(other) == key
                 and arm_of(other, arms) != arm), None)
