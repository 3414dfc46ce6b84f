"""Fixed and marginal costs apart: what the service (and the tiers around it) spend per second whatever the load —
the JIT, timers, the rig's scrapes where the service did not count them (explain.scrape takes them out where it
did) — and what one more request adds, fitted over the steps of a staircase (the rows of one JVM family and rep,
measured on one warm JVM at rising loads; docs/verdict.md, "Staircases").

Per figure, each step's total per second is fitted as  total = fixed + marginal × rate  by least squares. The rate is
the step's throughput (successful responses per second), not its users: a cost follows the work done, and users
are only the work offered — at a platform staircase's thread wall 400 and 1,000 users served the same 199 req/s and
did the same work. (A valid row's failures are below the rig's error_rate_max, so its successes are its responses
within that share.)

The service's CPU is fitted without its JIT compiler's where every valid step of the family measured the compiler
threads' CPU over its hold (explain.compiler): a JVM still compiling at its first step made that step's CPU mostly the
compiler's, and the line then fell with the load. Where any step did not, the family's line is the service's CPU as
measured, the compiler's in it (Family.compiler_apart says which).

The reps of a family are combined by fitting all their steps together: one line for the family, its residual
spread over the steps of every rep (the fixed part of each rep's fresh JVM is taken to be the same). Only valid
steps are fitted (explain.validity.invalidating); the invalid ones are kept aside, named. Steps of one staircase
whose rates lie within the rig's cost_same_rate of each other give the line no leverage: they are taken as one
point (their mean rate and total). With fewer than two points apart in rate the slope is not determined; with two
points the line is exact and has no error; from three, the marginal's and the fixed part's standard errors and 95%
intervals (Student's t on points − 2 degrees of freedom).

Between the modes, the marginal cost virtual − platform carries the error of both fits (Welch–Satterthwaite's
degrees of freedom); it is a difference only where its 95% interval excludes 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vtlab.core import constants as rig_constants
from vtlab.core import dimensions
from vtlab.core.studentt import t_975
from vtlab.explain import compiler, scrape
from vtlab.explain.model import Measured, Verdict
from vtlab.explain.validity import invalidating

NO_ERROR = "no error: 2 steps"
NOT_DETERMINED = "not determined"


@dataclass(frozen=True)
class Figure:
    """A cost the counters measure, as a total per second of a step (NaN where the row did not measure it)."""
    key: str
    name: str
    per_second_unit: str
    per_request_unit: str
    per_second: Callable[[Measured], float]


def _gc_per_second(m: Measured) -> float:
    """GC pause per second: the hold's rate per minute where kept, else its pause total over the hold."""
    if not math.isnan(m.gc_pause_ms_per_min):
        return m.gc_pause_ms_per_min / 60
    return m.gc_pause_ms / m.hold_s if m.hold_s > 0 else math.nan


# % of one core → ms of CPU per second: × 10. The service's CPU and allocation are its own (explain.scrape).
FIGURES = (
    Figure("cpu", compiler.GROSS_NAME, "ms/s", "ms", scrape.service_cpu_ms_per_s),
    Figure("alloc", "allocated", "KiB/s", "KiB", lambda m: m.alloc_kb_per_req * m.throughput_rps),
    Figure("gc", "GC pauses", "ms/s", "ms", _gc_per_second),
    Figure("pg", "PostgreSQL CPU", "ms/s", "ms", lambda m: m.pg_cpu_pct * 10),
    Figure("stub", "stub CPU", "ms/s", "ms", lambda m: m.stub_cpu_pct * 10),
    Figure("load", "k6 CPU", "ms/s", "ms", lambda m: m.load_cpu_pct * 10),
)
# the service's CPU with its compiler's taken out: a family's "cpu" figure where every step measured the compiler's
NET_CPU = Figure("cpu", compiler.NET_NAME, "ms/s", "ms", compiler.service_cpu_ms_per_s)
NAMES = {figure.key: figure.name for figure in FIGURES}


@dataclass(frozen=True)
class Fit:
    """total per second = fixed + marginal × rate. Standard errors and 95% half-widths are NaN where the points do
    not allow them (`why` says: NO_ERROR, or NOT_DETERMINED with its reason); `why` is "" for a fit with errors."""
    marginal: float
    fixed: float
    marginal_se: float = math.nan
    fixed_se: float = math.nan
    marginal_half: float = math.nan
    fixed_half: float = math.nan
    points: int = 0
    dof: int = 0
    why: str = ""

    @property
    def determined(self) -> bool:
        return not math.isnan(self.marginal)

    @property
    def has_error(self) -> bool:
        return self.determined and not math.isnan(self.marginal_se)

    @property
    def fixed_told(self) -> bool:
        """Whether the fit tells a fixed part: its 95% interval (two steps give none) lies above 0. One within its
        error, or below 0 (a request cannot cost less than nothing), is no share of a step's total
        (report.fixedcosts)."""
        return self.determined and not math.isnan(self.fixed_half) and self.fixed - self.fixed_half > 0

    @property
    def falling(self) -> bool:
        """A slope below 0 beyond its interval (or, with none, below 0): the total per second fell as the load rose,
        which says the JVM changed between the steps (still compiling at the first), not what a request costs."""
        return self.determined and self.marginal + (0 if math.isnan(self.marginal_half) else self.marginal_half) < 0

    def fixed_share(self, rate: float) -> float:
        """The share of a step's fitted total that is the fixed part, at the step's rate."""
        total = self.fixed + self.marginal * rate
        return self.fixed / total if self.determined and total != 0 else math.nan


