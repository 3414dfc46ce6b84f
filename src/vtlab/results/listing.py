"""The runs under a results folder, read for `vtlab runs` and `vtlab report` without a run: each run folder's date,
what it measured, its rows, its valid rows and its headline, from the files the run and its report wrote.

A folder without matrix.csv is not a run and is passed over. A file that cannot be read (metadata.json not JSON, a
CSV cut short, a report.json of another shape) is named in the run's `damage` and the rest is still read: one
damaged run never hides the others."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from vtlab.results import cells, record, table

# The report's files, by the names vtlab.report writes them under (report.render, report.jsonfile, report.html:
# the report stage comes after this one, so the names are repeated here and a test holds them equal).
ANALYSIS_NAME = "analysis.csv"
REPORT_JSON_NAME = "report.json"
REPORT_HTML_NAME = "report.html"
INDEX_NAME = "index.html"
# A run folder sits in the results folder or one level below (a re-cut's RUN/recut-FROM-TO/, a group of --out runs).
DEPTH = 2


@dataclass(frozen=True)
class HeadlineLine:
    """One line of report.json's headline, in the report's own words."""
    scenario: str
    load: str          # the concurrency ("40") or the offered rate ("150/s")
    load_model: str    # closed / open; "" where report.json did not say
    ratio: str         # "0.85× [0.75–0.96]", or "no ratio: why"
    computed: bool     # whether a ratio was computed
    platform: str      # each mode's cell as the report writes it; "–" where that mode was not measured
    virtual: str


@dataclass(frozen=True)
class Run:
    folder: Path
    started: dt.datetime | None     # metadata's "started"; None: not recorded or not readable
    file_time: dt.datetime          # matrix.csv's last change: the date of a run whose start is not known
    measured: str                   # the profile, or the user's service it measured
    rows: int                       # matrix.csv's complete rows, failed ones included
    valid_rows: int | None          # analysis.csv's valid rows; None: not reported
    headline: tuple[HeadlineLine, ...] | None  # None: no report.json
    report: Path | None             # report.html where the run was reported
    finished: bool | None           # False: the run stopped before its last row, or is still going; None: unknown
    damage: tuple[str, ...]         # what could not be read, and why
    answers: tuple[str, ...] = ()   # the report's first-screen answers, a scenario each; none: a report of before

    @property
    def when(self) -> dt.datetime:
        return self.started or self.file_time


def runs(folder: Path) -> list[Run]:
    """Every run under `folder`, newest first (by its start, else by when matrix.csv last changed); a re-cut, which
    keeps its run's start, right after that run."""
    found = [read(path.parent) for path in _matrices(folder, DEPTH)]
    return sorted(found, key=lambda run: (run.when, -len(run.folder.parts), str(run.folder)), reverse=True)


def _matrices(folder: Path, depth: int) -> list[Path]:
    matrices = []
    for child in sorted(folder.iterdir()) if depth and folder.is_dir() else ():
        if (child / table.CSV_NAME).is_file():
            matrices.append(child / table.CSV_NAME)
        if child.is_dir() and not child.is_symlink():
            matrices += _matrices(child, depth - 1)
    return matrices


def read(run_dir: Path) -> Run:
    """One run folder as far as it can be read."""
    damage: list[str] = []
    rows = _rows(run_dir / table.CSV_NAME, damage)
    started, measured, finished = _record(run_dir, damage)
    report = run_dir / REPORT_HTML_NAME
    valid_rows = _valid_rows(run_dir / ANALYSIS_NAME, damage)
    headline, answers = _reported(run_dir / REPORT_JSON_NAME, damage)  # its damage after the analysis's, as listed
    return Run(folder=run_dir, started=started, file_time=_file_time(run_dir / table.CSV_NAME), measured=measured,
               rows=rows, valid_rows=valid_rows, headline=headline, answers=answers,
               report=report if report.is_file() else None, finished=finished, damage=tuple(damage))


def _file_time(path: Path) -> dt.datetime:
    return dt.datetime.fromtimestamp(path.stat().st_mtime, tz=dt.timezone.utc)


