"""The model beside the measurement: Little's law on the passing points. Each passing row's verdict put its
lowest ceiling at the wall's count over the time a request holds it (200 threads ÷ 1 s of service time: 200
req/s); below the wall those ceilings agree, and their median is the capacity the model predicts. An open search
compares it with the highest passing arrival rate; a closed one with the users that, at that rate, would each wait
the objective's tightest latency limit (Little's law again: users = rate × time in the system)."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence

from vtlab.capacity.point import PointResult
from vtlab.core.objective import Objective
from vtlab.results.capacityfile import Prediction


def little(passed: Sequence[PointResult], measured: float, model: str, objective: Objective) -> Prediction | None:
    """The predicted capacity from the passing points' ceilings, with their spread and the measured capacity's
    error against it; None where no passing point had a ceiling (nothing to predict from)."""
    known = [p for p in passed if math.isfinite(p.ceiling_rps) and p.ceiling_rps > 0]
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
