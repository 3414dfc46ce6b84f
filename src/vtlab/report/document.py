"""The report as one typed document, built once from a run (`report.build`) and serialised by each
writer (`report.markdown`, `report.html`, `report.json`). It holds what the report says, as text and
tables, plus the typed analysis the machine-readable writer quotes; no writer decides anything."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vtlab.core.aafloor import Floor as AAFloor
from vtlab.explain.costs import Family
from vtlab.explain.libraries import Library
from vtlab.explain.model import Advice, Aggregate, PairedPoint, Verdict
from vtlab.results.capacityfile import CapacityRun

Columns = tuple[tuple[str, str], ...]  # (key into a line, its title)


@dataclass(frozen=True)
class Table:
    columns: Columns
    lines: tuple[dict[str, str], ...]
    id: str = ""
    line_classes: tuple[str, ...] = ()  # one per line where lines are marked (valid / invalid), else none


@dataclass(frozen=True)
class Figure:
    """A drawn chart (SVG markup) with its caption and the data series it draws; `instead` is a sentence
    shown in its place when the chart would frame nothing worth drawing."""
    name: str
    svg: str
    caption: str
    data: dict[str, Any]
    instead: str = ""


@dataclass(frozen=True)
class Timeline:
    """One figure of the every-second section: a row's panels or a scenario's modes overlaid."""
    id: str
    css_class: str
    svg: str
    caption: str
    link: tuple[str, str] | None = None  # (href, words) to k6's own dashboard of the row
    group: str = ""    # the scenario it belongs to: the figures are told grouped by it
    summary: str = ""  # its one line, shown while it is folded: mode, load, req/s, valid or its flags
    valid: bool = True  # whether what it draws may answer (an overlay: every mode it overlays)


@dataclass(frozen=True)
class EverySecond:
    figures: tuple[Timeline, ...]
    note: str = ""  # said instead when the run kept no per-second series


@dataclass(frozen=True)
class Section:
    """A scenario's section: its verdict in words, its table, its chart (drawn, and the data drawn)."""
    key: str
    title: str
    sentences: tuple[str, ...]
    table: Table
    svg: str = ""
    chart: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EntryLine:
    """One entry of a request mix at one point and thread mode (report.byentry)."""
    scenario: str
    load: str
    mode: str
    entry: str
    rows: int                   # the point's rows its figures are over: its valid ones, or all where none is
    valid: bool                 # over valid rows (False: no row of the point is valid; figures, not an answer)
    requests: int
    share: float                # of the point's requests in those holds
    throughput_rps: float       # its successes a second, the rows' mean
    p50_ms: float
    p99_ms: float
    failures: tuple[tuple[str, int], ...]  # (status, count)


@dataclass(frozen=True)
class HeadlineLine:
    """One headline line's pair, platform beside virtual (either may be missing), as the table words it."""
    scenario: str
    load: str
    platform: Aggregate | None
    virtual: Aggregate | None


@dataclass(frozen=True)
class Answer:
    """One scenario's answer on the first screen: the ratio in words, each mode's wall, the lines set apart."""
    scenario: str
    ratio: str
    walls: tuple[str, ...]
    apart: tuple[str, ...] = ()  # the lines that are not valid, each with its flags and figures
    main: bool = True            # the plain order-summary's, not a variant's
    has_ratio: bool = True       # whether `ratio` tells one, or why there is none
    folded: bool = False         # told in one line under the first screen's fold, its walls folded too


@dataclass(frozen=True)
class CapacitySection:
    """A capacity run's answer, told first: each mode's capacity and why the search stopped, in words; every point in
    a table; the curve drawn; and capacity.json itself, which the JSON writer quotes."""
    title: str
    sentences: tuple[str, ...]
    table: Table
    figure: Figure
    run: CapacityRun


@dataclass(frozen=True)
class Document:
    title: str
    run_name: str
    started: str
    headline_lines: tuple[HeadlineLine, ...]
    headline: Table
    story: tuple[str, ...]
    figures: tuple[Figure, ...]
    sections: tuple[Section, ...]
    every_second: EverySecond
    failed: Table | None
    compared: Table | None
    every_row: Table
    ceiling_notes: tuple[str, ...]
    environment: tuple[tuple[str, str], ...]
    verdicts: tuple[Verdict, ...]       # the measured rows, as analysed: what the JSON writer quotes
    aggregates: tuple[Aggregate, ...]
    failed_verdicts: tuple[Verdict, ...]
    costs: tuple[Family, ...] = ()      # the staircases' fixed and marginal costs, as fitted (explain.costs)
    answers: tuple[Answer, ...] = ()    # the first screen's answer, a scenario each
    answers_folded: str = ""            # the fold's one line, counting the answers folded ("": none is)
    main_figure: str = ""               # the figure the first screen shows at full width (a Figure's name)
    capacity: CapacitySection | None = None  # where the run folder holds capacity.json: told before all else
    paired: tuple[PairedPoint, ...] = ()  # a paired run's points (explain.pairs), which the JSON writer quotes
    aa_floor: AAFloor | None = None  # the machine's A/A floor its paired points were told against (core.aafloor)
    libraries: tuple[Library, ...] = ()  # a user's jar's JDBC driver, pool, HTTP client (explain.libraries)
    advice: tuple[Advice, ...] = ()  # what to change before you flip (explain.advice), which the JSON writer quotes
    entries: tuple[EntryLine, ...] = ()  # a request mix's entries, a point and mode at a time (report.byentry)