def _rows(path: Path, damage: list[str]) -> int:
    """matrix.csv's complete rows: a last line cut short (a crash mid-write) or a line of another width is not
    one."""
    try:
        text = path.read_text()
        lines = [line for line in csv.reader(io.StringIO(text, newline="")) if line]
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        damage.append(f"{path.name} cannot be read ({err})")
        return 0
    if not lines:
        damage.append(f"{path.name} is empty")
        return 0
    header, body = lines[0], lines[1:]
    if body and not text.endswith("\n"):
        damage.append(f"{path.name}: its last row is cut short")
        body = body[:-1]
    whole = [line for line in body if len(line) == len(header)]
    if len(whole) < len(body):
        damage.append(f"{path.name}: {len(body) - len(whole)} row(s) without the header's {len(header)} columns")
    return len(whole)


def _record(run_dir: Path, damage: list[str]) -> tuple[dt.datetime | None, str, bool | None]:
    """When the run started, what it measured, whether it finished: from metadata.json."""
    try:
        run = record.read(run_dir)
    except (OSError, ValueError) as err:  # MalformedRecord is a ValueError
        damage.append(str(err).replace(f"{run_dir}/", ""))
        return None, "unknown", None
    try:
        started = dt.datetime.fromisoformat(run.started) if run.started else None
    except ValueError:
        damage.append(f"{table.METADATA_NAME}: started {run.started!r} is not a date")
        started = None
    if started is not None and started.tzinfo is None:
        started = started.astimezone()  # a date without its offset was this machine's local time
    recorded = (run_dir / table.METADATA_NAME).exists()  # a CSV alone says nothing of how its run ended
    return started, _measured(run), bool(run.finished) if recorded else None


def _measured(run: record.RunRecord) -> str:
    """The user's service as its flags named it, else the profile (on a cluster, re-cut: said so)."""
    if run.user_service:
        service = run.user_service
        named = [f"--service {service.jar}" if service.jar else f"--url {service.url}" if service.url else "",
                 f"--script {service.call.removeprefix('k6 script ')}" if service.call.startswith("k6 script ")
                 else service.call]
        return " · ".join(part for part in named if part) or "your service"
    if run.plan is None:
        return "not recorded"
    measured = run.plan.profile + (" on kubernetes" if run.kubernetes is not None or run.on_cluster else "")
    if run.recut:
        measured += f", re-cut {run.recut.hold_from_s:g}–{run.recut.hold_to_s:g} s of {run.recut.from_run}"
    return measured


def _valid_rows(path: Path, damage: list[str]) -> int | None:
    """analysis.csv's valid rows (what the report judged); None where the run was not reported."""
    if not path.exists():
        return None
    try:
        reader = csv.DictReader(io.StringIO(path.read_text(), newline=""))
        lines = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        damage.append(f"{path.name} cannot be read ({err})")
        return None
    if "valid" not in (reader.fieldnames or ()):
        damage.append(f"{path.name} has no valid column")
        return None
    if any(None in line.values() for line in lines):
        damage.append(f"{path.name}: a row is cut short")
    return sum(line["valid"] == cells.format_value(True) for line in lines)


def _reported(path: Path, damage: list[str]) -> tuple[tuple[HeadlineLine, ...] | None, tuple[str, ...]]:
    """report.json (schema vtlab-report/1), read once: its headline lines (None where the run was not reported, or
    its report cannot be read: `damage` says why) and its first-screen answers, a scenario each ("released, pool 50 ·
    virtual ÷ platform at 1,000 users: 4.98× [4.87–5.10] paired, 3 pairs"; none in a report of before them)."""
    if not path.exists():
        return None, ()
    try:
        report = json.loads(path.read_text())
        return (tuple(_headline_line(line) for line in report["headline"]),
                tuple(f"{answer['scenario']} · {answer['ratio']}" for answer in report.get("answers") or []))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        damage.append(f"{path.name} cannot be read ({type(err).__name__}: {err})")
        return None, ()


def _headline_line(line: Mapping[str, object]) -> HeadlineLine:
    words = line["text"]
    if not isinstance(words, Mapping):
        raise TypeError("a headline line's text is not an object")
    computed = line.get("ratio") is not None
    # the report's own words: "–" where a mode was missing, and then report.json says why there is no ratio
    ratio = str(words["ratio"]) if words["ratio"] != "–" else f"no ratio: {line.get('ratio_not_computed') or '–'}"
    return HeadlineLine(scenario=str(line["scenario"]), load=str(line["load"]),
                        load_model=str(line.get("load_model") or ""), ratio=ratio, computed=computed,
                        platform=str(words["platform"]), virtual=str(words["virtual"]))
