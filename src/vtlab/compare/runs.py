"""A run as a comparison reads it: its scenarios (rows equal in every dimension but the repetition, the row
registry's key), each with the repetitions that count, and what it ran on."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from vtlab.core import dimensions
from vtlab.explain import analyze
from vtlab.explain.model import Analysis, Verdict
from vtlab.explain.repetitions import counted_reps
from vtlab.results import record, table
from vtlab.results import rows as measured_rows
from vtlab.results.rows import MeasuredRow
from vtlab.results.record import RunRecord


@dataclass(frozen=True)
class Scenario:
    key: tuple[str, ...]            # the values of the run's matched dimensions (Run.matched)
    label: str                      # as the report names the row, less what every scenario of a selection shares
    row: object                     # the scenario's dimensions (a dimensions.Row)
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
    rows: tuple[MeasuredRow, ...]
    matched: tuple[str, ...] = dimensions.SCENARIO_KEY  # the dimensions a scenario is matched by
    selection: str = ""             # which part of the run this is ("jvm_opts -XX:+UseSerialGC"), "" for all of it

    @property
    def name(self) -> str:
        """What a comparison calls the run: its folder's name, or the part of it (`--across`)."""
        return self.selection or self.path.name


def load(path: Path) -> Run:
    """The run folder's scenarios; ValueError when it holds no measured rows."""
    rows = measured_rows.read(path / table.CSV_NAME)
    if not rows:
        raise ValueError(f"{path / table.CSV_NAME}: no rows to compare")
    run = record.read(path)
    analysis = analyze.analyse(rows, run)
    requests = {id(v): row.http_reqs for v, row in zip(analysis.verdicts, _measured_rows(rows), strict=True)}
    scenarios = {}
    for aggregate in analysis.aggregates:  # one per scenario, its repetitions its members
        counted = tuple(counted_reps(aggregate.members))
        key = dimensions.key(aggregate.row, dimensions.SCENARIO_KEY)
        scenarios[key] = Scenario(key, scenario_label(aggregate.row), aggregate.row, counted,
                                  tuple(requests[id(v)] for v in counted), aggregate.valid,
                                  tuple(dict.fromkeys(f for v in aggregate.members if not v.valid for f in v.flags)))
    return Run(path, run, scenarios, tuple(dimensions.label(v.row) for v in analysis.failed), analysis, tuple(rows))


def scenario_label(row: object, left_out: tuple[str, ...] = ()) -> str:
    """The row's label without its repetition (what every rep of the scenario shares) and without `left_out`."""
    return " ".join(text for text in (d.label(row) for d in dimensions.DIMENSIONS
                                      if not d.across_reps and d.name not in left_out) if text)


def values(run: Run, name: str) -> list[str]:
    """The dimension's values among the run's scenarios, in the order the run measured them."""
    return list(dict.fromkeys(str(getattr(s.row, name)) for s in run.scenarios.values()))


def without(run: Run, names: tuple[str, ...]) -> Run:
    """The run with its scenarios matched and labelled without `names`: dimensions a comparison holds apart itself
    (the value each side is, a setting the whole run shared)."""
    matched = tuple(name for name in run.matched if name not in names)
    scenarios = {}
    for scenario in run.scenarios.values():
        key = dimensions.key(scenario.row, matched)
        scenarios[key] = replace(scenario, key=key, label=scenario_label(scenario.row, (*_left_out(run), *names)))
    return replace(run, scenarios=scenarios, matched=matched)


def split(run: Run, name: str) -> list[Run]:
    """The run as one part per value of a dimension it measured (`vtlab compare RUN --across NAME`), in the order
    measured, each matched without it: a comparison within one run. ValueError for a dimension with one value."""
    if name not in dimensions.SCENARIO_KEY:
        raise ValueError(f"--across {name}: not a dimension of a row; one of {', '.join(dimensions.SCENARIO_KEY)}")
    found = values(run, name)
    if len(found) < 2:
        measured = repr(found[0]) if found else "none"
        raise ValueError(f"--across {name}: {run.path} measured one value of it ({measured}); nothing to compare "
                         "within the run")
    parts = []
    for value in found:
        def keep(row: object, value: str = value) -> bool:
            return str(getattr(row, name)) == value
        part = replace(run, scenarios={k: s for k, s in run.scenarios.items() if keep(s.row)},
                       failed=tuple(dimensions.label(v.row) for v in run.analysis.failed if keep(v.row)),
                       analysis=replace(run.analysis, verdicts=tuple(v for v in run.analysis.verdicts if keep(v.row)),
                                        aggregates=tuple(a for a in run.analysis.aggregates if keep(a.row))),
                       rows=tuple(row for row in run.rows if keep(row.dims)),
                       selection=_value_text(name, value))
        parts.append(without(part, (name,)))
    return parts


def _left_out(run: Run) -> tuple[str, ...]:
    return tuple(name for name in dimensions.SCENARIO_KEY if name not in run.matched)


def _value_text(name: str, value: str) -> str:
    return f"{name} {value!r}" if value in ("", "0") else f"{name} {value}"


def _measured_rows(rows: list[MeasuredRow]) -> list[MeasuredRow]:
    # analyse() keeps the measured rows' order: the same filter pairs each verdict with its row
    return [row for row in rows if not row.failed]
