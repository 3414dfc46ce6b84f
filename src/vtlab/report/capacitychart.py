"""A capacity search's curve: throughput and each of the objective's figures against the load, both thread modes on
one figure, the objective's limits drawn as lines, every point marked by how it was judged (pass, fail, too close to
call, not valid) and each mode's bracket shaded. Drawn from capacity.json alone, returned as SVG with its series."""

from __future__ import annotations

import math

from vtlab.core import objective
from vtlab.report import charts, loadaxis
from vtlab.report.charts import plt  # matplotlib as the report sets it up (no display)
from vtlab.results.capacityfile import CapacityRun, ModeCapacity, PointRecord

# capacity.point's outcomes, as capacity.json writes them: (marker, filled, size, words in the legend)
OUTCOMES = {"pass": ("o", True, 70, "passed"), "fail": ("X", True, 90, "failed"),
            "unsure": ("D", False, 70, "too close to call"),
            "invalid": ("o", False, 130, "not valid (decides nothing)")}
OTHER_COLOUR = "#7f8c8d"  # a mode the report has no colour for


def figure_key(condition: objective.Condition) -> str:
    """The series' name for a condition's figure: "p99_ms", "errors_pct"."""
    return "errors_pct" if condition.is_errors else f"{condition.metric}_ms"


def figure_value(point: PointRecord, condition: objective.Condition) -> float:
    """The point's figure for the condition, in the unit the chart draws (ms, or % of requests)."""
    bounds = point.figures.get(condition.metric)
    if not bounds:
        return math.nan
    return bounds[0] * 100 if condition.is_errors else bounds[0]


def curve(run: CapacityRun) -> tuple[str, dict]:
    conditions = objective.parse(run.objective).conditions
    fig, axes = plt.subplots(1, 1 + len(conditions), figsize=(7.5 * (1 + len(conditions)), 4.2))
    rate, limits = axes[0], axes[1:]
    data: dict = {"unit": run.unit, "objective": {figure_key(c): c.limit * 100 if c.is_errors else c.limit
                                                  for c in conditions}}
    loads: list[float] = []
    for mode in run.modes:
        colour = charts.COLORS.get(mode.mode, OTHER_COLOUR)
        points = sorted(mode.points, key=lambda p: p.load)
        loads += [p.load for p in points]
        _draw(rate, mode.mode, colour, points, [p.throughput_rps for p in points])
        for ax, condition in zip(limits, conditions, strict=True):
            _draw(ax, mode.mode, colour, points, [figure_value(p, condition) for p in points])
        _bracket((rate, *limits), mode, colour)
        data[mode.mode] = {"load": [p.load for p in points], "throughput_rps": [p.throughput_rps for p in points],
                           "outcome": [p.outcome for p in points],
                           **{figure_key(c): [figure_value(p, c) for p in points] for c in conditions},
                           "bracket": [mode.bracket_low, mode.bracket_high]}
    if run.model == "open" and loads:
        data["offered"] = charts.offered_rate(rate, loads)
    for ax, condition in zip(limits, conditions, strict=True):
        ax.axhline(data["objective"][figure_key(condition)], color="black", linestyle="--",
                   label=f"objective: {condition}")
        ax.set_ylabel("error rate (% of requests)" if condition.is_errors else f"{condition.metric} latency (ms)")
        ax.set_title(f"{condition.metric} against the load; dashed: the objective")
    _label(rate, axes, run, loads)
    fig.tight_layout()
    data["x_labels"] = loadaxis.readable_loads(fig).get(0, [])  # the load axis's labels as drawn ("": a tick alone)
    return charts.svg(fig), data


def _draw(ax, mode: str, colour: str, points: list[PointRecord], values: list[float]) -> None:
    """The decided points joined by a line, every point marked by its outcome (a point not valid: a wide ring)."""
    decided = [(p.load, v) for p, v in zip(points, values, strict=True) if p.outcome != "invalid"]
    if decided:
        ax.plot(*zip(*decided, strict=True), color=colour, alpha=0.6)
    for outcome, (marker, filled, size, words) in OUTCOMES.items():
        marked = [(p.load, v) for p, v in zip(points, values, strict=True) if p.outcome == outcome and
                  math.isfinite(v)]
        if marked:
            ax.scatter(*zip(*marked, strict=True), marker=marker, s=size, zorder=3, edgecolors=colour,
                       facecolors=colour if filled else "none", label=f"{mode}: {words}")


def _bracket(axes, mode: ModeCapacity, colour: str) -> None:
    """The mode's bracket shaded: the capacity lies between its edges (to the edge of the chart where none broke)."""
    if not math.isfinite(mode.bracket_low):
        return
    for ax in axes:
        if math.isfinite(mode.bracket_high):
            ax.axvspan(mode.bracket_low, mode.bracket_high, color=colour, alpha=0.12)
        else:
            ax.axvline(mode.bracket_low, color=colour, alpha=0.5, linestyle="-.")


def _label(rate, axes, run: CapacityRun, loads: list[float]) -> None:
    rate.set_ylabel("successful requests / s")
    rate.set_title(f"Throughput against the load: capacity at {run.objective}")
    finite = [v for v in loads if v > 0]
    edges = [edge for mode in run.modes for edge in (mode.bracket_low, mode.bracket_high) if math.isfinite(edge)]
    for ax in axes:
        if finite and max(finite) / min(finite) >= 10:
            ax.set_xscale("log")
        loadaxis.at_loads(ax, finite, kept=edges, brackets=[(mode.bracket_low, mode.bracket_high) for mode in run.modes
                                                          if math.isfinite(mode.bracket_high)])
        ax.set_xlabel("offered requests / s (open model)" if run.model == "open" else "concurrent users (closed model)")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:  # a mode searched without a point draws nothing to name
            ax.legend(fontsize=7, loc="upper left")
