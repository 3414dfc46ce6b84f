"""The costs as a picture (explain.costs): for the scenario measured as staircases at the most rates, what one request
cost each tier in each mode at every step (hollow: one its flags left out of the fit), and the family's fitted line
drawn as the cost of a request at each rate — marginal + fixed ÷ rate — with the marginal alone dashed beside it.
Where the two part, the per-second costs (the JIT, timers, the rig's scrapes where the service did not count them)
were spread over few requests; where they meet, a request costs its marginal. A fit the steps cannot carry (one rate,
no error, a slope below 0) draws its points and no line; one with a fixed part below 0, the marginal alone."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.explain import costs
from vtlab.report.charts import COLORS, plt, svg

# The panels, in the order drawn: a figure of explain.costs each, its axis in the unit of one request.
PANELS = ("cpu", "alloc", "gc", "pg", "stub", "load")
CURVE_POINTS = 32  # the fitted cost a request drawn through this many rates between the lowest and the highest


def chosen(families: Sequence[costs.Family]) -> list[costs.Family]:
    """The families of the one scenario whose steps span the most distinct rates (both modes' staircases of it, in the
    order seen); none where no scenario was measured at two rates or more."""
    by_scenario: dict[tuple[str, ...], list[costs.Family]] = {}
    for family in families:
        by_scenario.setdefault(family.scenario, []).append(family)

    def rates(members: list[costs.Family]) -> int:
        return max(len({round(step.measured.throughput_rps) for step in family.steps
                        if math.isfinite(step.measured.throughput_rps)}) for family in members)
    best = max(by_scenario.values(), key=rates, default=[])
    return best if best and rates(best) >= 2 else []


def figure(families: Sequence[costs.Family]) -> tuple[str, dict] | None:
    """The costs figure of the chosen scenario (chosen) and the series it draws; None where none was chosen."""
    drawn = chosen(families)
    if not drawn:
        return None
    fig, axes = plt.subplots(2, 3, figsize=(11, 5.6))
    data: dict[str, dict] = {}
    for ax, key in zip(axes.flat, PANELS, strict=True):
        data[key] = {}
        for family in drawn:
            data[key][family.thread_mode] = _panel(ax, family, key)
        ax.set_title(_title(drawn, key), fontsize=9)
        ax.tick_params(labelsize=8)
        if not any(told["rates"] or told["left_out_rates"] for told in data[key].values()):
            ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes, fontsize=8)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        ax.set_xscale("log")
        ax.set_ylim(bottom=0.0)  # nothing drawn is below 0: a step's cost, a marginal that did not fall, a curve
        # whose fixed part is not below 0
        ax.grid(True, alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("successful req/s (log)", fontsize=8)
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("What a request cost each tier: each step fitted (dots), the fit's fixed ÷ rate + marginal (line, "
                 "where the fixed part is not below 0), the marginal alone (dashed)", fontsize=9)
    fig.tight_layout()
    return svg(fig), data


def _title(drawn: Sequence[costs.Family], key: str) -> str:
    unit = next(f.per_request_unit for f in costs.FIGURES if f.key == key)
    return f"{drawn[0].name(key)}, {unit} a request"


def _panel(ax, family: costs.Family, key: str) -> dict:
    """One mode's steps (hollow: those its flags left out of the fit) and fitted line in one panel; the series drawn."""
    per_second = costs.NET_CPU.per_second if key == "cpu" and family.compiler_apart else _figure(key).per_second

    def per_request(steps) -> list[tuple[float, float]]:
        found = [(step.measured.throughput_rps, per_second(step.measured)) for step in steps]
        return [(rate, total / rate) for rate, total in found if rate > 0 and math.isfinite(total)]
    fitted, apart = per_request(family.steps), per_request(family.left_out)
    colour = COLORS.get(family.thread_mode, "black")
    ax.scatter([rate for rate, _ in fitted], [cost for _, cost in fitted], color=colour, s=12, zorder=3,
               label=family.thread_mode)
    ax.scatter([rate for rate, _ in apart], [cost for _, cost in apart], facecolors="none", edgecolors=colour, s=12,
               zorder=3)
    fit = family.fits.get(key)
    told = {"rates": [rate for rate, _ in fitted], "per_request": [cost for _, cost in fitted],
            "left_out_rates": [rate for rate, _ in apart], "left_out_per_request": [cost for _, cost in apart]}
    if fit is None or not fit.determined or len(fitted) < 2 or fit.falling:
        return told  # a slope below 0 is no cost a request (fixedcosts.FALLING): the steps alone
    # over the rates the family was measured at: a line beyond them would draw what no step measured
    low, high = min(rate for rate, _ in fitted), max(rate for rate, _ in fitted)
    told = {**told, "marginal": fit.marginal, "fixed": fit.fixed, "marginal_half": fit.marginal_half}
    ax.hlines(fit.marginal, low, high, color=colour, linewidth=0.8, linestyle="--")
    if math.isfinite(fit.marginal_half):  # a cost a request is not below 0: the band's floor, as the axis's
        ax.fill_between([low, high], max(fit.marginal - fit.marginal_half, 0.0), fit.marginal + fit.marginal_half,
                        color=colour, alpha=0.08, lw=0)
    if fit.fixed < 0:
        # no fixed cost, but a cost a request that rose with the load: its curve would bend below the marginal, and
        # below 0 where the marginal is small (the GC's pauses of 10 s blocks, several with none, fitted -1.26 ms/s
        # and drew -0.006 ms a request at 95 req/s, 2026-12-07, a default run)
        return {**told, "curve_drawn": False}
    grid = [low * (high / low) ** (i / (CURVE_POINTS - 1)) for i in range(CURVE_POINTS)]
    curve = [fit.marginal + fit.fixed / rate for rate in grid]
    ax.plot(grid, curve, color=colour, linewidth=1)
    return {**told, "curve_drawn": True, "curve_rates": grid, "curve": curve}


def _figure(key: str) -> costs.Figure:
    return next(figure for figure in costs.FIGURES if figure.key == key)
