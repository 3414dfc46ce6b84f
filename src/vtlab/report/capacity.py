"""The capacity section, told first where the run folder holds capacity.json: the answer (each mode's capacity with
its bracket, and the condition, wall and evidence where it broke), why each search stopped, the models' predictions
beside the measured capacity with the error between them, every point in a table and the curve drawn. Every word is
computed from capacity.json; the report's other sections tell the same points as the rows they are. A search that
did not finish says so in its title and first: its brackets are as they stood when it was cut short."""

from __future__ import annotations

import math
from collections import Counter

from vtlab.core import objective
from vtlab.explain import loadwall
from vtlab.report import capacitychart
from vtlab.report.document import CapacitySection, Figure, Table
from vtlab.results.capacityfile import CapacityRun, ModeCapacity, PointRecord

CAPTION = ("Left: successful responses per second against the load searched; right: the objective's figures, its "
           "limits dashed. Markers: filled circle passed, cross failed (beyond the point's 95% interval), hollow "
           "diamond too close to call, wide ring not valid (a point that decides nothing; the line joins the others). "
           "Shaded: each mode's bracket, the capacity inside it; dash-dotted: a capacity no load above broke.")
OUTCOME_WORDS = {"pass": "passed", "fail": "failed", "unsure": "too close to call", "invalid": "not valid"}


def section(run: CapacityRun) -> CapacitySection:
    svg, data = capacitychart.curve(run)
    # the capacity ratio first: what a capacity search answers (issue 60), then each mode's capacity and wall
    sentences = ([] if run.complete else [INCOMPLETE]) + (
        ratio(run) + [answer(mode, run.unit, run.model) for mode in run.modes]
        + [index for mode in run.modes if (index := host_index(mode))] + [stopped(mode) for mode in run.modes]
        + [told for mode in run.modes for told in (little(mode, run.unit), usl(mode, run.unit)) if told]
        + [searched(run)])
    title = f"Capacity at {run.objective}" + ("" if run.complete else " (incomplete)")
    return CapacitySection(title, tuple(sentences), points_table(run), Figure("capacity", svg, CAPTION, data), run)


INCOMPLETE = ("Incomplete: this search did not finish (cut short by Ctrl-C, a signal or a failure; why each mode "
              "stopped says which, and a mode it never reached is absent). Each bracket is as it stood: a capacity "
              "here is the most load that passed so far, not the answer a finished search would give.")


def answer(mode: ModeCapacity, unit: str, model: str = "open") -> str:
    """"platform: 141–200 req/s (…), p99 crossed 1500 ms at 200 req/s: thread-pool, in flight 293 > threads 200"."""
    if math.isnan(mode.capacity) and math.isnan(mode.bracket_high) and not mode.points:
        said = f"{mode.mode}: no point measured"
    elif math.isnan(mode.capacity):
        said = f"{mode.mode}: no load met the objective"
    elif math.isfinite(mode.bracket_high):
        said = (f"{mode.mode}: {_n(mode.bracket_low)}–{_n(mode.bracket_high)} {unit} (capacity {_n(mode.capacity)} "
                f"{unit}, the most load that met the objective; the bracket {mode.bracket_share * 100:.0f}% wide)")
    else:
        said = f"{mode.mode}: at least {_n(mode.capacity)} {unit} (no load above it broke the objective)"
    if mode.crossed:
        said += f"; {mode.crossed} at {_n(mode.crossed_at)} {unit}"
        if loadwall.unnamed(model, mode.wall):
            said += f" with {loadwall.words(mode.evidence, mode.utilisation)}"
        elif mode.wall:
            said += f": {mode.wall}" + (f", {mode.evidence}" if mode.evidence else "")
    return said + loadwall.edge(mode, unit, model) + "."


def ratio(run: CapacityRun) -> list[str]:
    """Virtual's capacity ÷ platform's and the range the two brackets allow, with how the modes were searched;
    nothing without both capacities."""
    value, allowed = run.ratio()[0], run.ratio_allowed()
    if not math.isfinite(value):
        return []
    how = ("the modes searched at once, their points taken in turn on two warm JVMs up together" if run.in_turn
           else "each mode searched in its own stretch of time")
    return [f"Virtual threads carry {value:.2f}× the platform threads' capacity" + (f"; {allowed}" if allowed else "")
            + f" ({how})."]


def host_index(mode: ModeCapacity) -> str:
    """k6's CPU per request at the capacity's point, the host's speed index beside the capacity, and whether the
    mode's wall moves with it; "" where it was not measured."""
    index = mode.host_index_ms()
    if not math.isfinite(index):
        return ""
    return f"{mode.mode}: {loadwall.index_words(mode)}."


