"""The machine moving under the run: the host's speed over the run's time (measure.hostwork's fixed work, read with
every CPU sample and kept in each row's series), each row's time under load marked by its mode — a paired point's
blocks one after the other — so that a reader sees what the rows' figures rode on, and that a pair's two blocks saw it
alike. Drawn from the kept series only; None for a run that read no host speed (one from before it)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vtlab.core import dimensions
from vtlab.explain.model import Verdict
from vtlab.series import store
from vtlab.series.holdstats import HOST_WORK

# Each point of the strip is the median of this many seconds of readings (4 a second on each sampler running): a
# reading alone moves ±8% with what lands on its thread, a 5 s median ~1%.
BIN_S = 5.0


@dataclass(frozen=True)
class Span:
    """A row's time under load: from its first sampler reading to its last, in seconds since the run's first."""
    mode: str
    start_s: float
    end_s: float


@dataclass(frozen=True)
class Strip:
    """The host's speed over the run: each bin's start (s since the first reading) and its speed as the run's median
    fixed work ÷ the bin's (1.10: the same work 10% faster than the run's usual), and the rows' spans."""
    seconds: tuple[float, ...]
    speed: tuple[float, ...]
    spans: tuple[Span, ...]
    median_us: float              # the run's median reading: the fixed work's CPU µs

    def moved(self) -> tuple[float, float]:
        """The slowest and the fastest bin's speed, each against the run's median."""
        return min(self.speed), max(self.speed)


def strip(run_dir: Path, verdicts: Sequence[Verdict]) -> Strip | None:
    """The run's strip from its rows' kept samples; None where no row read the host's speed."""
    readings: list[tuple[float, float]] = []   # (Unix s, µs)
    spans: list[tuple[str, float, float]] = []
    for verdict in verdicts:
        path = store.samples_path(run_dir / "series", dimensions.slug(verdict.row))
        if verdict.failed or not path.exists():
            continue
        cpu, _, origin = store.read_samples(path)
        mine = [(origin + t, reading[HOST_WORK]) for t, reading in cpu.points if reading.get(HOST_WORK, 0) > 0]
        if mine:
            readings += mine
            spans.append((verdict.row.thread_mode, mine[0][0], mine[-1][0]))
    if not readings:
        return None
    return binned(readings, spans)


def binned(readings: Sequence[tuple[float, float]], spans: Sequence[tuple[str, float, float]]) -> Strip:
    """Readings (Unix s, µs) in BIN_S bins from the first, each bin its median; the spans on the same clock."""
    first = min(at for at, _ in readings)
    bins: dict[int, list[float]] = {}
    for at, us in readings:
        bins.setdefault(int((at - first) // BIN_S), []).append(us)
    median = statistics.median(us for _, us in readings)
    keys = sorted(bins)
    return Strip(tuple(key * BIN_S for key in keys), tuple(median / statistics.median(bins[key]) for key in keys),
                 tuple(Span(mode, start - first, end - first) for mode, start, end in sorted(spans, key=_start)),
                 median)


def _start(span: tuple[str, float, float]) -> float:
    return span[1]


def words(found: Strip) -> str:
    """The strip in one sentence: how far the host's speed moved over the run."""
    slow, fast = found.moved()
    if not (math.isfinite(slow) and math.isfinite(fast)):
        return ""
    minutes = (found.seconds[-1] + BIN_S) / 60
    return (f"Over the run's {minutes:.1f} min the host's speed moved from {slow:.2f} to {fast:.2f} of its median "
            f"(each {BIN_S:.0f} s's fixed work against the run's median of {found.median_us:,.0f} µs of CPU).")
