"""What a paired plan's blocks in turns (measure.turns) ask of the plan: whether its points take turns, how widely a
turn spreads its users' first requests, its least settle, and how long a plan's turns take at most (the run's first
line and its ETA)."""

from __future__ import annotations

from vtlab.core.arms import point_key
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan

# A turn's unrecorded start beyond its users' spread and one request's wait (the last spread user's first answer):
# the live line's second and the samplers' first readings at the new load.
TURN_SETTLE_S = 2.0


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
        settle = max(settle_s(spread, plan.wait_s(row)), spread + plan.warmup_s if first else 0)
        total += settle + plan.hold_s + plan.wait_s(row) + 1
    return total


def settle_s(spread_s: float, wait_s: float) -> float:
    """A turn's unrecorded start at the least: the spread, one request's wait and TURN_SETTLE_S."""
    return spread_s + wait_s + TURN_SETTLE_S