@dataclass(frozen=True)
class Family:
    """One JVM family's staircases (every rep) in one thread mode, and each figure's fit over their valid steps."""
    scenario: tuple[str, ...]        # the family without its thread mode and thread count: what modes pair on
    row: object                      # the first step's dimensions (dimensions.Row)
    steps: tuple[Verdict, ...]       # the valid steps fitted, by rep then load
    left_out: tuple[Verdict, ...]    # the family's invalid steps, not fitted
    reps: int
    merged: tuple[str, ...]          # "197.5 and 198.9 req/s (rep 1)": steps taken as one point
    fits: dict[str, Fit]
    compiler_apart: bool = False     # the "cpu" fit is the service's CPU without its JIT compiler's (NET_CPU)

    @property
    def thread_mode(self) -> str:
        return self.row.thread_mode  # type: ignore[attr-defined]

    def name(self, key: str) -> str:
        """A figure's name as this family's fit is of it ("service CPU, the compiler's apart" where it is)."""
        return NET_CPU.name if key == NET_CPU.key and self.compiler_apart else NAMES[key]


@dataclass(frozen=True)
class Difference:
    """virtual − platform of one figure's marginal cost, with its 95% half-width (NaN: not tested, `why`)."""
    delta: float
    half: float
    why: str = ""

    @property
    def named(self) -> bool:
        """A difference: its interval excludes 0."""
        return not math.isnan(self.half) and abs(self.delta) > self.half


# A staircase: every dimension but the load. FAMILY adds nothing to planner.jvm_family (the analysis reads no
# plan); SCENARIO also drops the thread mode and its thread count, for pairing the modes.
FAMILY = tuple(n for n in dimensions.SCENARIO_KEY if n not in ("concurrency", "target_rps"))
SCENARIO = tuple(n for n in FAMILY if n not in ("thread_mode", "tomcat_max_threads"))


def _undetermined(rates: Sequence[float], same_rate: float) -> Fit:
    if not rates:
        return Fit(math.nan, math.nan, why=f"{NOT_DETERMINED}: not measured")
    if len(rates) == 1:
        return Fit(math.nan, math.nan, points=1, why=f"{NOT_DETERMINED}: one step")
    told = ", ".join(f"{x:,.1f}" for x in sorted(rates))
    return Fit(math.nan, math.nan, points=1,
               why=f"{NOT_DETERMINED}: rates {told} req/s within {same_rate:.0%} of each other")


def fit(points: Sequence[tuple[float, float]], same_rate: float = rig_constants.CURRENT.cost_same_rate) -> Fit:
    """The least-squares line through (rate, total per second) points, its errors from its residuals; not determined
    where the rates lie within `same_rate` of each other."""
    xs = [x for x, _ in points]
    n = len(points)
    if n < 2 or max(xs) <= min(xs) * (1 + same_rate):
        return _undetermined(xs, same_rate)
    mean_x, mean_y = sum(xs) / n, sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    marginal = sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx
    fixed = mean_y - marginal * mean_x
    if n == 2:
        return Fit(marginal, fixed, points=2, why=NO_ERROR)
    s2 = sum((y - fixed - marginal * x) ** 2 for x, y in points) / (n - 2)
    marginal_se, fixed_se = math.sqrt(s2 / sxx), math.sqrt(s2 * (1 / n + mean_x ** 2 / sxx))
    t = t_975(n - 2)
    return Fit(marginal, fixed, marginal_se, fixed_se, t * marginal_se, t * fixed_se, n, n - 2)


def families(verdicts: Sequence[Verdict], same_rate: float = rig_constants.CURRENT.cost_same_rate) -> list[Family]:
    """Every JVM family measured as staircases (rows with a jvm_step, two steps or more on one JVM), per thread
    mode, in the order first seen; a family whose every rep is a single row (a JVM per row) has none."""
    groups: dict[tuple[str, ...], list[Verdict]] = {}
    for v in verdicts:
        if not v.failed and v.measured.jvm_step >= 1:
            groups.setdefault(dimensions.key(v.row, FAMILY), []).append(v)
    told = []
    for members in groups.values():
        reps: dict[int, list[Verdict]] = {}
        for v in members:
            reps.setdefault(v.row.rep, []).append(v)
        stairs = [sorted(steps, key=lambda v: (v.row.concurrency, v.row.target_rps)) for steps in reps.values()
                  if _one_jvm(steps)]
        if stairs:
            told.append(_family(stairs, same_rate))
    return told


