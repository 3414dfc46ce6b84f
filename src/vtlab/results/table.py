"""The results contract: matrix.csv (schema, append + fsync, resume) and the run's metadata.

Every other stage that reads results goes through this module, so the schema lives here only.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from vtlab.core import dimensions, measures
from vtlab.results.cells import failed, format_value

CSV_NAME = "matrix.csv"
METADATA_NAME = "metadata.json"

# The CSV's columns in its order, from their one declaration (the published rig's 23 first, so results compare with
# it); what each means, its unit and who writes it: core/measures.py.
COLUMNS = list(measures.NAMES)
DESIGN_COLUMNS = COLUMNS[:23]

assert set(dimensions.NAMES) <= set(COLUMNS), "every row dimension has its CSV column"


def read_rows(path: Path) -> list[dict[str, str]]:
    """The CSV's lines as text, with every dimension's empty or missing cell read as its default once,
    here: nothing downstream has to know what an older CSV left out."""
    if not path.exists():
        return []
    with open(path, newline="") as handle:
        lines = list(csv.DictReader(handle))
    for line in lines:
        for dimension in dimensions.DIMENSIONS:
            if line.get(dimension.name) in (None, ""):
                line[dimension.name] = format_value(dimension.default)
    return lines


def done_keys(path: Path) -> set[tuple[str, ...]]:
    """The resume keys of the rows a CSV already holds measured (compare with dimensions.key(planned_row));
    a failed row is measured again."""
    return {dimensions.key(dimensions.parse(line)) for line in read_rows(path) if not failed(line)}


def why_not_appendable(path: Path) -> str | None:
    """Why an existing CSV cannot be continued (another version's columns, a damaged line), or None.
    A last line cut short by a full disk or a crash mid-write is no reason: CsvWriter sets it aside."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        text = path.read_text()
        lines = list(csv.reader(io.StringIO(text[:text.rfind("\n") + 1], newline="")))  # torn tail aside
    except (UnicodeDecodeError, csv.Error) as err:
        return f"{path} cannot be read as a CSV ({err}); it is left as it is: give a new --out folder"
    if not lines or lines[0] != COLUMNS:
        return f"{path} was written by another vtlab version (different columns); give a new --out folder"
    body = lines[1:]
    damaged = [number for number, line in enumerate(body, start=2) if len(line) != len(COLUMNS)]
    if damaged:
        return (f"{path}: line(s) {', '.join(map(str, damaged[:5]))} do not have the {len(COLUMNS)} columns every "
                "row has (edited or damaged); nothing was changed: repair or delete those lines, then --resume")
    return None


def _torn(path: Path) -> bool:
    """Whether the file's last line was cut short: every line this writer writes ends with a line break."""
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) != b"\n"


def why_not_writable(folder: Path) -> str | None:
    """Why a run could not write its results into `folder`, found before anything starts."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".vtlab-write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        return f"cannot write results into {folder} ({err.strerror})"
    return None


class ResultsNotWritten(RuntimeError):
    """A measured row could not be written (disk full, folder gone); the rows before it are intact."""


class CsvWriter:
    """Appends one row at a time and fsyncs it, so a crash never loses a measured row."""

    def __init__(self, path: Path):
        self.path = path
        if path.exists() and path.stat().st_size > 0:
            problem = why_not_appendable(path)
            if problem:
                raise ValueError(problem)
            if _torn(path):
                self._set_aside_torn_tail()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._write([COLUMNS])

    def append(self, row: Mapping[str, object]) -> None:
        missing = [column for column in COLUMNS if column not in row]
        if missing:
            raise ValueError(f"row lacks columns: {missing}")
        try:
            self._write([[format_value(row[column]) for column in COLUMNS]])
        except OSError as err:
            # Print the row so the measurement is not lost with the write; the next run sets the torn
            # line aside and --resume measures the row again.
            raise ResultsNotWritten(
                f"could not write a measured row to {self.path} ({err.strerror}); every earlier row is intact. "
                f"The row's values: {json.dumps({k: format_value(v) for k, v in row.items()})}. "
                "Free the space (or fix the folder), then run the same command with --resume") from err

    def _set_aside_torn_tail(self) -> None:
        """Keep the cut-short last line in a side file and the intact rows in the CSV."""
        text = self.path.read_bytes()
        intact, torn = text[:text.rindex(b"\n") + 1], text[text.rindex(b"\n") + 1:]
        side = self.path.with_name(self.path.name + ".torn")
        side.write_bytes(torn)
        replacement = self.path.with_name(self.path.name + ".tmp")
        replacement.write_bytes(intact)
        os.replace(replacement, self.path)
        print(f"vtlab: {self.path}'s last line was cut short (a full disk or a crash mid-write); "
              f"kept in {side}, the row will be measured again", file=sys.stderr)

    def _write(self, lines: Iterable[list[str]]) -> None:
        with open(self.path, "a", newline="") as handle:
            csv.writer(handle).writerows(lines)
            handle.flush()
            os.fsync(handle.fileno())


def write_metadata(run_dir: Path, metadata: Mapping[str, object]) -> None:
    path = run_dir / METADATA_NAME
    path.write_text(json.dumps(metadata, indent=2, sort_keys=True, default=str) + "\n")
