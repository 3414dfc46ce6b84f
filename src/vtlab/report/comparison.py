"""The "Compared with" table: this run's virtual/platform ratio per concurrency beside each other source's
(another run's matrix.csv, the published figures). This run's ratio is computed only where both modes have a valid
rep (its figures as the headline shows them); another source's rows were not judged here and are taken as given."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from vtlab.core import dimensions
from vtlab.explain.model import Aggregate
from vtlab.report import ratio, validrows
from vtlab.report.document import Table
from vtlab.report.labels import fmt
from vtlab.results.compare import Source
from vtlab.results.rows import MeasuredRow

COLUMNS = (("source", "source"), ("concurrency", "concurrency"), ("platform", "platform req/s"),
           ("virtual", "virtual req/s"), ("ratio", "ratio v/p"))

Point = tuple[Any, float, float, str]  # a row's dimensions, its concurrency, its req/s, why it cannot answer ("")


def table(aggregates: Sequence[Aggregate], others: Sequence[Source]) -> Table:
    sources = [("this run", _ratios((a.row, float(a.row.concurrency), ratio.told_rps(a),
                                     "" if a.valid else validrows.none_valid(a.row.thread_mode, [a]))
                                    for a in aggregates))]
    sources += [(s.label, _ratios(_source_points(s.rows))) for s in others]
    lines = []
    for label, ratios in sources:
        for conc in sorted(ratios):
            p, v, why = ratios[conc]
            lines.append({"source": label, "concurrency": f"{conc:g}", "platform": fmt(p, 0), "virtual": fmt(v, 0),
                          "ratio": f"no ratio: {why}" if why else "–" if not (p > 0 and v > 0) else f"{v / p:.2f}×"})
    return Table(COLUMNS, tuple(lines))


def _source_points(rows: Sequence[MeasuredRow]) -> Iterator[Point]:
    """Another source's rows as (dimensions, concurrency, req/s, ""): those whose connection mode is released or
    left empty (the published figures), and whose dimensions read as numbers where they should."""
    for r in rows:
        if r.conn_mode == "released":
            yield r.dims, float(r.concurrency), r.throughput_rps, ""


def _ratios(points: Iterable[Point]) -> dict[float, tuple[float, float, str]]:
    """(platform, virtual) req/s per concurrency of the plain order-summary rows, released, normal path, and why
    their ratio is not computed where a mode's row cannot answer ("" where both can)."""
    by_conc: dict[float, dict[str, tuple[float, str]]] = {}
    for row, concurrency, rps, why in points:
        if (row.conn_mode == "released" and row.path_mode == "normal"
                and row.workload == "order-summary" and not dimensions.is_variant(row)):
            by_conc.setdefault(concurrency, {})[row.thread_mode] = (rps, why)
    return {c: (m.get("platform", (math.nan, ""))[0], m.get("virtual", (math.nan, ""))[0],
                "; ".join(m[mode][1] for mode in ("platform", "virtual") if mode in m and m[mode][1]))
            for c, m in by_conc.items() if not math.isnan(c)}
