"""What k6's CPU cost a row on cores it shared with the service, priced by the cross-check against wrk
(core.generatorcheck; the run's rig records the price): the share of the throughput it cost, its 95% interval, and
whether that correction can be bounded.

A CPU-bound service on shared cores is still answered: where the cost is beyond the between-run noise floor and
bounded (k6 took no more of the machine than the cross-check priced, and the loss's upper end leaves some
throughput), the row stays valid with a note, its throughput as measured (both thread modes shared the cores with
k6 alike, so they still compare), and carries what the service would serve without k6 on its cores: measured ÷
(1 − loss). Where it cannot be bounded, the generator interferes (validity) and the evidence says why.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from vtlab.core import noisefloor
from vtlab.core.measures import given
from vtlab.explain.model import Context
from vtlab.results.rows import MeasuredRow

# A valid row's note: the generator's cost, priced and carried as a correction ("generator-priced:22%±27%").
GENERATOR_PRICED = "generator-priced:"
# Where the price comes from, as the evidence and the report say it.
PRICED_AGAINST = "priced against wrk, reference/generator-crosscheck"


class Priced(NamedTuple):
    """k6's share of the machine and what it cost the row's throughput (shares, 0–1), with why the correction
    cannot be bounded ("" where it can)."""
    share: float
    loss: float
    half: float        # the loss's 95% half-width: the slope's times the share
    unbounded: str

    @property
    def bounded(self) -> bool:
        return not self.unbounded

    @property
    def note(self) -> str:
        return f"{GENERATOR_PRICED}{self.loss * 100:.0f}%±{self.half * 100:.0f}%"

    def without(self, measured_rps: float) -> tuple[float, float, float]:
        """The service's throughput without k6 on its cores, and its 95% interval: measured ÷ (1 − loss), the
        interval from the loss's (the slope's, at this share)."""
        value, low, high = self.more()
        return measured_rps * (1 + value), measured_rps * (1 + low), measured_rps * (1 + high)

    def more(self) -> tuple[float, float, float]:
        """How much more the service would serve without k6 (shares: 0.28 is 28% more), with its interval."""
        return tuple(1 / (1 - loss) - 1  # type: ignore[return-value]
                     for loss in (self.loss, self.loss - self.half, self.loss + self.half))


def generator_cost(row: MeasuredRow, ctx: Context) -> float:
    """What k6's CPU cost the row, as a share of its throughput, on cores the tiers share with the host as busy as
    the cross-check (reference/generator-crosscheck/) saw k6 cost a row: the share of the machine k6 took times what
    the cross-check measured each share to cost. 0 on cores of its own or on a quieter host, where no cost was
    seen."""
    if not ctx.shared_cores or not given(row.host_cpu_pct, 0) >= ctx.rig.generator_host_busy_pct:
        return 0.0
    return ctx.rig.generator_loss_per_share * _share(row, ctx)


def generator_costly(row: MeasuredRow, ctx: Context) -> bool:
    """What k6 cost the row is beyond the rig's between-run noise floor: the row's throughput then measures the
    generator's share of the cores as much as the service, and is either priced or interfered with."""
    return generator_cost(row, ctx) > noisefloor.half_share(ctx.rig)


def priced(row: MeasuredRow, ctx: Context) -> Priced | None:
    """The row's generator price where its cost is beyond the noise floor; None where there is nothing to correct
    (a quiet host, cores of its own, a cost inside the noise)."""
    if not generator_costly(row, ctx):
        return None
    rig, share = ctx.rig, _share(row, ctx)
    loss, half = rig.generator_loss_per_share * share, rig.generator_loss_per_share_ci95 * share
    if math.isnan(half) or math.isnan(rig.generator_priced_share_max):
        why = "the run recorded no uncertainty for the generator's price (recorded before vtlab measured one)"
    elif share > rig.generator_priced_share_max:
        why = (f"k6 took {share * 100:.0f}% of the machine, beyond the {rig.generator_priced_share_max * 100:.0f}% "
               "the cross-check priced")
    elif loss + half >= 1:
        why = (f"the loss's 95% upper end, {(loss + half) * 100:.0f}%, is the whole throughput or more: nothing "
               "bounds what the service would serve without k6")
    else:
        why = ""
    return Priced(share, loss, half, why)


def _share(row: MeasuredRow, ctx: Context) -> float:
    """k6's CPU as a share of the whole machine (1 = every core)."""
    return given(row.load_cpu_pct, 0) / (ctx.host_cpus * 100)
