"""The rig's scrape as a line of its own: what the rig's scrapes of the service's meters cost it each second and each
scrape in a point's two modes, and its share of the service's CPU there — the cost explain.scrape took out of the
service's figures per request. Where the service counted no scrape (a user's service, a run recorded before the
count), the line says it was not measured and that those figures include it.
"""

from __future__ import annotations

from vtlab.explain import scrape
from vtlab.explain.model import Measured
from vtlab.report.labels import fmt

NOT_MEASURED = ("not measured (the service counts no scrape of its own: a user's service, or a run recorded before "
                "vtlab's did), so the service's figures per request include it")


def sentence(point: str, platform: Measured, virtual: Measured) -> str:
    """One sentence for a point measured in both modes."""
    told = [(mode, m) for mode, m in (("platform", platform), ("virtual", virtual)) if scrape.measured(m)]
    if not told:
        return f"{point}: the rig's scrape: {NOT_MEASURED}."
    parts = [f"on {mode} threads {cost(m)}" for mode, m in told]
    unmeasured = [mode for mode, m in (("platform", platform), ("virtual", virtual)) if not scrape.measured(m)]
    parts += [f"not measured on {mode} threads (its figures per request include it)" for mode in unmeasured]
    return (f"{point}: the rig's scrape: " + "; ".join(parts)
            + " — taken out of the service's CPU and allocation per request where measured.")


def cost(m: Measured) -> str:
    """A row's scrape, as the rig's cost: a second, a scrape, and its share of the service's CPU."""
    return (f"{fmt(m.scrape_cpu_ms_per_s, 2)} ms of CPU and {fmt(m.scrape_kib_per_s, 1)} KiB a second "
            f"({fmt(m.scrape_cpu_ms_per_scrape, 2)} ms and {fmt(m.scrape_kib_per_scrape, 1)} KiB a scrape), "
            f"{fmt(scrape.cpu_share(m) * 100, 1)}% of the service's CPU in this row")
