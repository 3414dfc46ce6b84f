"""`vtlab report`: analysis.csv, report.html (self-contained), report.md, report.json and charts.json from a
run's CSV and metadata only (and its capacity.json, where a capacity search wrote one), optionally with other runs
or the published figures overlaid.

The report is built once (`build.document`); each file is one writer's serialisation of it."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from vtlab.explain import analyze
from vtlab.explain.model import COLUMNS, cells
from vtlab.report import build, capacity, html, jsonfile, markdown
from vtlab.report.document import Document
from vtlab.results import capacityfile, compare, record, table
from vtlab.results import rows as measured_rows

ANALYSIS_NAME = "analysis.csv"


@dataclass(frozen=True)
class Writer:
    """One file of the report: its name and how the document reads in it."""
    filename: str
    serialise: Callable[[Document], str]


def _analysis_csv(document: Document) -> str:
    """Every row's verdict, the measured rows then the failed ones, in analysis.csv's columns."""
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(COLUMNS)
    writer.writerows(cells(verdict) for verdict in (*document.verdicts, *document.failed_verdicts))
    return text.getvalue()


def _chart_data(document: Document) -> str:
    """The data series every chart draws, by chart: a chart checked by its numbers, not its pixels."""
    capacity = {"capacity": document.capacity.figure.data} if document.capacity else {}
    return json.dumps({**capacity, **{figure.name: figure.data for figure in document.figures},
                       **{f"scenario-{section.key}": section.chart for section in document.sections}},
                      indent=1) + "\n"


# by the key render() returns each file's path under
WRITERS = {"analysis": Writer(ANALYSIS_NAME, _analysis_csv), "html": Writer(html.NAME, html.serialise),
           "markdown": Writer(markdown.NAME, markdown.serialise), "charts": Writer("charts.json", _chart_data),
           "json": Writer(jsonfile.NAME, jsonfile.serialise)}


def render(run_dir: Path, compare_with: Sequence[Path] = ()) -> dict[str, Path]:
    rows = measured_rows.read(run_dir / table.CSV_NAME)
    if not rows:
        raise ValueError(f"{run_dir / table.CSV_NAME} holds no rows to report")
    run = record.read(run_dir)
    others = [source for path in compare_with for source in compare.load(path)]
    analysis = analyze.analyse(rows, run)  # failed rows reach only analysis.failed
    # a damaged capacity.json stops the report (MalformedCapacity is a ValueError, said as the command's error)
    searched = capacityfile.read(run_dir) if (run_dir / capacityfile.NAME).exists() else None
    document = build.document(run_dir, rows, run, analysis, others,
                              capacity.section(searched) if searched is not None else None)
    paths = {}
    for key, writer in WRITERS.items():
        paths[key] = run_dir / writer.filename
        # newline="": what a writer returns is written as it is (analysis.csv's lines end in \r\n, csv's own)
        with open(paths[key], "w", newline="") as handle:
            handle.write(writer.serialise(document))
    return paths
