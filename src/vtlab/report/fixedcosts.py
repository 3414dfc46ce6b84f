"""Fixed and marginal costs: per scenario and thread mode, what one more request costs (the slope over a staircase's
steps, explain.costs) beside what the service spends per second whatever the load, each with its 95% interval, and
the share of each step's total that the fixed part was; then virtual − platform of the marginal cost, named only
where its interval excludes 0. "Where the time goes" divides everything by the requests; this section says how much
of that was per second. The service's CPU is fitted without its JIT compiler's where every step measured it, and the
compiler's CPU has a line of its own per family either way (report.compilerline), so nothing is hidden.

Every sentence quotes the fitted figures it concludes from, so another run's data can contradict it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.explain import costs
from vtlab.explain.model import Analysis
from vtlab.report import compilerline, validrows
from vtlab.report.labels import fmt, mode_label, scenario_label
from vtlab.report.scenarios.common import Section

COLUMNS = [("scenario", "scenario"), ("mode", "mode"), ("what", "figure"),
           ("marginal", "per request, marginal [95%]"), ("fixed", "per second, fixed [95%]"),
           ("share", "fixed share of the total, by load"), ("fit", "fitted over")]
DIFFERENCE = "virtual − platform"
# A request cannot cost less than nothing: a total per second that fell as the load rose says the JVM changed between
# the steps (still compiling at the first, or collecting differently), not what a request costs.
FALLING = "; falling with the load: not a cost per request"
# A share the fit cannot carry (_share): said, never a percentage outside 0-100%
WITHIN_ERROR = "within error"


class Shown:
    """How a figure reads: its marginal per request and its fixed part per second, scaled, in their units."""

    def __init__(self, request_scale: float, request_unit: str, second_scale: float, second_unit: str, digits: int):
        self.request_scale, self.request_unit = request_scale, request_unit
        self.second_scale, self.second_unit, self.digits = second_scale, second_unit, digits


SHOWN = {"cpu": Shown(1, "ms", 1, "ms/s", 3), "alloc": Shown(1, "KiB", 1 / 1024, "MiB/s", 1),
         "gc": Shown(1000, "ms per 1,000 requests", 1, "ms/s", 2), "pg": Shown(1, "ms", 1, "ms/s", 3),
         "stub": Shown(1, "ms", 1, "ms/s", 3), "load": Shown(1, "ms", 1, "ms/s", 3)}


def section(analysis: Analysis) -> Section | None:
    """None where the run measured no staircase (a JVM per row, or a single load per family)."""
    told = costs.families(analysis.verdicts, analysis.rig.cost_same_rate)
    if not told:
        return None
    threads = analysis.rig.tomcat_max_threads
    table: list[dict[str, str]] = []
    sentences = [_fitted_over(f, threads, analysis.rig.cost_same_rate) for f in told]
    sentences += [said for said in (compilerline.included(f, _scenario(f), mode_label(f.row, threads)) for f in told)
                  if said]
    for f in told:
        table += [_line(f, key, threads) for key in SHOWN]
        table.append(compilerline.line(f, _scenario(f), mode_label(f.row, threads)))
    for p, v in costs.pairs(told):
        table += [_difference_line(p, v, key) for key in SHOWN]
        sentences.append(_marginals_sentence(p, v))
        mostly = _mostly_fixed(p, v)
        if mostly:
            sentences.append(mostly)
    return Section("fixed-and-marginal", "What a request costs, fixed and marginal apart", sentences, table,
                   columns=list(COLUMNS))


def _scenario(f: costs.Family) -> str:
    row = f.row
    return scenario_label(row) + (", open model" if row.load_model == "open" else "")  # type: ignore[attr-defined]


def _fitted_over(f: costs.Family, threads: int, same_rate: float) -> str:
    """Which steps each fit drew on: the valid ones of every rep, the invalid left out, the near-equal rates merged."""
    steps = ", ".join(f"{validrows.load(v)} ({fmt(v.measured.throughput_rps, 1)} req/s"
                      + (f", rep {v.row.rep})" if f.reps > 1 else ")") for v in f.steps)
    text = (f"{_scenario(f)}, {mode_label(f.row, threads)}: fitted over {len(f.steps)} valid step(s) of "
            f"{f.reps} staircase(s), all reps in one line: {steps or 'none'}")
    if f.merged:
        text += f"; taken as one point, their rates within {same_rate:.0%}: " + "; ".join(f.merged)
    if f.left_out:
        text += validrows.left_out(f.left_out, validrows.load)
    return text + "."


def _interval(value: float, half: float, scale: float, digits: int, why: str, unit: str, signed: bool = False) -> str:
    if math.isnan(value):
        return why or "not measured"
    number = f"{value * scale:+.{digits}f}" if signed else fmt(value * scale, digits)
    text = f"{number} {unit}"
    if math.isnan(half):
        return text + (f" ({why})" if why else "")
    return text + f" [{fmt((value - half) * scale, digits)}–{fmt((value + half) * scale, digits)}]"


def _line(f: costs.Family, key: str, threads: int) -> dict[str, str]:
    fit, shown = f.fits[key], SHOWN[key]
    shares = ", ".join(f"{validrows.load(v)}" + (f" rep {v.row.rep}" if f.reps > 1 else "")
                       + f" {_share(fit, v.measured.throughput_rps)}" for v in f.steps)
    return {"scenario": _scenario(f), "mode": mode_label(f.row, threads), "what": f.name(key),
            "marginal": _interval(fit.marginal, fit.marginal_half, shown.request_scale, shown.digits, fit.why,
                                  shown.request_unit) + (FALLING if fit.falling else ""),
            "fixed": _interval(fit.fixed, fit.fixed_half, shown.second_scale, shown.digits, fit.why,
                               shown.second_unit),
            "share": shares if fit.determined else "–", "fit": f"{fit.points} point(s)"}


def _share(fit: costs.Fit, rate: float) -> str:
    """ "34%", or WITHIN_ERROR where the fit cannot carry a share: a fixed part without an interval (two steps) or
    whose interval holds 0, or a share outside 0-100% (a fixed part or a total below 0: 1,363% and -149% for the GC's
    pauses of a 3-step fit, 2026-11-27)."""
    share = fit.fixed_share(rate)
    if not fit.fixed_told or not 0 <= share <= 1:
        return WITHIN_ERROR
    return f"{fmt(100 * share)}%"


def _said(d: costs.Difference) -> str:
    if d.why:
        return d.why
    return "a difference" if d.named else "within error"


def _difference_line(p: costs.Family, v: costs.Family, key: str) -> dict[str, str]:
    shown = SHOWN[key]
    marginal, fixed = costs.between(p, v, key), costs.between(p, v, key, "fixed")
    return {"scenario": _scenario(p), "mode": DIFFERENCE, "what": _name(p, v, key),
            "marginal": _interval(marginal.delta, marginal.half, shown.request_scale, shown.digits, marginal.why,
                                  shown.request_unit, signed=True) + ("" if marginal.why else f": {_said(marginal)}"),
            "fixed": _interval(fixed.delta, fixed.half, shown.second_scale, shown.digits, fixed.why,
                               shown.second_unit, signed=True) + ("" if fixed.why else f": {_said(fixed)}"),
            "share": "", "fit": ""}


def _marginals_sentence(p: costs.Family, v: costs.Family) -> str:
    """Which figures' marginal cost differs between the modes beyond its interval, which lie within it, and which
    could not be tested."""
    named, within, untested = [], [], []
    for key, shown in SHOWN.items():
        d, name = costs.between(p, v, key), _name(p, v, key)
        if d.why:
            untested.append(name)
        elif d.named:
            named.append(f"{name} " + _interval(d.delta, d.half, shown.request_scale, shown.digits, "",
                                                shown.request_unit, signed=True))
        else:
            within.append(name)
    parts = [f"differs beyond its 95% interval in {', '.join(named)}" if named else
             "differs beyond its 95% interval in no figure"]
    if within:
        parts.append(f"within it in {', '.join(within)}")
    if untested:
        parts.append(f"not tested in {', '.join(untested)} (a fit without error or without a slope)")
    return f"{_scenario(p)}: the marginal cost per request, virtual − platform, " + "; ".join(parts) + "."


def _mostly_fixed(p: costs.Family, v: costs.Family) -> str:
    """One sentence for the scenario: each figure and load (both modes measured at it) where the fitted per-request
    difference between the modes is more than half its fixed part spread over the requests."""
    loads = [(validrows.load(x), _mean_rate(p.steps, x.row), _mean_rate(v.steps, x.row))
             for x in _first_of_each_load(p.steps) if _mean_rate(v.steps, x.row) > 0 and _mean_rate(p.steps, x.row) > 0]
    clauses = [clause for key in SHOWN for clause in [_fixed_clause(p, v, key, loads)] if clause]
    if not clauses:
        return ""
    return (f"{_scenario(p)}: per request, virtual − platform by the fits is mostly fixed cost (a cost per second "
            "spread over the requests, not what serving one costs) in: " + "; ".join(clauses) + ".")


def _fixed_clause(p: costs.Family, v: costs.Family, key: str, loads: Sequence[tuple[str, float, float]]) -> str:
    """The loads at which one figure's per-request difference (fixed ÷ rate + marginal, each mode at its own rate)
    is more than half the fixed parts'; "" where at none (or where the modes' fits are not of one figure)."""
    a, b = p.fits[key], v.fits[key]
    if not (a.determined and b.determined and costs.comparable(p, v, key)):
        return ""
    shown = SHOWN[key]

    def amount(value: float) -> str:
        return _interval(value, math.nan, shown.request_scale, shown.digits, "", shown.request_unit, signed=True)

    def per_second(value: float) -> str:
        return f"{fmt(value * shown.second_scale, shown.digits)} {shown.second_unit}"
    told = []
    for load, rate_p, rate_v in loads:
        fixed_part = b.fixed / rate_v - a.fixed / rate_p
        total = fixed_part + b.marginal - a.marginal
        if total != 0 and fixed_part / total > 0.5:
            told.append(f"at {load} {amount(total)}, {amount(fixed_part)} of it the fixed parts "
                        f"({per_second(b.fixed)} over {fmt(rate_v, 1)} req/s against {per_second(a.fixed)} over "
                        f"{fmt(rate_p, 1)})")
    if not told:
        return ""
    fixed = costs.between(p, v, key, "fixed")
    return (f"{_name(p, v, key)} " + ", ".join(told) + "; the fixed parts' difference "
            + _interval(fixed.delta, fixed.half, shown.second_scale, shown.digits, fixed.why, shown.second_unit,
                        signed=True) + ("" if fixed.why else f", {_said(fixed)}"))


def _name(p: costs.Family, v: costs.Family, key: str) -> str:
    """A figure's name for the two modes' fits: the families' where they agree, else the figure's own (the service's
    CPU with the compiler's apart in one mode only: its difference is not tested)."""
    return p.name(key) if costs.comparable(p, v, key) else costs.NAMES[key]


def _first_of_each_load(steps: Sequence) -> list:
    seen: dict[tuple[int, int], object] = {}
    for v in steps:
        seen.setdefault((v.row.concurrency, v.row.target_rps), v)
    return list(seen.values())


def _mean_rate(steps: Sequence, row) -> float:
    """The mean throughput of the steps (of every rep) at the row's load; 0 where none was measured there."""
    rates = [v.measured.throughput_rps for v in steps
             if (v.row.concurrency, v.row.target_rps) == (row.concurrency, row.target_rps)]
    return sum(rates) / len(rates) if rates else 0.0
