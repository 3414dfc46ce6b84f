"""The host's speed as a row sees it: the CPU time one fixed piece of work takes on the sampler's own thread, read
with every CPU reading (with_host_work). Its CPU time, not its wall time: a runnable thread waiting for a core (the
rig's own load on 2 shared cores) adds nothing to it, while what slows every instruction on the host — another guest
on the physical core, a lower clock — adds to it as it adds to every tier's CPU per request. So it moves with the
host, and with the rows' own load ~2% (bench/host-speed), which k6's CPU per request (a cost that falls as its load
rises) cannot claim.

The work is the same loop every reading, so two readings taken with the same interpreter compare; two runs' figures
compare where they ran the same Python (the report names it)."""

from __future__ import annotations

import platform
import time
from collections.abc import Callable

from vtlab.series.holdstats import HOST_WORK

# A reading is the least of REPEATS runs of the loop: an interrupt or a migration landing in one run adds to that run
# alone. ~0.2 ms of CPU a run here (Python 3.11, 2026-12-01), so at the CPU sampler's 4 Hz ~0.25% of one core: the
# harness's own, counted as the rig's like its other readings.
ITERATIONS = 3000
REPEATS = 3
# What a reading is in: two readings compare only where the same interpreter ran the same loop
UNIT = f"{platform.python_implementation()} {'.'.join(platform.python_version_tuple()[:2])}, {ITERATIONS} steps"


def work_us(iterations: int = ITERATIONS, repeats: int = REPEATS) -> float:
    """The CPU µs the fixed work took on this thread, the least of `repeats` runs."""
    best = float("inf")
    for _ in range(repeats):
        began = time.thread_time_ns()
        _fixed_work(iterations)
        best = min(best, time.thread_time_ns() - began)
    return best / 1000


def _fixed_work(iterations: int) -> int:
    """A linear congruential generator stepped `iterations` times: integer arithmetic on a few small objects, the
    same instructions every time, no allocation that grows, no I/O."""
    x = 1
    for _ in range(iterations):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    return x


def with_host_work(read: Callable[[], dict[str, float]]) -> Callable[[], dict[str, float]]:
    """The CPU sampler's `read` with the fixed work's CPU µs added to each reading (HOST_WORK)."""
    def read_with() -> dict[str, float]:
        reading = read()
        reading[HOST_WORK] = work_us()
        return reading
    return read_with
