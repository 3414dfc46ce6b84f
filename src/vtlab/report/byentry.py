"""A request mix told entry by entry: for each point and thread mode, each entry's share of the requests, its
throughput, p50 and p99 and its failures by status, over the holds of the point's valid rows (a paired point's
blocks, a scenario's repetitions) — read from the rows' kept series, where vtlab's k6 output keeps each request's
entry. The report's section and report.json's `entries`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from vtlab.core import dimensions
from vtlab.explain.model import Verdict
from vtlab.report.document import EntryLine
from vtlab.report.labels import fmt, load_of, mode_label, scenario_label
from vtlab.report.scenarios.common import Section
from vtlab.series import entries, store

TITLE = "Requests by entry of the mix"
COLUMNS = [("point", "point"), ("mode", "mode"), ("entry", "entry"), ("share", "share of requests"),
           ("rps", "req/s"), ("p50", "p50 ms"), ("p99", "p99 ms"), ("failed", "failed (by status)")]


def lines(run_dir: Path, verdicts: Sequence[Verdict], threads: int) -> tuple[EntryLine, ...]:
    """Every point and mode's entries, in the rows' order, over its valid rows (over all of them, told as not valid,
    where none is); none for a run whose requests carry no entry."""
    points: dict[tuple[str, ...], list[Verdict]] = {}
    for verdict in verdicts:
        points.setdefault(dimensions.key(verdict.row, dimensions.SCENARIO_KEY), []).append(verdict)
    told = []
    for rows in points.values():
        valid = [verdict for verdict in rows if verdict.valid]
        told += _point(run_dir / "series", valid or rows, threads, bool(valid))
    return tuple(told)


def _point(series_dir: Path, rows: list[Verdict], threads: int, valid: bool) -> list[EntryLine]:
    """One point and mode: each entry's requests over its rows' holds; its rate the rows' mean rate shared as the
    successes are (an entry's share of a row's successes times the row's throughput)."""
    requests: list[store.Request] = []
    rates: dict[str, float] = {}
    for verdict in rows:
        path = store.k6_path(series_dir, dimensions.slug(verdict.row))
        if not path.exists():
            continue
        held = [r for r in store.read_k6(path).requests if r.phase == "hold"]
        succeeded = Counter(r.entry for r in held if r.ok and r.entry)
        ok = sum(1 for r in held if r.ok)
        for name, count in succeeded.items():
            rates[name] = rates.get(name, 0.0) + count / ok * verdict.measured.throughput_rps / len(rows)
        requests += held
    # the most requested first: the mix's weights, whichever entry a point's first request happened to be
    counted = sorted(entries.of(requests), key=lambda figures: -figures.requests)
    total = sum(figures.requests for figures in counted)
    first = rows[0].row
    return [EntryLine(scenario=scenario_label(first), load=load_of(first), mode=mode_label(first, threads),
                      entry=figures.name, rows=len(rows), valid=valid, requests=figures.requests,
                      share=figures.requests / total, throughput_rps=rates.get(figures.name, 0.0),
                      p50_ms=figures.p50_ms, p99_ms=figures.p99_ms, failures=figures.failures)
            for figures in counted]


def section(told: tuple[EntryLine, ...]) -> Section | None:
    """The entries in a table a point and mode at a time; None where no request carried an entry."""
    if not told:
        return None
    names = list(dict.fromkeys(line.entry for line in told))
    words = [f"Each iteration called one entry of the mix ({', '.join(names)}), drawn by its weight. Each entry's "
             "figures are over the holds of its point's valid rows: its requests' share, its successes a second, the "
             "p50 and p99 of its successful requests and its failures by status (0: no response). A point with no "
             "valid row is told over its rows, marked not valid: figures, not an answer."]
    counted = [line for line in told if line.valid and line.p99_ms == line.p99_ms]
    slowest = max(counted, key=lambda line: line.p99_ms) if counted else None
    if len(names) > 1 and slowest is not None:
        words.append(f"The slowest p99: {slowest.entry} at {fmt(slowest.p99_ms, 1)} ms ({slowest.mode}, "
                     f"{slowest.load}).")
    table = [{"point": f"{line.scenario}, {line.load}", "mode": line.mode + ("" if line.valid else ", not valid"),
              "entry": line.entry,
              "share": f"{line.share:.0%}", "rps": fmt(line.throughput_rps, 1), "p50": fmt(line.p50_ms, 1),
              "p99": fmt(line.p99_ms, 1),
              "failed": ", ".join(f"{count:,} × {status}" for status, count in line.failures) or "none"}
             for line in told]
    return Section("entries", TITLE, words, table, columns=COLUMNS)