def _one_jvm(steps: Sequence[Verdict]) -> bool:
    """Two steps or more, each at its own place on the JVM (rows that each started one are not a staircase)."""
    places = [v.measured.jvm_step for v in steps]
    return len(places) >= 2 and len(set(places)) == len(places)


def _family(stairs: Sequence[Sequence[Verdict]], same_rate: float) -> Family:
    valid = [[v for v in steps if not invalidating(v.flags)] for steps in stairs]
    left_out = tuple(v for steps in stairs for v in steps if invalidating(v.flags))
    apart = compiler.apart([v.measured for steps in valid for v in steps])
    merged: list[str] = []
    fits = {}
    for figure in (NET_CPU if apart and figure.key == NET_CPU.key else figure for figure in FIGURES):
        points, rates = [], []
        for steps in valid:
            measured = [v for v in steps if not math.isnan(figure.per_second(v.measured))]
            rates += [v.measured.throughput_rps for v in measured]
            groups = _same_rate(measured, same_rate)
            points += [_mean_point(group, figure) for group in groups]
            if figure.key == "cpu":
                merged += [" and ".join(f"{v.measured.throughput_rps:,.1f}" for v in group)
                           + f" req/s (rep {group[0].row.rep})" for group in groups if len(group) > 1]
        fits[figure.key] = (fit(points, same_rate) if len(points) >= 2
                            else _undetermined(rates, same_rate) if any(valid)
                            else Fit(math.nan, math.nan, why=f"{NOT_DETERMINED}: no valid step"))
    first = stairs[0][0]
    return Family(dimensions.key(first.row, SCENARIO), first.row, tuple(v for steps in valid for v in steps),
                  left_out, len(stairs), tuple(merged), fits, apart)


def _same_rate(steps: Sequence[Verdict], same_rate: float) -> list[list[Verdict]]:
    """The steps in groups whose rates lie within `same_rate` of the group's lowest, by rising rate."""
    groups: list[list[Verdict]] = []
    for v in sorted(steps, key=lambda v: v.measured.throughput_rps):
        rate = v.measured.throughput_rps
        if groups and rate <= groups[-1][0].measured.throughput_rps * (1 + same_rate):
            groups[-1].append(v)
        else:
            groups.append([v])
    return groups


def _mean_point(group: Sequence[Verdict], figure: Figure) -> tuple[float, float]:
    return (sum(v.measured.throughput_rps for v in group) / len(group),
            sum(figure.per_second(v.measured) for v in group) / len(group))


def difference(platform: Fit, virtual: Fit, part: str = "marginal") -> Difference:
    """virtual − platform of the marginal cost (or, by `part`, the fixed one); tested only where both fits have an
    error."""
    if not (platform.determined and virtual.determined):
        return Difference(math.nan, math.nan, "not tested: a slope not determined")
    delta = getattr(virtual, part) - getattr(platform, part)
    if not (platform.has_error and virtual.has_error):
        return Difference(delta, math.nan, "not tested: a fit of 2 steps has no error")
    a, b = getattr(platform, f"{part}_se") ** 2, getattr(virtual, f"{part}_se") ** 2
    if a + b == 0:
        return Difference(delta, 0.0)
    # Welch–Satterthwaite: the degrees of freedom of a difference of two fits' estimates, each with its own
    dof = (a + b) ** 2 / ((a ** 2 / platform.dof if a else 0) + (b ** 2 / virtual.dof if b else 0))
    return Difference(delta, t_975(int(dof)) * math.sqrt(a + b))


def comparable(p: Family, v: Family, key: str) -> bool:
    """Whether the two families' fits of a figure are of one figure: not the service's CPU without the compiler's in
    one mode and with it in the other."""
    return p.name(key) == v.name(key)


def between(p: Family, v: Family, key: str, part: str = "marginal") -> Difference:
    """virtual − platform of one figure's fits (difference), not tested where they are not comparable."""
    if not comparable(p, v, key):
        return Difference(math.nan, math.nan, "not tested: the compiler's CPU taken apart in one mode only")
    return difference(p.fits[key], v.fits[key], part)


def pairs(told: Sequence[Family]) -> list[tuple[Family, Family]]:
    """Each platform family with each virtual family of the same scenario, in the order first seen."""
    return [(p, v) for p in told if p.thread_mode == "platform"
            for v in told if v.thread_mode == "virtual" and v.scenario == p.scenario]
