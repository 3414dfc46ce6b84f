"""The thread modes compared at equal host speed, where the host's own speed moved under a CPU-bound service: each
mode's CPU a request in units of k6's own CPU over the same seconds (series.holdstats._in_k6_units). k6 does the same
work for every request, so a host that slows or speeds up moves every tier's CPU and k6's alike and these ratios
stay, where the throughput does not: a third-party app's platform rows, 20 min apart, served 2,468 and 1,858 req/s at
2.571 and 2.548 of k6's CPU a request (tp3, tp4, 2026-11-28).

Told for a pair of rows alike but for their thread mode, on a full host with the CPU as its wall, each either valid
or invalid only for a hold the host's speed moved (the note host-speed beside not-steady or too-noisy): there the
throughput is the machine's at each moment, and the costs are what compares. At the CPU wall of a full host every
tier shares, what a request costs all of them together sets the throughput: platform's ÷ virtual's is what virtual
threads serve against platform threads at one speed of the host."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.core import dimensions
from vtlab.core.constants import Constants
from vtlab.explain.model import Verdict
from vtlab.explain.validity import HOST_SPEED, UNSTEADY, invalidating
from vtlab.report.labels import row_label


def _moved(verdict: Verdict) -> bool:
    """Whether the row carries the host-speed note: its hold moved with the host's speed."""
    return any(flag.startswith(HOST_SPEED) for flag in verdict.flags)


def _usable(verdict: Verdict, rig: Constants) -> bool:
    """A row on a full host whose wall was the CPU, its costs in k6's units measured, valid or unsteady only as the
    host's speed moved."""
    m = verdict.measured
    if verdict.bottleneck != "cpu" or not m.host_cpu_pct >= rig.saturated_share * 100:
        return False
    if not all(math.isfinite(x) for x in (m.app_cpu_per_k6_cpu, m.app_cpu_per_k6_cpu_ci95, m.tiers_cpu_per_k6_cpu,
                                          m.tiers_cpu_per_k6_cpu_ci95)):
        return False
    return verdict.valid or (_moved(verdict) and set(invalidating(verdict.flags)) <= set(UNSTEADY))


def _pair_key(verdict: Verdict) -> tuple:
    """Every dimension but the thread mode and the rep."""
    return tuple(getattr(verdict.row, name) for name in dimensions.NAMES if name not in ("thread_mode", "rep"))


def _mean(values: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Reps' mean and its half-width (independent reps: half-widths in quadrature, over their count)."""
    return (sum(v for v, _ in values) / len(values), math.sqrt(sum(h * h for _, h in values)) / len(values))


def _ratio(top: tuple[float, float], bottom: tuple[float, float]) -> tuple[float, float, float]:
    """top ÷ bottom with its 95% range, to first order (independent: relative half-widths in quadrature)."""
    value = top[0] / bottom[0]
    relative = math.hypot(top[1] / top[0], bottom[1] / bottom[0])
    return value, value * (1 - relative), value * (1 + relative)


def sentences(verdicts: Sequence[Verdict], rig: Constants, threads: int) -> list[str]:
    """One sentence for each pair of rows the host's speed moved where both modes' costs are known; none where no
    row's hold was moved by the host's speed (a steady run needs no other comparison than its throughput's)."""
    pairs: dict[tuple, dict[str, list[Verdict]]] = {}
    for verdict in verdicts:
        if _usable(verdict, rig):
            pairs.setdefault(_pair_key(verdict), {}).setdefault(verdict.row.thread_mode, []).append(verdict)
    told = []
    for modes in pairs.values():
        if set(modes) != {"platform", "virtual"}:
            continue
        if not any(_moved(v) for rows in modes.values() for v in rows):
            continue
        service = {mode: _mean([(v.measured.app_cpu_per_k6_cpu, v.measured.app_cpu_per_k6_cpu_ci95) for v in rows])
                   for mode, rows in modes.items()}
        tiers = {mode: _mean([(v.measured.tiers_cpu_per_k6_cpu, v.measured.tiers_cpu_per_k6_cpu_ci95) for v in rows])
                 for mode, rows in modes.items()}
        cost, cost_low, cost_high = _ratio(service["virtual"], service["platform"])
        serves, serves_low, serves_high = _ratio(tiers["platform"], tiers["virtual"])
        label = row_label(modes["virtual"][0].row, threads).removeprefix("virtual ")
        told.append(
            f"At equal host speed ({label}; the host's own speed moved these holds, {HOST_SPEED.rstrip(':')}, so their "
            "throughputs are the machine's at each moment, not the thread modes'): in units of k6's own CPU over the "
            "same seconds, which a slower host raises alike, the service took "
            f"{service['platform'][0]:.3f} ± {service['platform'][1]:.3f} of k6's CPU a request with platform threads "
            f"and {service['virtual'][0]:.3f} ± {service['virtual'][1]:.3f} with virtual threads: virtual's "
            f"{(cost - 1) * 100:+.1f}% [{(cost_low - 1) * 100:+.1f}%, {(cost_high - 1) * 100:+.1f}%]; every tier "
            f"together {tiers['platform'][0]:.3f} against {tiers['virtual'][0]:.3f}, so at this full host's CPU wall "
            f"virtual threads serve {serves:.2f}× [{serves_low:.2f}–{serves_high:.2f}] what platform threads do "
            "(95%, to first order).")
    return told
