"""Simulated services for the capacity search: each answers `measure(mode, load)` with a PointResult whose true p99
is known in closed form, so a test knows the capacity without asking the code under test."""

from __future__ import annotations

import math
import random

from vtlab.capacity.point import Interval, PointResult


def queue_p99_ms(rate: float, service_ms: float = 1000.0, knee: float = 180.0, wall: float = 200.0) -> float:
    """The service time until the knee, then waiting that grows without bound toward the wall (as an M/M/c queue's
    does): p99 = S + S (rate - knee) / (wall - rate). With S = 1 s, knee 180, wall 200, p99 reaches 1,500 ms at
    rate = (180 + 0.5 × 200) / 1.5 = 186.67 req/s."""
    if rate >= wall:
        return 60_000.0  # past the wall the queue grows for the whole hold
    return service_ms + service_ms * max(0.0, rate - knee) / (wall - rate)


class Service:
    """A service with a known p99 curve; `noise` is the half-width of the interval the point reports, as a share of
    the true p99. The measured p99 scatters uniformly within half that half-width, so that its interval always covers
    the truth, and so does the interval of up to four measurements pooled (the search's repeats: capacity.point's
    pooled() narrows the half-width by √n, as a 95% interval's is, while a uniform scatter's mean need not come
    closer to the truth). `ceiling_rps`: the wall's ceiling each point reports, the model the staircase may step
    toward (nan: none). `carries`: the most req/s it serves; a load above it is served at that rate (inf: every
    load in full)."""

    def __init__(self, p99=queue_p99_ms, noise=0.01, seconds=60.0, seed=1, invalid_from=None, flaky_at=(),
                 ceiling_rps=200.0, carries=math.inf):
        self.p99, self.noise, self.seconds = p99, noise, seconds
        self.random = random.Random(seed)
        self.invalid_from, self.flaky_at = invalid_from, set(flaky_at)
        self.ceiling_rps, self.carries = ceiling_rps, carries
        self.calls: list[tuple[str, int]] = []

    def __call__(self, mode: str, load: int) -> PointResult:
        self.calls.append((mode, load))
        truth = self.p99(load)
        half = truth * self.noise
        seen = truth + self.random.uniform(-half, half) / 2
        invalid = (self.invalid_from is not None and load >= self.invalid_from) or load in self.flaky_at
        self.flaky_at.discard(load)  # flaky: invalid the first time only
        return PointResult(mode, load, {"p99": Interval(seen, seen - half, seen + half)}, errors=0,
                           requests=load * 30, valid=not invalid, flags=("generator-limited",) if invalid else (),
                           throughput_rps=float(min(load, self.carries)),
                           wall="thread-pool" if truth > 1000 else "downstream",
                           evidence="200 threads busy" if truth > 1000 else "the 1 s downstream",
                           ceiling_rps=self.ceiling_rps, limit="thread-pool" if self.ceiling_rps > 0 else "",
                           ceilings={"thread-pool": self.ceiling_rps} if self.ceiling_rps > 0 else {},
                           service_time_ms=1000.0,
                           seconds=self.seconds)
