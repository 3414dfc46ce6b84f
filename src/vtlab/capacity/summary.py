"""The terminal's words for a capacity run: one line a mode, its capacity and bracket, where and why it broke, the
model's prediction beside it, and why the search stopped."""

from __future__ import annotations

import math

from vtlab.results.capacityfile import CapacityRun, ModeCapacity


def lines(run: CapacityRun) -> list[str]:
    said = [f"capacity at {run.objective} ({run.model} model, loads in {run.unit}):"]
    for mode in run.modes:
        said.append("  " + headline(mode, run.unit))
        said.append(f"    stopped: {mode.stop}; {len(mode.points)} point(s), {mode.spent_s / 60:.1f} min")
        if mode.prediction is not None:
            said.append("    " + predicted(mode, run.unit))
    return said


def headline(mode: ModeCapacity, unit: str) -> str:
    """"platform: 198 req/s (bracket 198–210, 6%), p99 crossed 500 ms at 210 req/s: thread-pool, 200 threads busy"."""
    if math.isnan(mode.capacity):
        found = "no load met the objective"
    else:
        found = f"{_n(mode.capacity)} {unit}"
        if math.isfinite(mode.bracket_high):
            found += f" (bracket {_n(mode.bracket_low)}–{_n(mode.bracket_high)}, {mode.bracket_share * 100:.0f}%)"
        else:
            found += " (no load above it broke the objective)"
    if mode.crossed:
        found += f", {mode.crossed} at {_n(mode.crossed_at)} {unit}"
        if mode.wall:
            found += f": {mode.wall}" + (f", {mode.evidence}" if mode.evidence else "")
    return f"{mode.mode}: {found}"


def predicted(mode: ModeCapacity, unit: str) -> str:
    p = mode.prediction
    error = f", measured {p.error_share * 100:+.0f}% from it" if math.isfinite(p.error_share) else ""
    return (f"model: {_n(p.capacity)} {unit} by Little's law ({p.limit}, from {p.points} passing point(s), "
            f"ceilings {_n(p.low)}–{_n(p.high)}){error}")


def _n(value: float) -> str:
    return f"{value:,.0f}" if math.isfinite(value) else "?"
