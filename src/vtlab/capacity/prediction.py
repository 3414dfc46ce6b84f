"""The model beside the measurement: Little's law on the passing points. Each passing row's verdict put its
lowest ceiling at the wall's count over the time a request holds it (200 threads ÷ 1 s of service time: 200
req/s); below the wall those ceilings agree, and their median is the capacity the model predicts. An open search
compares it with the highest passing arrival rate; a closed one with the users that, at that rate, would each wait
the objective's tightest latency limit (Little's law again: users = rate × time in the system).

Beside it, the Universal Scalability Law fitted to the passing points' load and throughput (capacity.scalability):
where its peak lies within reach of the loads measured, the capacity it puts there — the peak's throughput for an open
search (the most rate the service would carry), the peak's load for a closed one (users past which throughput
falls) — and the measured capacity's error against it; otherwise why it predicts none.

Ahead of the measurement, what the staircase may step toward (`ahead`): the walls' ceilings of the highest passing
point, a hint for the next load to measure and nothing more; and where bisection may aim (`crossing`): the load at
which the bracket's edges' figures put the objective's limit."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from vtlab.capacity import scalability
from vtlab.capacity.point import PointResult
from vtlab.core.objective import Objective
from vtlab.results.capacityfile import Prediction, UslFit

# A fitted peak further than this beyond the highest passing load is not one the points set: the law extrapolated.
REACH = 10.0
# Between a pass and a failure whose figures lie within this factor of the limit, each side, the figure is taken to
# run as a power of the load from one to the other (the third-party app's p99 against 100 ms: 63 ms at 564 req/s, 86
# at 725, 134 at 933 in one run; 32 at 390, 60 at 551, 106 at 579 in another, where ×2 left four geometric middles
# to climb from 263 to 551); further out it turns at a knee (a queue's p99 1.1 s below its thread wall, 60 s past
# it), where a line through the edges says nothing of where it crosses.
SMOOTH = 3.0


def little(passed: Sequence[PointResult], measured: float, model: str, objective: Objective) -> Prediction | None:
    """The predicted capacity from the passing points' ceilings, with their spread and the measured capacity's
    error against it; None where no passing point had a ceiling (nothing to predict from)."""
    # An open search's "concurrency" ceiling is the offered rate itself (its users ÷ the time they wait): it rises
    # with every point and predicts nothing; a wall's ceiling (threads, the pool, the CPU) does.
    known = [p for p in passed if math.isfinite(p.ceiling_rps) and p.ceiling_rps > 0
             and not (model == "open" and p.limit == "concurrency")]
    if not known:
        return None
    ceilings = [p.ceiling_rps for p in known]
    scale = 1.0
    if model == "closed":
        limits = [c.limit for c in objective.conditions if not c.is_errors]
        if not limits:
            return None  # an error-only objective sets no time a user waits: no users to predict
        scale = min(limits) / 1000
    predicted = statistics.median(ceilings) * scale
    limit = Counter(p.limit for p in known).most_common(1)[0][0]
    service = [p.service_time_ms for p in known if math.isfinite(p.service_time_ms)]
    error = (measured - predicted) / predicted if math.isfinite(measured) else math.nan
    return Prediction("little", limit, predicted, min(ceilings) * scale, max(ceilings) * scale,
                      statistics.median(service) if service else math.nan, error, len(known))


def usl(passed: Sequence[PointResult], measured: float, model: str) -> UslFit:
    """The law fitted to the passing points (a load's throughput: the point's own), with the capacity it predicts
    and the measured one's error against it, or why it predicts none."""
    points = sorted({p.load: p.throughput_rps for p in passed
                     if p.load >= 1 and math.isfinite(p.throughput_rps) and p.throughput_rps > 0}.items())
    if len(points) < 3:
        return UslFit(len(points), why=f"underdetermined: {len(points)} passing load(s) with a throughput, and the "
                                       "law has three parameters (λ, σ, κ) to fit")
    fitted = scalability.fit(points)
    mean = statistics.fmean(x for _, x in points)
    rms = math.sqrt(fitted.sse / len(points)) / mean
    top = points[-1][0]
    peak_load = fitted.peak_load()
    # no turn down (κ = 0): the throughput's asymptote λ/σ is its most, reached at no finite load
    peak_rps = fitted.throughput(peak_load) if math.isfinite(peak_load) else (
        fitted.lam / fitted.sigma if fitted.sigma > 0 else math.inf)
    found = UslFit(len(points), fitted.lam, fitted.sigma, fitted.kappa,
                   peak_load if math.isfinite(peak_load) else math.nan,
                   peak_rps if math.isfinite(peak_rps) else math.nan, rms_share=rms)
    # where the peak is, or where the line through the origin meets the asymptote (N = 1/σ)
    reach = peak_load if math.isfinite(peak_load) else peak_rps / fitted.lam
    if reach > REACH * top:
        return replace(found, why=f"no peak the points set: the fitted throughput still rises {REACH:g}× beyond the "
                                  f"highest passing load ({top:g})")
    if model == "closed" and not math.isfinite(peak_load):
        return replace(found, why=f"no peak: κ = 0, the fitted throughput levels off at λ/σ = {peak_rps:,.0f} req/s "
                                  "without turning down, so no number of users is past it")
    capacity = peak_rps if model == "open" else peak_load
    error = (measured - capacity) / capacity if math.isfinite(measured) else math.nan
    return replace(found, capacity=capacity, error_share=error)


