"""The terminal's words for a capacity run: one line a mode, its capacity and bracket, where and why it broke, the
models' predictions beside it (Little's law, the Universal Scalability Law), and why the search stopped; a search
that did not finish, said first."""

from __future__ import annotations

import math

from vtlab.explain import loadwall
from vtlab.results.capacityfile import CapacityRun, ModeCapacity


def lines(run: CapacityRun) -> list[str]:
    said = [f"capacity at {run.objective} ({run.model} model, loads in {run.unit}):"]
    if not run.complete:
        said.append("  INCOMPLETE: the search did not finish; each bracket is as it stood (why each mode stopped "
                    "says what cut it short)")
    for mode in run.modes:
        said.append("  " + headline(mode, run.unit, run.model))
        said.append(f"    stopped: {mode.stop}; {len(mode.points)} point(s), {mode.spent_s / 60:.1f} min")
        if mode.prediction is not None:
            said.append("    " + predicted(mode, run.unit))
        if mode.usl is not None:
            said.append("    " + scalability(mode, run.unit))
        if math.isfinite(mode.host_index_ms()):
            said.append("    " + host_index(mode))
    value, allowed = run.ratio()[0], run.ratio_allowed()
    if math.isfinite(value):
        said.append(f"  virtual ÷ platform capacity: {value:.2f}×" + (f" ({allowed})" if allowed else "")
                    + ("; the modes searched in turn, both JVMs up together" if run.in_turn else ""))
    return said


def host_index(mode: ModeCapacity) -> str:
    """ "k6 at the capacity: 0.312 ms of CPU a request (0.811 at the first load, 100); a CPU wall: …"."""
    return loadwall.index_words(mode)


def headline(mode: ModeCapacity, unit: str, model: str = "open") -> str:
    """"platform: 198 req/s (bracket 198–210, 6%), p99 crossed 500 ms at 210 req/s: thread-pool, 200 threads busy"."""
    if math.isnan(mode.capacity) and math.isnan(mode.bracket_high) and not mode.points:
        found = "no point measured"
    elif math.isnan(mode.capacity):
        found = "no load met the objective"
    else:
        found = f"{_n(mode.capacity)} {unit}"
        if math.isfinite(mode.bracket_high):
            found += f" (bracket {_n(mode.bracket_low)}–{_n(mode.bracket_high)}, {mode.bracket_share * 100:.0f}%)"
        else:
            found += " (no load above it broke the objective)"
    if mode.crossed:
        found += f", {mode.crossed} at {_n(mode.crossed_at)} {unit}"
        if loadwall.unnamed(model, mode.wall):
            found += f" with {loadwall.words(mode.evidence, mode.utilisation)}"
        elif mode.wall:
            found += f": {mode.wall}" + (f", {mode.evidence}" if mode.evidence else "")
    found += loadwall.edge(mode, unit, model)
    return f"{mode.mode}: {found}"


def predicted(mode: ModeCapacity, unit: str) -> str:
    p = mode.prediction
    error = f", measured {p.error_share * 100:+.0f}% from it" if math.isfinite(p.error_share) else ""
    return (f"model: {_n(p.capacity)} {unit} by Little's law ({p.limit}, from {p.points} passing point(s), "
            f"ceilings {_n(p.low)}–{_n(p.high)}){error}")


def scalability(mode: ModeCapacity, unit: str) -> str:
    """"USL: 205 req/s at its peak (σ 0.010, κ 0.00002, over 5 passing loads), measured -10% from it"."""
    usl = mode.usl
    if usl.why:
        return f"USL: no capacity predicted ({usl.why})"
    error = f", measured {usl.error_share * 100:+.0f}% from it" if math.isfinite(usl.error_share) else ""
    return (f"USL: {_n(usl.capacity)} {unit} at its peak (σ {usl.sigma:.3g}, κ {usl.kappa:.3g}, over {usl.points} "
            f"passing loads){error}")


def _n(value: float) -> str:
    return f"{value:,.0f}" if math.isfinite(value) else "?"
