"""POST /api/orders: throughput of writes, and every acknowledged write checked against the rows stored."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from vtlab import analyze
from vtlab.scenarios.common import (TABLE_COLUMNS, WRITES_COLUMN, Line, Section, fmt, num, table_of, chart_of, ordered,
                                    ratio_sentence)


def section(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = ordered([a for a in analysed if analyze.workload(a) == "write"])
    if not lines:
        return None
    verdict = []
    for a in lines:
        acknowledged, inserted = num(a, "writes_acknowledged"), num(a, "rows_inserted")
        if str(a.get("writes_ok")).lower() == "true":
            check = f"all {fmt(acknowledged)} acknowledged writes are in the database, none doubled"
        elif math.isnan(acknowledged):
            check = "the write check did not run"
        elif inserted < acknowledged:
            check = (f"LOST WRITES: {fmt(acknowledged - inserted)} of {fmt(acknowledged)} acknowledged orders "
                     "are not in the database")
        else:
            check = (f"{fmt(inserted - acknowledged)} stored orders were never acknowledged to the client "
                     "(it gave up before the answer came)")
        verdict.append(f"{mode_label(a)} at {a['concurrency']} users: {fmt(num(a, 'throughput_rps'), 1)} writes/s "
                       f"({a['bottleneck']}); {check}.")
    verdict += ratio_sentence(lines)

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {a.get('conn_mode')}"

    return Section("writes", "Writes: every acknowledged order must be stored once", verdict,
                   table_of(lines, mode_label, variant), chart_of(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, WRITES_COLUMN])

