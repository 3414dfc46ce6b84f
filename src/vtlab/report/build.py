"""The report document, assembled once from a run's rows, metadata and analysis: every table, sentence and
figure the writers serialise. Reads nothing but what it is given; draws the charts."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vtlab.explain import analyze, costs
from vtlab.explain.model import Analysis, Verdict
from vtlab.report import appendix, charts, comparison, everysecond, headline, sections as told, story
from vtlab.report.document import Document, Figure, Section, Table
from vtlab.report.labels import TOMCAT_THREADS, mode_label, row_label
from vtlab.results.compare import Source
from vtlab.results.record import RunRecord

TITLE = "vtlab: platform vs virtual threads"

# What the throughput panel of both throughput charts (charts.hero) draws, exactly: its markers, bars, rings.
_THROUGHPUT_MARKS = ("markers: each point's throughput, the row's own for one rep and the median of several; "
                     "bars: its 95% interval, within the row's hold for one rep (batch means of k6's successes "
                     "per second) and of the reps' mean for several (Student t over the reps), so a median may "
                     "sit off its bar's centre; a bar of no length where no interval was measured; "
                     "a ring round a marker: no rep of that point valid")
CAPTIONS = {"hero": "Throughput of successful responses vs concurrency, released connections (" + _THROUGHPUT_MARKS
                    + "). Dashed: each mode's predicted ceiling (Little's law, median over reps); dotted: other "
                    "runs, where overlaid (their rows' own throughput). Below: p99 latency of successful "
                    "responses, median over reps.",
            "open": "Open model: successful responses per second vs the offered rate (" + _THROUGHPUT_MARKS
                    + "; dotted: what was offered; dashed: each mode's predicted ceiling) and p99 latency. No "
                    "coordinated omission: arrivals keep coming while the service is slow.",
            "pool": "Held connections: throughput vs pool size; dashed: pool ÷ time a connection is held.",
            "cpu": "Mean CPU per tier during each row's hold. 100% = one core.",
            "pinning": "JFR jdk.VirtualThreadPinned events (threshold {threshold} ms) per path and thread mode."}

FAILED_COLUMNS = (("row", "row"), ("tier", "tier that died"), ("how", "how it ended"), ("log", "its log's last line"))


def document(run_dir: Path, rows: Sequence[Mapping[str, str]], run: RunRecord,
             analysis: Analysis, others: Sequence[Source]) -> Document:
    """The whole report of one run; `rows` are matrix.csv's, failed ones included (the analysis sets them apart)."""
    threads = analysis.rig.tomcat_max_threads
    measured = [row for row in rows if not analyze.failed(row)]  # the raw series the charts draw
    sections = told.sections(run_dir, analysis, functools.partial(mode_label, default_threads=threads))
    failures = failed_rows(analysis.failed, threads)
    pairs = headline.lines(analysis.aggregates, threads)
    return Document(
        title=TITLE, run_name=run_dir.name, started=run.started,
        headline_lines=tuple(pairs),
        headline=Table(headline.COLUMNS, tuple(headline.words(line) for line in pairs), "headline"),
        story=(*story.explain(analysis), *story.failures_sentence(analysis.failed)),
        figures=tuple(_figures(measured, analysis, others, run.cpus_available)) if measured else (),
        sections=tuple(_section(section) for section in sections),
        every_second=everysecond.section(run_dir, measured, analysis.verdicts),
        failed=Table(FAILED_COLUMNS, tuple(failures), "failed-rows") if failures else None,
        compared=comparison.table(analysis.aggregates, others) if others else None,
        every_row=appendix.every_row(analysis.verdicts, threads),
        ceiling_notes=appendix.ceiling_notes(analysis.verdicts),
        environment=appendix.environment(run),
        verdicts=analysis.verdicts, aggregates=analysis.aggregates, failed_verdicts=analysis.failed,
        costs=tuple(costs.families(analysis.verdicts)))


def failed_rows(failed: Sequence[Verdict], threads: int = TOMCAT_THREADS) -> list[dict[str, str]]:
    """The rows a tier died in, for their own table: which tier, how, and the last thing it logged."""
    return [{"row": row_label(v.row, threads), "tier": v.failure.tier, "how": v.failure.how,
             "log": (v.failure.log.strip().splitlines() or [""])[-1][:200]} for v in failed if v.failure]


def _section(section: told.Section) -> Section:
    # drawn here, after the run's own figures, so matplotlib draws in the order it always has
    return Section(section.key, section.title, tuple(section.verdict),
                   Table(tuple(section.columns), tuple(section.table)),
                   charts.scenario(section.title, section.chart) if section.chart else "", section.chart)


def _figures(rows: Sequence[Mapping[str, object]], analysis: Analysis, others: Sequence[Source],
             cpus_available: int) -> list[Figure]:
    # the CPU chart's scale: the CPUs the run could use, else (a cluster run) the most the service had
    cpus = cpus_available or int(max(analyze.num(r, "app_cpus", 1) for r in rows))
    threads = analysis.rig.tomcat_max_threads
    drawn = {name: figure for name, figure in (("hero", charts.hero(analysis.aggregates, others, threads)),
                                               ("open", charts.hero(analysis.aggregates, [], threads, "open")),
                                               ("pool", charts.pool(analysis.aggregates))) if figure}
    drawn["cpu"] = charts.cpu(rows, [row_label(a.row, threads) for a in analysis.verdicts], cpus * 100)
    threshold = analysis.rig.jfr_pinned_threshold_ms
    drawn["pinning"] = charts.pinning(rows, threshold)
    return [Figure(name, svg, CAPTIONS[name].format(threshold=threshold), data, _nothing_to_draw(name, data, threshold))
            for name, (svg, data) in drawn.items()]


def _nothing_to_draw(name: str, data: Mapping[str, Any], threshold_ms: int) -> str:
    """A sentence instead of a chart whose axes would only frame one point or a row of zeros."""
    if name == "pool" and len(data.get("ceiling", {}).get("pool", [])) < 2:
        sizes = ", ".join(str(size) for size in data.get("ceiling", {}).get("pool", []))
        return (f"Held connections were measured at one pool size ({sizes}): see the headline; "
                "the pool chart needs two sizes (e.g. `--pools 10,50`).")
    if name == "pinning" and not any(data.get("events", [])):
        return (f"No row recorded a pinned virtual thread (JFR jdk.VirtualThreadPinned ≥ {threshold_ms} ms): "
                "nothing to chart. The pinning profile has a positive control that does pin.")
    return ""
