"""POST /api/orders: throughput of writes, and every acknowledged write checked against the rows stored."""

from __future__ import annotations

import math

from vtlab.explain.model import Analysis
from vtlab.report.scenarios.common import (TABLE_COLUMNS, WRITES_COLUMN, Label, Line, Section, chart_of, fmt,
                                           invalid_words, ordered, ratio_sentence, table_of)


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    lines = ordered([a for a in analysed if a.row.workload == "write"])
    if not lines:
        return None
    verdict = []
    for a in lines:
        acknowledged, inserted = a.measured.writes_acknowledged, a.measured.rows_inserted
        if a.measured.writes_ok.lower() == "true":
            check = f"all {fmt(acknowledged)} acknowledged writes are in the database, none doubled"
        elif math.isnan(acknowledged):
            check = "the write check did not run"
        elif math.isnan(inserted):
            check = f"{fmt(acknowledged)} writes acknowledged, but the stored orders were not counted"
        elif inserted < acknowledged:
            check = (f"LOST WRITES: {fmt(acknowledged - inserted)} of {fmt(acknowledged)} acknowledged orders "
                     "are not in the database")
        else:
            # the counts cannot tell a request the client gave up on from an order stored twice
            check = (f"{fmt(inserted - acknowledged)} more orders stored than acknowledged to the client: requests "
                     "it gave up on before the answer, or orders stored twice")
        verdict.append(f"{mode_label(a.row)} at {a.row.concurrency} users: "
                       f"{fmt(a.measured.throughput_rps, 1)} writes/s ({a.bottleneck}); {check}." + invalid_words(a))
    verdict += ratio_sentence(lines, lambda a: f"{a.row.conn_mode}, {a.row.concurrency} users")

    def variant(a: Line) -> str:
        return f"{mode_label(a.row)}, {a.row.conn_mode}"

    return Section("writes", "Writes: every acknowledged order must be stored once", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, WRITES_COLUMN])

