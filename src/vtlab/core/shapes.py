"""Load shapes beyond ramp-and-hold: what k6 is told to do during a row's hold, where each part of the
shape lies on the series' clock, and what the shape measured (from the row's kept series).

- steady: today's ramp-and-hold at the row's load.
- spike: the row's load, then a sudden step to `multiple` × it for `spike_s`, then back: the p99 before,
  during and after, the requests that failed during the spike, and the seconds until p99 recovered.
- steps: a staircase of `steps` equal steps up to the row's load: throughput and p99 per step, and the
  knee (the last step whose throughput still grew with the load).
- soak: a long steady hold: how RSS, threads and GC moved over it (per minute).

The load is users (closed model) or arrivals per second (open model); the shape applies to either. What
each shape measured is computed from the row's series by shapestats.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from vtlab.core.measures import given

SHAPES = ("steady", "spike", "steps", "soak")


@dataclass(frozen=True)
class Shape:
    name: str = "steady"
    multiple: float = 3.0     # spike: the peak load ÷ the base load
    spike_s: int = 10         # spike: how long the peak lasts
    steps: int = 4            # steps: how many equal steps up to the row's load

    def spike_window(self, hold_s: float) -> tuple[float, float]:
        """The spike inside the hold (seconds from the hold's start): a third of the hold before it."""
        start = math.floor((hold_s - self.spike_s) / 3)
        return start, start + self.spike_s

    def step_windows(self, hold_s: float) -> list[tuple[float, float]]:
        """Each step inside the hold, on whole seconds: the edges k6's stages change the load at."""
        edges = [round(k * hold_s / self.steps) for k in range(self.steps + 1)]
        return [(float(a), float(b)) for a, b in zip(edges, edges[1:], strict=False)]

    def hold_targets(self, load: int, hold_s: int, cooldown_s: int) -> list[tuple[int, int]]:
        """(seconds, load) stages for the hold and the cool-down; each change is a 1 s step, so the load
        steps rather than ramps. The warm-up runs at `start_load`."""
        if self.name == "spike":
            start, end = self.spike_window(hold_s)
            peak = round(load * self.multiple)
            return [(int(start), load), (1, peak), (int(end - start) - 1, peak), (1, load),
                    (int(hold_s - end) - 1 + cooldown_s, load)]
        if self.name == "steps":
            stages: list[tuple[int, int]] = []
            for k, (start, end) in enumerate(self.step_windows(hold_s)):
                level = self.level(load, k)
                stages += [(1, level), (round(end) - round(start) - 1, level)] if k else [(round(end), level)]
            stages[-1] = (stages[-1][0] + cooldown_s, stages[-1][1])
            return stages
        return [(hold_s + cooldown_s, load)]

    def start_load(self, load: int) -> int:
        """The load of the ramp and the warm-up: the staircase's first step, else the row's load."""
        return self.level(load, 0) if self.name == "steps" else load

    def level(self, load: int, k: int) -> int:
        return max(1, round(load * (k + 1) / self.steps))

    def describe(self) -> str:
        if self.name == "spike":
            return f"spike ×{self.multiple:g} for {self.spike_s} s"
        if self.name == "steps":
            return f"{self.steps} steps"
        return self.name


def from_row(row: Any) -> Shape:
    """A measured row's shape (results.rows.MeasuredRow) with the settings its CSV line recorded (the defaults where
    it has none)."""
    default = Shape()
    return Shape(row.shape or "steady", given(row.spike_multiple, default.multiple),
                 int(given(row.spike_s, default.spike_s)), int(given(row.step_count, default.steps)))


# In the open model, enough VUs are pre-allocated to carry the target rate at this latency
# before k6 must grow the pool (and, past 2x, drop iterations, which the row then records).
OPEN_MODEL_LATENCY_ALLOWANCE_S = 2.0


def vus_for(load_model: str, concurrency: int, rate: int) -> int:
    """The k6 VUs a row needs: its users (closed model), or enough to carry its rate (open model)."""
    if load_model == "open":
        return max(10, int(rate * OPEN_MODEL_LATENCY_ALLOWANCE_S))
    return concurrency
