"""The report document, assembled once from a run's rows, metadata and analysis: every table, sentence and
figure the writers serialise. Reads nothing but what it is given; the figures are drawn by report.figures."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vtlab.explain import costs
from vtlab.explain.model import Analysis
from vtlab.report import answer, appendix, comparison, everysecond, figures as drawn, headline, sections as told, story
from vtlab.report.document import CapacitySection, Document, Table
from vtlab.results.compare import Source
from vtlab.results.record import RunRecord
from vtlab.results.rows import MeasuredRow

TITLE = "vtlab: platform vs virtual threads"


def document(run_dir: Path, rows: Sequence[MeasuredRow], run: RunRecord,
             analysis: Analysis, others: Sequence[Source], capacity: CapacitySection | None = None) -> Document:
    """The whole report of one run; `rows` are matrix.csv's, failed ones included (the analysis sets them apart);
    `capacity`: the section a capacity run's capacity.json tells (report.capacity), told before all else."""
    threads = analysis.rig.tomcat_max_threads
    measured = [row for row in rows if not row.failed]  # the raw series the charts draw
    advised = told.advised(analysis)
    entries = told.entries(run_dir, analysis) if _mixed(run) else ()  # a request mix's (the user's --mix)
    service = run.user_service
    libraries = told.libraries(service.libraries, service.vs_libraries, analysis) if service else ()
    sections = told.sections(run_dir, analysis, advised, entries, libraries)
    pairs = headline.lines(analysis.aggregates, threads)
    families = tuple(costs.families(analysis.verdicts))
    figures = (*drawn.figures(measured, analysis, others, run.cpus_available, families),
               *drawn.host_speed(run_dir, analysis)) if measured else ()
    answers = answer.answers(pairs, analysis.paired, analysis.aa_floor)
    if capacity is not None:
        answers = answer.in_a_search(answers)
    return Document(
        title=TITLE, run_name=run_dir.name, started=run.started,
        headline_lines=tuple(pairs),
        headline=Table(headline.COLUMNS, tuple(headline.words(line) for line in pairs), "headline"),
        story=(*story.explain(analysis), *appendix.moved_points(run.plan),
               *story.failures_sentence(analysis.failed)),
        figures=figures,
        sections=tuple(drawn.scenario(section) for section in sections),
        every_second=everysecond.section(run_dir, measured, analysis.verdicts, threads),
        failed=appendix.failed(analysis.failed, threads),
        compared=comparison.table(analysis.aggregates, others) if others else None,
        every_row=appendix.every_row(analysis.verdicts, threads),
        ceiling_notes=appendix.ceiling_notes(analysis.verdicts),
        environment=appendix.environment(run),
        verdicts=analysis.verdicts, aggregates=analysis.aggregates, failed_verdicts=analysis.failed,
        costs=families,
        answers=tuple(answers), answers_folded=answer.folded_line(answers), main_figure=drawn.main(figures),
        capacity=capacity, paired=analysis.paired, aa_floor=analysis.aa_floor, advice=advised, entries=entries,
        libraries=libraries)


def _mixed(run: RunRecord) -> bool:
    """Whether the run called a --mix file (a --endpoint is a mix of one entry: its rows are its figures)."""
    return run.user_service is not None and run.user_service.call.startswith("mix ")
