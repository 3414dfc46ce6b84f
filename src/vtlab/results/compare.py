"""Other results to overlay: another vtlab run folder, any CSV with the 23 leading columns, or the
published figures (`reference/published.csv`, the seeds' public numbers with their sources; its own
smaller set of columns)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtlab.results import table
from vtlab.results.rows import typed


@dataclass(frozen=True)
class Source:
    label: str
    rows: list[Any]  # MeasuredRow: the lines whose dimensions read as this vtlab reads them


def _typed(lines: list[dict[str, str]]) -> list[Any]:
    """The lines to overlay, typed: those with a number of users (another tool's CSV may leave it empty) and every
    dimension a number where it should be; the other columns of another tool's CSV left out."""
    kept = []
    for line in lines:
        try:
            float(line.get("concurrency") or "")
            kept.append(typed(line, strict=False))
        except ValueError:
            continue
    return kept


def load(path: Path) -> list[Source]:
    csv_path = path / table.CSV_NAME if path.is_dir() else path
    if not csv_path.exists():
        raise FileNotFoundError(f"--compare: no {table.CSV_NAME} in {path}")
    with open(csv_path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    if rows and "source" in rows[0] and "thread_mode" in rows[0] and "ts_iso" not in rows[0]:
        return _published(rows)
    missing = [c for c in table.DESIGN_COLUMNS if rows and c not in rows[0]]
    if missing:
        raise ValueError(f"--compare: {csv_path} lacks the columns {missing}")
    label = path.name if path.is_dir() else csv_path.stem
    return [Source(label, _typed(rows))]


def _published(rows: list[dict[str, str]]) -> list[Source]:
    """One source per publication; only rows that compare (platform/virtual, closed, a number)."""
    by_source: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        if row["thread_mode"] not in ("platform", "virtual") or not row["throughput_rps"]:
            continue
        if not row["concurrency"]:
            continue
        by_source.setdefault(row["source"], []).append({
            "thread_mode": row["thread_mode"], "concurrency": row["concurrency"],
            "hikari_pool": row["pool"] or "", "conn_mode": row["conn_mode"] or "",
            "path_mode": "normal", "load_model": row["model"] or "closed",
            "throughput_rps": row["throughput_rps"], "p99_ms": row["p99_ms"],
            "error_rate": row["error_rate"],
        })
    return [Source(f"published: {name}", _typed(items)) for name, items in by_source.items()]
