"""A run as a comparison reads it: its scenarios (rows equal in every dimension but the repetition, the row
registry's key), each with the repetitions that count, and what it ran on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vtlab.core import dimensions
from vtlab.explain import analyze
from vtlab.explain.model import Analysis, Verdict
from vtlab.explain.repetitions import counted_reps
from vtlab.results import record, table
from vtlab.results.cells import failed, num
from vtlab.results.record import RunRecord


@dataclass(frozen=True)
class Scenario:
    key: tuple[str, ...]            # dimensions.SCENARIO_KEY's values
    label: str                      # as the report names the row
    reps: tuple[Verdict, ...]       # the valid repetitions, or every one where none is (then `valid` is False)
    requests: tuple[float, ...]     # each counted rep's requests of the hold (k6's http_reqs), for the error rate
    valid: bool
    flags: tuple[str, ...]          # what made a rep invalid, from every rep


@dataclass(frozen=True)
class Run:
    path: Path
    record: RunRecord
    scenarios: dict[tuple[str, ...], Scenario]
    failed: tuple[str, ...]         # labels of rows a tier died in: listed, never compared
    analysis: Analysis              # the run as its report tells it (compare.html draws its charts from it)
    rows: tuple[dict[str, str], ...]


def load(path: Path) -> Run:
    """The run folder's scenarios; ValueError when it holds no measured rows."""
    rows = table.read_rows(path / table.CSV_NAME)
    if not rows:
        raise ValueError(f"{path / table.CSV_NAME}: no rows to compare")
    run = record.read(path)
    analysis = analyze.analyse(rows, run)
    requests = {id(v): num(row, "http_reqs") for v, row in zip(analysis.verdicts, _measured_rows(rows), strict=True)}
    scenarios = {}
    for aggregate in analysis.aggregates:  # one per scenario, its repetitions its members
        counted = tuple(counted_reps(aggregate.members))
        key = dimensions.key(aggregate.row, dimensions.SCENARIO_KEY)
        scenarios[key] = Scenario(key, scenario_label(aggregate.row), counted,
                                  tuple(requests[id(v)] for v in counted), aggregate.valid,
                                  tuple(dict.fromkeys(f for v in aggregate.members if not v.valid for f in v.flags)))
    return Run(path, run, scenarios, tuple(dimensions.label(v.row) for v in analysis.failed), analysis, tuple(rows))


def scenario_label(row: object) -> str:
    """The row's label without its repetition: what every rep of the scenario shares."""
    return " ".join(text for text in (d.label(row) for d in dimensions.DIMENSIONS if not d.across_reps) if text)


def _measured_rows(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    # analyse() keeps the measured rows' order: the same filter pairs each verdict with its row
    return [row for row in rows if not failed(row)]
