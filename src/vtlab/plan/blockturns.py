"""What a paired plan's blocks in turns (measure.turns) ask of the plan: whether its points take turns, how widely a
turn spreads its users' first requests, its least settle, and how long a plan's turns take at most (the run's first
line and its ETA)."""

from __future__ import annotations

from vtlab.core.arms import point_key
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan

# A turn's unrecorded start beyond its users' spread: the live line's second and the samplers' first readings at the
# new load. Requests begun in a turn's first seconds after the spread, by the second (2026-11-29, dp4, the later turn
# of each arm): 1,000 platform users over a 6 s spread 192, 187, 193 (its hold 190); 1,000 virtual over 2 s 957, 953,
# 951 (hold 945-966); 400 virtual 375, 382, 375 (380); the held point's 100 users 49, 47, 48 (48): at the hold's rate
# from the spread's end. One request's wait more (the 2 s and the wait of before: 9 s a platform turn at 1,000 users)
# measured nothing but time: a block counts the requests begun in it.
TURN_SETTLE_S = 1.0


def fits(plan: Plan) -> bool:
    """Whether a plan's paired points take turns: a paired plan of steady closed-model loads (a user held back by the
    gate is one arrival late in an open model, a shape's stages are k6's own clock), one k6 per arm, no writes (a
    block's writes are counted in the database, which both arms share), a JVM kept between blocks, no memory probe (it
    is taken as a k6 run's hold ends)."""
    return (plan.arms is not None and plan.search_peak_users == 0 and plan.runners == 1 and not plan.jvm_per_row
            and plan.memory_probe != "on"
            and all(row.load_model == "closed" and row.shape == "steady" and row.workload != "write"
                    for row in plan.rows))


def spread_s(plan: Plan, row: Row) -> float:
    """How widely a turn spreads its users' first requests: over the ramp a k6 run of the row would spread them over
    (Plan.spread_ramp_s: one request's wait, or the platform threads' turn at it), one second at the least (a user's
    service, whose wait vtlab does not know)."""
    return float(max(plan.spread_ramp_s(row), 1))


def bound_s(plan: Plan) -> float:
    """A plan's blocks in turns at their longest: each its settle (an arm's first turn at a point up to the plan's
    warm-up) and its hold, and where the other arm's turn follows, a drain of one wait and a second (it overlaps the
    next turn's settle: counted whole, as an upper bound); a block its arm's last went on into (measure.turns), its
    hold alone. What the run's first line and its ETA say."""
    total, seen, before = 0.0, set(), None
    for row in plan.rows:
        arm = (point_key(row), plan.arm(row))
        if arm == before:
            total += plan.hold_s
            continue
        first = arm not in seen
        seen.add(arm)
        before = arm
        spread = spread_s(plan, row)
        settle = max(settle_s(spread), spread + plan.warmup_s if first else 0)
        total += settle + plan.hold_s + plan.wait_s(row) + 1
    return total


def settle_s(spread_s: float) -> float:
    """A turn's unrecorded start at the least: the spread and TURN_SETTLE_S."""
    return spread_s + TURN_SETTLE_S
