"""The rig's own scrape, apart from the service: vtlab's service counts what each of the rig's scrapes of its meters
cost it (CPU and allocation, on the thread that writes the scrape: holdstats' scrape_* columns). That is a cost per
second whatever the load, which dividing the hold's totals by its requests would bill to each request, the more the
lower the rate (issue 44). Where a row measured it, the service's CPU and allocation per request are told with it
taken out; where not (a user's service, a run recorded before the count), as measured, and the report says so.
"""

from __future__ import annotations

import math

from vtlab.explain.model import Measured
from vtlab.results.rows import MeasuredRow


def without_scrape(per_request: float, scrape_per_s: float, rps: float) -> float:
    """A figure per request with the scrape's share of it taken out; as measured where the scrape was not."""
    if math.isnan(scrape_per_s) or not rps > 0:
        return per_request
    return per_request - scrape_per_s / rps


def service_own(row: MeasuredRow, rps: float) -> dict[str, float]:
    """A row's service CPU and allocation per request its own (by Measured's names): `rps` is every response a
    second, which holdstats divided them among."""
    return {"app_cpu_ms_per_req": without_scrape(row.app_cpu_ms_per_req, row.scrape_cpu_ms_per_s, rps),
            "alloc_kb_per_req": without_scrape(row.alloc_kb_per_req, row.scrape_kib_per_s, rps)}


def measured(m: Measured) -> bool:
    """Whether the row counted its scrapes' CPU (a user's service has no such meters)."""
    return not math.isnan(m.scrape_cpu_ms_per_s)


def service_cpu_ms_per_s(m: Measured) -> float:
    """The service's CPU a second over the hold without the scrape's, where measured (as measured where not)."""
    total = m.app_cpu_pct * 10  # % of one core → ms of CPU a second
    return total - m.scrape_cpu_ms_per_s if measured(m) else total


def cpu_share(m: Measured) -> float:
    """The scrape's share of everything the service's process spent in CPU over the hold (NaN: not measured)."""
    total = m.app_cpu_pct * 10
    return m.scrape_cpu_ms_per_s / total if measured(m) and total > 0 else math.nan
