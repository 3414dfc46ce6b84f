"""The JIT compiler apart from the service: a JVM's compiler threads (HotSpot's "C1/C2 CompilerThreadN") spend CPU
compiling its code, a cost of the JVM's own that fades as its code is compiled, not a cost of serving. Fitted with the
service's CPU over a staircase's steps it reads as a cost that falls with the load: the default run's first platform
step (100 users, ~95 req/s) held with the compiler still busy (74.6% of the service's CPU at its hold's start), and
the service CPU's line came out −0.968 ms a request + 445 ms/s (issue 44). Where every step measured the compiler's
CPU over its hold (holdstats' jit_cpu_ms_per_s), the service's CPU is fitted without it; where any step did not (a
service not vtlab's process, a cluster's pod, a run recorded before the count), as measured, and the report says the
compiler's time is in it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.explain import scrape
from vtlab.explain.model import Measured

GROSS_NAME = "service CPU"
NET_NAME = "service CPU, the compiler's apart"


def measured(m: Measured) -> bool:
    """Whether the row read its compiler threads' CPU over the hold."""
    return not math.isnan(m.jit_cpu_ms_per_s)


def apart(steps: Sequence[Measured]) -> bool:
    """Whether the compiler's CPU can be taken out of the service's over these steps: every one of them measured it
    (a line through some steps net and some gross would fit the difference as a cost)."""
    return bool(steps) and all(measured(m) for m in steps)


def service_cpu_ms_per_s(m: Measured) -> float:
    """The service's CPU a second over the hold, the rig's scrape and the compiler's taken out (NaN where the row
    did not measure the compiler's: `apart` decides before this is asked)."""
    return scrape.service_cpu_ms_per_s(m) - m.jit_cpu_ms_per_s


def share(m: Measured) -> float:
    """The compiler's share of everything the service's process spent in CPU over the hold (NaN: not measured)."""
    total = m.app_cpu_pct * 10  # % of one core → ms of CPU a second
    return m.jit_cpu_ms_per_s / total if measured(m) and total > 0 else math.nan
