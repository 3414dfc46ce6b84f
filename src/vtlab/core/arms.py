"""The two arms of a paired plan (plan.interleave) — platform against virtual threads, one mode against itself (A/A),
or one mode on two jars of the user's service (before/after, --vs) — and which arm, point and block a row is of:
what the plan orders by and the analysis pairs by."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from vtlab.core import dimensions

# The second arm of one mode (an A/A, a before/after) runs with this one system property more, which nothing reads:
# the two arms differ in the JVM they run on (and a before/after's in its jar), and the rows' key (jvm_opts) tells
# them apart.
ARM_B_OPTION = "-Dvtlab.arm=b"


@dataclass(frozen=True)
class Arms:
    """The thread modes of arms `a` and `b`; the same mode twice is an A/A, or a before/after where `versus` names
    the jars (arm a's, arm b's)."""
    a: str
    b: str
    versus: tuple[str, str] = ()

    @property
    def same_mode(self) -> bool:
        return self.a == self.b

    @property
    def aa(self) -> bool:
        return self.same_mode and not self.versus

    def describe(self) -> dict[str, object]:
        return {"a": self.a, "b": self.b, "aa": self.aa, **({"versus": list(self.versus)} if self.versus else {})}


def recorded(paired: dict | None) -> Arms | None:
    """A run's arms, from its plan's record ("paired": planner.Plan.describe); None for a plan not paired."""
    return Arms(str(paired["a"]), str(paired["b"]), tuple(paired.get("versus", ()))) if paired else None


def arm_of(row, arms: Arms) -> str:
    """ "a" or "b": the second arm of one mode by its marker option, else by its thread mode."""
    if arms.same_mode:
        return "b" if ARM_B_OPTION in shlex.split(row.jvm_opts) else "a"
    return "a" if row.thread_mode == arms.a else "b"


def with_arm_b(row):
    """The second arm's row of one mode: the same row, its JVM marked."""
    return dimensions.Row(**{**dimensions.values(row), "jvm_opts": shlex.join([*shlex.split(row.jvm_opts),
                                                                                 ARM_B_OPTION])})


def point_key(row) -> tuple[str, ...]:
    """What both arms' blocks of one point share: every key dimension but the arm's (the thread mode, the second
    arm's marker) and the block (rep)."""
    options = [word for word in shlex.split(row.jvm_opts) if word != ARM_B_OPTION]
    return (*dimensions.key(row, tuple(n for n in dimensions.RESUME_KEY
                                       if n not in ("thread_mode", "rep", "jvm_opts"))), shlex.join(options))
