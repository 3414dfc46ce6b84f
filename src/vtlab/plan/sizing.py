"""Points from this machine's calibration: a profile's top point moved down to the most users this machine carries
with the load generator inside the rig's validity limit; never up, never a point the user gave (--conc).

The limit is the rig's own, read from how it judges a row (explain.validity, explain.generatorprice): k6's cost is
judged only on a host at least generator_host_busy_pct busy (below it, the cross-check against wrk saw no cost), and
there only where the throughput it costs — generator_loss_per_share × k6's share of the machine — is beyond the
between-run noise floor. A point meets the limit where either holds, so the most it may ask is the larger of
- the rate whose CPU, all tiers together (each tier's fixed cost a second + its marginal cost × the rate, as the
  calibration measured them), keeps the host below generator_host_busy_pct of the CPU vtlab may use, and
- the rate at which k6's own CPU (its fixed + marginal × the rate) costs at most the noise floor's share of the
  throughput — never beyond the whole CPU.
A closed-model point of U users waiting D ms a request asks U ÷ D of a virtual-thread service; platform threads serve
at most their thread count ÷ D. The dearer mode of the plan's decides.

Pure: the calibration is handed in (the command line reads the cache); nothing is measured here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

from vtlab.core import constants, noisefloor
from vtlab.plan.calibration import Calibration, ModeCost
from vtlab.plan.presets import DEFAULT_WORKLOAD, SIZED_PROFILES, Block


@dataclass(frozen=True)
class Moved:
    """A profile's nominal point and the one the calibration chose instead, with why."""
    nominal: int
    chosen: int
    why: str


@dataclass(frozen=True)
class Reach:
    """The most a mode may ask of this machine: a rate (req/s), the share of the CPU vtlab may use it takes, and
    which side of the generator's limit set it."""
    rate: float
    share: float
    why: str


def applies(profile: str, given: Mapping[str, object], model: str) -> bool:
    """Whether the calibration sizes this plan's points: a sized profile on vtlab's own order-summary call, in the
    closed model, whose users the user did not give."""
    return (profile in SIZED_PROFILES and model == "closed" and given.get("concurrency") is None
            and given.get("rates") is None and given.get("workloads") in (None, (DEFAULT_WORKLOAD,)))


def reach(cost: ModeCost, capacity_cores: float, rig: constants.Constants | None = None) -> Reach:
    """The most one mode may ask here with k6 inside the rig's validity limit (this module's docstring), judged by
    `rig` (this version's constants unless given)."""
    rig = rig or constants.CURRENT
    capacity = capacity_cores * 1000  # ms of CPU a second
    fixed, marginal = cost.fixed_ms_per_s, cost.marginal_ms
    full = (capacity - fixed) / marginal
    reaches = []
    busy = rig.generator_host_busy_pct / 100
    if math.isfinite(busy):
        reaches.append(((busy * capacity - fixed) / marginal,
                        f"below a host {busy:.1%} busy, where the rig starts judging k6's cost"))
    noise = noisefloor.Floor(rig.noise_floor_cv_pct, rig.noise_floor_runs).half_share
    k6 = cost.splits["k6"]
    if math.isfinite(noise) and rig.generator_loss_per_share > 0 and k6.marginal_ms > 0:
        k6_most = noise / rig.generator_loss_per_share * capacity  # k6's CPU whose cost is within the noise floor
        reaches.append((min(full, (k6_most - k6.fixed_ms_per_s) / k6.marginal_ms),
                        f"k6 at most {k6_most / capacity:.1%} of the machine, costing at most the "
                        f"{noise:.1%} between-run noise floor"))
    rate, why = max(reaches, default=(full, "the whole CPU: the rig prices no generator cost"))
    rate = max(rate, 0.0)
    return Reach(rate, (fixed + marginal * rate) / capacity, why)


def users_within(cost: ModeCost, mode: str, capacity_cores: float, delay_ms: int, threads: int,
                 rig: constants.Constants | None = None) -> int | None:
    """The most users of `mode` this machine carries within the limit; None where no number of them would pass
    it (platform threads whose wall, threads ÷ delay, is within it)."""
    most = reach(cost, capacity_cores, rig).rate
    if mode == "platform" and threads * 1000 / delay_ms <= most:
        return None
    return max(1, math.floor(most * delay_ms / 1000))


def size(blocks: Sequence[Block], measured: Calibration, delay_ms: int, threads: int,
         rig: constants.Constants | None = None) -> tuple[tuple[Block, ...], tuple[Moved, ...]]:
    """The blocks with their top point moved down to what this machine carries (where it carries less), and the
    point moved; the blocks as given where it carries the top point or no plan mode was calibrated."""
    nominal = max(users for block in blocks for users in block.concurrency)
    modes = [mode for mode in dict.fromkeys(m for block in blocks for m in block.modes) if mode in measured.modes]
    carried = {mode: users_within(measured.modes[mode], mode, measured.capacity, delay_ms, threads, rig)
               for mode in modes}
    limited = {mode: users for mode, users in carried.items() if users is not None and users < nominal}
    if not limited:
        return tuple(blocks), ()
    mode = min(limited, key=lambda m: limited[m])
    chosen = limited[mode]
    moved = Moved(nominal, chosen, _why(measured, mode, nominal, chosen, delay_ms, rig))
    return tuple(replace(block, concurrency=tuple(dict.fromkeys(chosen if users == nominal else users
                                                                for users in block.concurrency)))
                 for block in blocks), (moved,)


def _why(measured: Calibration, mode: str, nominal: int, chosen: int, delay_ms: int,
         rig: constants.Constants | None) -> str:
    cost, capacity = measured.modes[mode], measured.capacity
    reached = reach(cost, capacity, rig)

    def share(users: int) -> float:
        return (cost.fixed_ms_per_s + cost.marginal_ms * users * 1000 / delay_ms) / (capacity * 1000)
    return (f"{nominal:,} {mode}-thread users at {delay_ms:,} ms ask {nominal * 1000 / delay_ms:,.0f} req/s, whose CPU "
            f"(all tiers: {cost.marginal_ms:.3f} ms a request + {cost.fixed_ms_per_s:.0f} ms/s, this machine's "
            f"calibration of {measured.measured_at[:10]}) would take {share(nominal):.0%} of the {capacity:g} cores "
            f"vtlab may use; {chosen:,} take {share(chosen):.0%}, the most with k6 inside the rig's validity limit "
            f"({reached.why})")


def describe(measured: Calibration, moved: Sequence[Moved]) -> dict[str, object]:
    """What the run's metadata records of its sizing: the calibration used and each point moved."""
    return {"calibration": {"machine": measured.machine, "measured_at": measured.measured_at,
                            "capacity_cores": measured.capacity, "summary": measured.summary()},
            "moved": [asdict(m) for m in moved]}


def said(profile: str, given: Mapping[str, object], model: str, sizing: Mapping[str, object]) -> str:
    """The run's first line's words on what the calibration sized ("" where it sizes nothing in this plan)."""
    if not applies(profile, given, model):
        return ""
    if not sizing:
        return "points as the profile's (no calibration of this machine cached: `vtlab calibrate` measures one)"
    moved = sizing.get("moved") or []
    when = str(sizing["calibration"]["measured_at"])[:10]  # type: ignore[index]
    if not moved:
        return f"points as the profile's: this machine carries them (calibration of {when})"
    return "sized by this machine's calibration of " + when + ": " + ", ".join(
        f"{m['nominal']:,} users → {m['chosen']:,}" for m in moved)  # type: ignore[index]
