"""The report's sections in the order it tells them: a paired run's pairs, the run beside the published figures, each
scenario's section, what to change before you flip, the memory per waiting request, where the time goes (the one
that reads the rows' profiles from the run folder), and what a request costs with its fixed and marginal parts
apart."""

from __future__ import annotations

import functools
from pathlib import Path

from vtlab.explain.advice import advise as advice_of
from vtlab.explain import libraries as jarlibs
from vtlab.explain.libraries import Library
from vtlab.explain.model import Advice, Analysis
from vtlab.report import advice, byentry, fixedcosts, memory, paired, published, scenarios, wheretime
from vtlab.report.document import EntryLine
from vtlab.report.labels import mode_label
from vtlab.report.scenarios.common import Section


def sections(run_dir: Path, analysis: Analysis, advice_given: tuple[Advice, ...] | None = None,
             mixed: tuple[EntryLine, ...] = (), libraries: tuple[Library, ...] = ()) -> list[Section]:
    """Every section the run has, in the order the report tells them; `advice_given`: what advised() gave, where the
    caller has it already; `mixed`: a request mix's entries (entries()), told after the paired design; `libraries`: a
    user's jar's (explain.libraries), told with the advice."""
    # a mode in words, platform threads' pool said where it is not the run's own Tomcat default
    label = functools.partial(mode_label, default_threads=analysis.rig.tomcat_max_threads)
    pairs = paired.section(analysis)
    by_entry = byentry.section(mixed)
    told = scenarios.sections(analysis, label)
    to_change = advice.section(advised(analysis) if advice_given is None else advice_given, label, libraries,
                               run_dir)
    beside_published = published.section(analysis.aggregates, published.points())
    held = memory.section(analysis, label)
    costs = wheretime.section(run_dir, analysis)
    apart = fixedcosts.section(analysis)
    return [*([pairs] if pairs else []), *([by_entry] if by_entry else []),
            *([beside_published] if beside_published else []), *told,
            *([to_change] if to_change else []), *([held] if held else []), *([costs] if costs else []),
            *([apart] if apart else [])]


def entries(run_dir: Path, analysis: Analysis) -> tuple[EntryLine, ...]:
    """A request mix's entries, a point and mode at a time (report.byentry): its section, and report.json's."""
    return byentry.lines(run_dir, analysis.verdicts, analysis.rig.tomcat_max_threads)


def libraries(found: tuple[tuple[str, str], ...], vs_found: tuple[tuple[str, str], ...], analysis: Analysis
              ) -> tuple[Library, ...]:
    """A user's jar's JDBC driver, pool and HTTP client against the rows (explain.libraries): told with the advice, and
    report.json's `libraries`; a before/after's (`vs_found`: the --vs jar's) each against its own arm's rows."""
    return jarlibs.of_run(found, vs_found, analysis.verdicts, analysis.paired[0].arms if analysis.paired else None)


def advised(analysis: Analysis) -> tuple[Advice, ...]:
    """What to change before you flip (explain.advice): its section's lines, and report.json's `advice`."""
    return advice_of(analysis)