def ahead(passed: Sequence[PointResult], model: str) -> float:
    """The capacity the highest passing point's walls predict, in the search's unit; nan where none does. Its lowest
    wall ceiling (threads, the pool, the CPU …: the load's own ceiling predicts nothing, it rises with the load) in
    req/s; in users for a closed search, at that point's own time in the system (its users ÷ its throughput, Little's
    law: a time that only grows toward the capacity, so the users predicted are at most those it would carry)."""
    if not passed:
        return math.nan
    top = max(passed, key=lambda p: p.load)
    walls = [rps for rps in top.ceilings.values() if math.isfinite(rps) and rps > 0]
    if top.limit not in ("", "concurrency") and math.isfinite(top.ceiling_rps) and top.ceiling_rps > 0:
        walls.append(top.ceiling_rps)
    if not walls:
        return math.nan
    if model == "open":
        return min(walls)
    return min(walls) * top.load / top.throughput_rps if top.throughput_rps > 0 else math.nan


def crossing(objective: Objective, passed: PointResult, failed: PointResult) -> float:
    """The load where the objective's percentiles would first cross their limits, each interpolated between the
    last pass and the lowest failure as a power of the load (a straight line in log-log); nan where a percentile the
    failure crossed lies beyond SMOOTH of its limit on either side, where its failure was its error rate, or where
    no percentile runs from under its limit to over it. A place to aim a point at, never a point's outcome."""
    loads = (passed.load, failed.load)
    if min(loads) < 1 or loads[0] >= loads[1]:
        return math.nan
    found = math.nan
    for condition in objective.conditions:
        if condition.is_errors:
            if failed.requests <= 0 or failed.errors / failed.requests > condition.limit:
                return math.nan  # the failure may be its errors': no percentile says where those cross
            continue
        low, high = passed.percentiles.get(condition.metric), failed.percentiles.get(condition.metric)
        if low is None or high is None or not (low.value > 0 and high.value > 0):
            if high is not None and high.value > condition.limit:
                return math.nan  # crossed, from a figure not measured: no line to follow
            continue
        below, above = low.value / condition.limit, high.value / condition.limit
        if above <= 1 or below >= 1:
            continue  # it did not cross between them
        if below < 1 / SMOOTH or above > SMOOTH:
            return math.nan  # a knee between them: no line to follow
        share = -math.log(below) / (math.log(above) - math.log(below))
        at = loads[0] * (loads[1] / loads[0]) ** share
        found = at if math.isnan(found) else min(found, at)
    return found