def stopped(mode: ModeCapacity) -> str:
    counts = Counter(point.outcome for point in mode.points)
    judged = ", ".join(f"{counts[outcome]} {words}" for outcome, words in OUTCOME_WORDS.items() if counts[outcome])
    return (f"{mode.mode}'s search stopped: {mode.stop}; {len(mode.points)} point(s) ({judged}) in "
            f"{mode.spent_s / 60:.1f} min.")


def little(mode: ModeCapacity, unit: str) -> str:
    p = mode.prediction
    if p is None:
        return ""
    error = _error(mode, p.error_share, unit)
    service = f", a request's service time {p.service_time_ms:,.0f} ms" if math.isfinite(p.service_time_ms) else ""
    return (f"{mode.mode}, Little's law: {_n(p.capacity)} {unit} predicted (the {p.limit} ceiling, the median of "
            f"{p.points} passing point(s)' {_n(p.low)}–{_n(p.high)}{service}){error}.")


def usl(mode: ModeCapacity, unit: str) -> str:
    """The Universal Scalability Law's fit and its capacity, or why it predicts none; nothing where capacity.json
    was written before the law was fitted."""
    fit = mode.usl
    if fit is None:
        return ""
    said = f"{mode.mode}, the Universal Scalability Law"
    if math.isfinite(fit.sigma):
        said += (f" (λ {fit.lam:.3g}, σ {fit.sigma:.3g}, κ {fit.kappa:.3g} over {fit.points} passing loads, "
                 f"residuals {fit.rms_share * 100:.1f}% of the throughput)")
    if fit.why:
        return f"{said}: no capacity predicted, {fit.why}."
    if unit == "users":
        where = f"the users at its peak, where it puts the throughput at {_n(fit.peak_rps)} req/s"
    elif math.isfinite(fit.peak_load):
        where = f"the throughput at its peak, {_n(fit.peak_load)} req/s offered"
    else:
        where = "the throughput's ceiling λ/σ (κ = 0: it levels off, never turns down)"
    return f"{said}: {_n(fit.capacity)} {unit} predicted, {where}{_error(mode, fit.error_share, unit)}."


def searched(run: CapacityRun) -> str:
    loads = "arrival rates, req/s" if run.model == "open" else "concurrent users"
    return (f"Searched for each mode: a staircase up until {run.objective} broke, then bisection to a bracket of "
            f"{run.precision * 100:g}%, within a budget of {run.budget_s / 60:g} min for all modes; {run.model} model "
            f"(loads are {loads}); a point decides only beyond its 95% interval, and a point not valid never decides, "
            "but for a pass on less CPU than its own. A bracket is the search's precision within this run, not "
            "where another run lands: the host's fixed work beside each capacity puts two runs on one scale "
            "(vtlab compare) where it held steady under both points.")


def points_table(run: CapacityRun) -> Table:
    """Every point measured, mode by mode in the order the search measured them; a point not valid marked."""
    conditions = objective.parse(run.objective).conditions
    columns = (("mode", "mode"), ("load", f"load ({run.unit})"), ("outcome", "judged"),
               ("throughput", "req/s"), *((c.metric, f"{c.metric} [95%]") for c in conditions), ("why", "why"),
               ("wall", "wall"))
    lines, classes = [], []
    for mode in run.modes:
        for point in mode.points:
            lines.append({"mode": mode.mode, "load": _n(point.load), "outcome": OUTCOME_WORDS.get(point.outcome,
                                                                                                   point.outcome),
                          "throughput": f"{point.throughput_rps:,.1f}",
                          **{c.metric: _figure(point, c) for c in conditions}, "why": point.why,
                          "wall": _wall(point, run.model)})
            classes.append("invalid" if point.outcome == "invalid" else "")
    return Table(columns, tuple(lines), "capacity-points", tuple(classes))


def _wall(point: PointRecord, model: str) -> str:
    """The point's wall and its evidence; a failed point's load named as its wall, said as what it was."""
    if point.outcome == "fail" and loadwall.unnamed(model, point.wall):
        return "none seen: " + loadwall.words(point.evidence, point.utilisation)
    return f"{point.wall}: {point.evidence}" if point.evidence else point.wall


def _figure(point: PointRecord, condition: objective.Condition) -> str:
    value, low, high = (point.figures.get(condition.metric) or [math.nan] * 3)[:3]
    if not math.isfinite(value):
        return "–"
    if condition.is_errors:
        return f"{value * 100:.3g}% [{low * 100:.3g}–{high * 100:.3g}]"
    return f"{value:,.0f} ms [{low:,.0f}–{high:,.0f}]"


def _error(mode: ModeCapacity, share: float, unit: str) -> str:
    if not math.isfinite(share):
        return ""
    return f"; measured {_n(mode.capacity)} {unit}, {share * 100:+.0f}% from it"


def _n(value: float) -> str:
    return f"{value:,.0f}" if math.isfinite(value) else "?"
