"""The report's "Every second" section: per scenario, its thread modes overlaid on the same axes; per row,
all its panels with a link to k6's own dashboard of the row. Drawn from the run's kept series only; each figure
names the scenario it is told under and the one line said of it while it is folded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from vtlab.core import dimensions
from vtlab.core.measures import given
from vtlab.report import timeline, validrows
from vtlab.report.answer import load_words
from vtlab.report.document import EverySecond, Timeline
from vtlab.report.labels import TOMCAT_THREADS, fmt, mode_label, row_label, scenario_label
from vtlab.explain.model import Verdict
from vtlab.results.rows import MeasuredRow

# rows that differ in nothing but their thread mode are one scenario's modes
_OVERLAY_KEY = tuple(name for name in dimensions.SCENARIO_KEY if name != "thread_mode")


def section(run_dir: Path, rows: Sequence[MeasuredRow], verdicts: Sequence[Verdict],
            threads: int = TOMCAT_THREADS) -> EverySecond:
    """The section's figures; a sentence instead for a run measured before vtlab kept series."""
    series_dir = run_dir / "series"
    kept = [(row, verdict, seconds) for row, verdict in zip(rows, verdicts, strict=True)
            if (seconds := timeline.seconds_of(series_dir, dimensions.slug(verdict.row), _planned_hold(row)))
            is not None]
    if not kept:
        return EverySecond((), "This run kept no per-second series (measured before vtlab kept them): only its "
                               "aggregates can be shown.")
    figures = [*_overlays(kept), *(_row_figure(run_dir, *item, threads) for item in kept)]
    # told a scenario at a time, in the order its first figure came: the overlays, then each row
    order = list(dict.fromkeys(figure.group for figure in figures))
    return EverySecond(tuple(sorted(figures, key=lambda figure: order.index(figure.group))))


def group(verdict: Verdict) -> str:
    """The scenario a row's figures are told under: its dimensions but the thread mode and the load."""
    return scenario_label(verdict.row) + (", open model" if verdict.row.load_model == "open" else "")


def summary(verdict: Verdict, threads: int = TOMCAT_THREADS) -> str:
    """A row in one line: "platform · 400 users · 198.8 req/s · valid", or its flags where it is not valid."""
    rep = f" · rep {verdict.row.rep}" if verdict.row.rep != 1 else ""
    judged = "valid" if verdict.valid else f"not valid: {validrows.reasons(verdict)}"
    return (f"{mode_label(verdict.row, threads)} · {load_words(verdict)}{rep} · "
            f"{fmt(verdict.measured.throughput_rps, 1)} req/s · {judged}")


def _planned_hold(row: MeasuredRow) -> float:
    return given(row.ramp_s, 0) + given(row.warmup_s, 0)


def _overlays(kept) -> list[Timeline]:
    """One figure per scenario measured in more than one thread mode (the first repetition of each)."""
    scenarios: dict[tuple[str, ...], dict[str, tuple[Mapping[str, object], Verdict, list]]] = {}
    for row, verdict, seconds in kept:
        scenarios.setdefault(dimensions.key(verdict.row, _OVERLAY_KEY), {}).setdefault(
            verdict.row.thread_mode, (row, verdict, seconds))
    figures = []
    for modes in scenarios.values():
        if len(modes) < 2:
            continue
        first_row, first, first_seconds = next(iter(modes.values()))
        load = (f"{first.row.target_rps}/s offered" if first.row.load_model == "open"
                else f"{first.row.concurrency} users")
        title = f"{scenario_label(first.row)}, {load}: " + " vs ".join(modes)
        # aligned on the hold: a run's first row warms up longer, so its hold begins later than the others'
        by_mode = {mode: _shifted(seconds.per_second, round(seconds.hold_start_s - first_seconds.hold_start_s))
                   for mode, (_, _, seconds) in modes.items()}
        # each mode's k6 began its hold a little late by its own start-up; shaded: the first mode's phases
        figures.append(Timeline(
            f"overlay-{dimensions.slug(first.row)}", "timeline overlay",
            timeline.overlay_svg(by_mode, timeline.phases(first_row, first_seconds.hold_start_s), title),
            "The scenario's thread modes on the same axes (first repetition of each), their holds aligned; hover "
            "for each second's values", group=group(first),
            summary=" vs ".join(modes) + f" · {load_words(first)} · overlaid, second by second",
            valid=all(verdict.valid for _, verdict, _ in modes.values())))
    return figures


def _shifted(per_second: list[dict[str, float]], by_s: int) -> list[dict[str, float]]:
    return [{**second, "t_s": second["t_s"] - by_s} for second in per_second if second["t_s"] >= by_s]


def _row_figure(run_dir: Path, row: Mapping[str, object], verdict: Verdict, seconds: timeline.Seconds,
                threads: int) -> Timeline:
    slug = dimensions.slug(verdict.row)
    dashboard = run_dir / "k6" / f"{slug}-dashboard.html"
    drawn = timeline.svg(seconds.per_second, timeline.phases(row, seconds.hold_start_s), row_label(verdict.row))
    return Timeline(f"timeline-{slug}", "timeline", drawn,
                    "Shaded: ramp, warm-up, hold (what the row reports), cool-down; hover for each second's values",
                    (f"k6/{dashboard.name}", "k6's dashboard of this row") if dashboard.exists() else None,
                    group=group(verdict), summary=summary(verdict, threads), valid=verdict.valid)
