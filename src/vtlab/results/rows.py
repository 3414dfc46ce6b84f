"""A matrix.csv line typed once, where it is read: a frozen MeasuredRow with every column as an attribute of its
declared type (core/measures.py; the dimensions as core/dimensions.py parses them), handed to the analysis, the
report, the capacity search and the comparison, which read figures by attribute and never by a column's name.

An empty or missing cell reads as its column's empty value: NaN for a number, "" for text, False for a yes. A CSV of
an older vtlab lacks the newer columns (record.UPGRADES, "matrix.csv.columns"): they read empty, as not measured. A cell
named by no column in code's or a test's cells, and an attribute that is no column (a misspelt name in analysis
code), are errors naming it; a file's column this vtlab does not know is left out, as the reader before it did.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from vtlab.core import dimensions, measures
from vtlab.results import cells, table

_EMPTY = {measures.NUMBER: math.nan, measures.TEXT: "", measures.YES: False}
_COLUMNS: dict[str, measures.Measure | dimensions.Dimension] = {column.name: column for column in measures.SCHEMA}


def _field(column: measures.Measure | dimensions.Dimension) -> tuple[str, type, Any]:
    default = column.default if isinstance(column, dimensions.Dimension) else _EMPTY[column.kind]
    return column.name, column.kind, dataclasses.field(default=default)


def _dims(self: Any) -> Any:
    """The row's dimensions as the plan's Row (its identity, label and slug)."""
    return dimensions.Row(**{name: getattr(self, name) for name in dimensions.NAMES})


def _failed(self: Any) -> bool:
    """A row a tier died in: its cells are not a measurement and it gets no verdict but "failed"."""
    return bool(self.failed_tier)


MeasuredRow = dataclasses.make_dataclass(
    "MeasuredRow", [_field(column) for column in measures.SCHEMA], frozen=True, slots=True,
    namespace={"__doc__": "One matrix.csv line: every column of core/measures.py's SCHEMA, typed.",
               "__module__": __name__, "dims": property(_dims), "failed": property(_failed)})


def _cell(column: measures.Measure | dimensions.Dimension, value: object) -> Any:
    if isinstance(column, dimensions.Dimension):
        return column.parse(value)
    if column.kind is measures.NUMBER:
        return cells.num({column.name: value}, column.name)
    if column.kind is measures.YES:
        return value in (True, "yes", "true")
    return "" if value is None else str(value)


def typed(line: Mapping[str, object], strict: bool = True) -> Any:
    """A MeasuredRow of one line's cells (text as read, or the values a writer or a test gave); a MeasuredRow stays.
    `strict`: a cell named by no column is an error (code or a test that named one wrongly); else it is left out, as
    a file's column this vtlab does not know is (a newer vtlab's, one added by hand, another tool's CSV)."""
    if isinstance(line, MeasuredRow):
        return line
    unknown = [name for name in line if name not in _COLUMNS]
    if unknown and strict:
        raise ValueError(f"not a matrix.csv column: {', '.join(map(str, unknown))} (core/measures.py declares them)")
    return MeasuredRow(**{name: _cell(column, line.get(name)) for name, column in _COLUMNS.items()})


def all_typed(lines: Iterable[Mapping[str, object]]) -> list[Any]:
    return [typed(line) for line in lines]


def read(path: Path) -> list[Any]:
    """matrix.csv's rows, typed (none where there is no file); a column this vtlab does not know is left out."""
    return [typed(line, strict=False) for line in table.read_rows(path)]
