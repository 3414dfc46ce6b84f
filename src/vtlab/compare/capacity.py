"""Two capacity runs compared (`vtlab compare BASE NEW` where both hold capacity.json): each thread mode's capacity,
the change and its range from the two brackets. A change is better or worse only where the brackets do not overlap
(every load between an edge and the next is unmeasured: the capacity could be anywhere in its bracket), so the gate
(`--fail-on 'capacity<-5%'`) fails a build on no difference the search could not resolve. A search that did not
finish (capacity.json marked incomplete) is compared and said so, but never passes a gate: its brackets are where
it was cut short, not where it would have ended, so the gate fails it (exit 1) rather than let it through."""

from __future__ import annotations

import math

from vtlab.compare.stats import BETTER, SAME, UNKNOWN, WORSE, Change
from vtlab.explain.loadwall import SIZED_WALLS
from vtlab.results.capacityfile import HOST_STEADY_SPREAD_PCT, CapacityRun, ModeCapacity

METRIC = "capacity"  # its name in a gate condition


def mismatch(base: CapacityRun, new: CapacityRun) -> str | None:
    """Why two capacity runs do not compare (another objective, another load model), or None."""
    if (base.objective, base.model) != (new.objective, new.model):
        return (f"BASE found capacity at {base.objective} ({base.model} model), NEW at {new.objective} ({new.model} "
                "model): capacities at different objectives do not compare")
    return None


def unfinished(base: CapacityRun, new: CapacityRun) -> tuple[str, ...]:
    """"BASE", "NEW" or both: the runs whose search did not finish."""
    return tuple(name for name, run in (("BASE", base), ("NEW", new)) if not run.complete)


def changes(base: CapacityRun, new: CapacityRun) -> list[tuple[str, str, Change]]:
    """(mode, "capacity", change) for every mode both runs searched, in BASE's order."""
    found = []
    for before in base.modes:
        after = new.mode(before.mode)
        if after is not None:
            found.append((before.mode, METRIC, change(before, after)))
    return found


def change(base: ModeCapacity, new: ModeCapacity) -> Change:
    """NEW's capacity against BASE's: the change's range runs from NEW's lowest possible against BASE's highest to
    NEW's highest against BASE's lowest (a bracket with no upper edge reaches any load above it)."""
    if math.isnan(base.capacity) or math.isnan(new.capacity):
        return Change(base.capacity, new.capacity, new.capacity - base.capacity, math.nan, math.nan, UNKNOWN)
    base_high = base.bracket_high if math.isfinite(base.bracket_high) else math.inf
    new_high = new.bracket_high if math.isfinite(new.bracket_high) else math.inf
    low, high = new.bracket_low - base_high, new_high - base.bracket_low
    verdict = WORSE if high < 0 else BETTER if low > 0 else SAME
    return Change(base.capacity, new.capacity, new.capacity - base.capacity, low, high, verdict)


def lines(base: CapacityRun, new: CapacityRun, found: list[tuple[str, str, Change]], failed: set[str],
          gated: bool = False) -> list[str]:
    """The comparison in words, a line a mode; `failed`: the modes a gate condition failed on; `gated`: whether a
    gate was asked for (which a run that did not finish fails)."""
    said = [f"capacity at {base.objective} ({base.unit}): BASE against NEW"]
    for name in unfinished(base, new):
        said.append(f"  {name}'s search is INCOMPLETE: it did not finish, its brackets are as they stood"
                    + ("; the gate FAILS: it passes only finished searches" if gated else ""))
    for mode, _, moved in found:
        share = f"{moved.share * 100:+.1f}%" if math.isfinite(moved.share) else "?"
        gate = "  FAILS the gate" if mode in failed else ""
        said.append(f"  {mode}: {_n(moved.base)} -> {_n(moved.new)} ({share}, range {_n(moved.low)} to "
                    f"{_n(moved.high)}) {moved.verdict}{gate}")
        before, after = base.mode(mode), new.mode(mode)
        units = (base.host_work_unit, new.host_work_unit)
        if before is not None and after is not None and (scale := on_one_scale(before, after, base.unit, units)):
            said.append(f"    {scale}")
    return said


def on_one_scale(base: ModeCapacity, new: ModeCapacity, unit: str, units: tuple[str, str] = ("", "")) -> str:
    """NEW's capacity on BASE's host speed, where both read it at their capacities (the fixed work's CPU µs,
    measure.hostwork) in one unit (`units`: BASE's and NEW's) and a CPU wall held NEW's at its upper edge (its capacity
    moves with the host's speed, in proportion), with the change that is left on one scale, unless the host's speed
    moved under either point (ModeCapacity.host_moved: its median there is not its speed there); where a setting's wall
    held it, that the host's speed does not move it. "" where either did not read the host's speed."""
    base_us, new_us = base.host_work_us(), new.host_work_us()
    if not (base_us > 0 and new_us > 0 and math.isfinite(new.capacity)):
        return ""
    if units[0] != units[1]:
        return (f"the host's fixed work read in other units ({units[0] or 'not recorded'} in BASE, "
                f"{units[1] or 'not recorded'} in NEW): not put on one scale")
    hosts = f"the host's fixed work {base_us:,.0f} µs of CPU in BASE, {new_us:,.0f} in NEW"
    wall = new.edge_wall()
    runs = {"BASE": base, "NEW": new}
    moved = [name for name, mode in runs.items() if mode.host_moved()]
    if wall == "cpu" and moved:
        spreads = " and ".join(f"{runs[name].host_work_spread_pct():.1f}%" for name in moved)
        return (f"{hosts}, each its point's median; the host's speed moved under {' and '.join(moved)}'s "
                f"point{'s' if len(moved) > 1 else ''} ({spreads} from the 10th to the 90th percentile; steady within "
                f"{HOST_STEADY_SPREAD_PCT:.0f}%): a cpu wall moves with the host's speed, but the median of a moving "
                "host is not its speed there, so not put on one scale")
    if wall == "cpu":
        scaled = new.capacity * new_us / base_us
        left = (f": {scaled / base.capacity - 1:+.1%} from BASE's {_n(base.capacity)} on one scale, against "
                f"{new.capacity / base.capacity - 1:+.1%} as measured") if base.capacity > 0 else ""
        unread = [name for name, mode in runs.items() if math.isnan(mode.host_work_spread_pct())]
        unsaid = (f" (how far the host moved under {' and '.join(unread)}'s point{'s' if len(unread) > 1 else ''} "
                  "was not recorded)") if unread else ""
        return f"on BASE's host speed ({hosts}; a cpu wall moves with it): NEW's {_n(new.capacity)} is {_n(scaled)} " \
               f"{unit}{left}{unsaid}"
    if wall in SIZED_WALLS:
        return f"{hosts}: a {wall} wall, sized by its setting, which the host's speed does not move"
    return f"{hosts}; NEW's wall ({wall or 'not named'}) says nothing of how the host's speed moves it"


def _n(value: float) -> str:
    return f"{value:,.0f}" if math.isfinite(value) else "?"
