"""A request mix's entries told apart: each entry's requests, successes, latency and failures by status in one
window of a row's series (vtlab's k6 output keeps each request's entry, load/mix.js tags it)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from vtlab.series import store


@dataclass(frozen=True)
class EntryFigures:
    name: str
    requests: int
    ok: int
    p50_ms: float                          # of its successful requests, k6's percentile rule
    p99_ms: float
    failures: tuple[tuple[str, int], ...]  # (status, count), most first; "0": no response at all


def of(requests: Iterable[store.Request]) -> tuple[EntryFigures, ...]:
    """Each entry's figures over `requests`, in the order the entries first appear; requests with no entry (a
    script's, vtlab's own load) are none of them."""
    durations: dict[str, list[float]] = {}
    counts: Counter[str] = Counter()
    failed: dict[str, Counter[str]] = {}
    for request in requests:
        if not request.entry:
            continue
        counts[request.entry] += 1
        if request.ok:
            durations.setdefault(request.entry, []).append(request.duration_ms)
        else:
            failed.setdefault(request.entry, Counter())[request.status] += 1
    figures = []
    for name in counts:
        ordered = sorted(durations.get(name, []))
        figures.append(EntryFigures(name, counts[name], len(ordered), store.percentile(ordered, 0.50),
                                    store.percentile(ordered, 0.99),
                                    tuple(failed.get(name, Counter()).most_common())))
    return tuple(figures)
