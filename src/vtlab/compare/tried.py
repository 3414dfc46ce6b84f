"""A try of the run's advice (plan.tries) against the run: each line it answers, its throughput before and after with
the change's interval and verdict as `vtlab compare` judges them (each side by its own repetitions, or one rep by
the rig's floor), whether the try reached the ceiling the advice predicted (within the try's own interval), and for
a pinned frame's line its pins before and after. A try helped where a line it answers is better and none worse; it
did not where every judged line is the same or worse. The try's rows are matched to each line without the
dimensions the try changed (the setting is what differs, by design); the run's by the line's own key, as it may
have varied the very dimension the try sets."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vtlab.compare import compared, runs
from vtlab.compare.runs import Run
from vtlab.compare.stats import BETTER, NOT_JUDGED, SAME, UNKNOWN, WORSE, Change
from vtlab.core import dimensions
from vtlab.explain.model import Advice
from vtlab.report.labels import fmt, load_of, scenario_label

HELPED, NOT_HELPED, UNJUDGED = "helped", "did not help", "not judged"
MIXED = "helped some lines and set others back"


@dataclass(frozen=True)
class Outcome:
    """One advised line after a try: its throughput's change (None: the try did not measure the line), the try's
    interval of it, whether the predicted ceiling was reached ("reached", "short of it", "" without a prediction),
    its pins a block before and after (NaN where not read), and why nothing was judged where nothing was."""
    line: Advice
    change: Change | None = None
    low: float = math.nan
    high: float = math.nan
    reached: str = ""
    pins: tuple[float, float] = (math.nan, math.nan)
    why: str = ""


def judged(base: Run, tried: Run, lines: Sequence[Advice], changes: tuple[str, ...]) -> list[Outcome]:
    """Each advised line a try answers (plan.tries.Try.lines), the try's run against the base's, matched without the
    dimensions its settings change (Try.changes)."""
    after = runs.without(tried, changes)  # the base keeps its own: it may have varied what the try changed
    aggregates = {dimensions.key(a.row, after.matched): a for a in tried.analysis.aggregates}
    found = []
    for line in lines:
        key = dimensions.key(line.row, after.matched)
        a, b = base.scenarios.get(dimensions.key(line.row, base.matched)), after.scenarios.get(key)
        if a is None or b is None:
            found.append(Outcome(line, why="the try did not measure this line"))
            continue
        change = compared.scenario_change("throughput", base, tried, (a, b))
        if change is None:
            found.append(Outcome(line, why="no throughput measured on one side"))
            continue
        aggregate = aggregates.get(key)
        low, high = (aggregate.interval_low, aggregate.interval_high) if aggregate is not None else (math.nan,) * 2
        found.append(Outcome(line, change, low, high, _reached(line.predicted_rps, change, low, high),
                             (_pins(a), _pins(b)), "" if b.valid else f"the try's rows were set apart "
                             f"({', '.join(b.flags) or 'not valid'})"))
    return found


def verdict(outcomes: Sequence[Outcome]) -> str:
    """HELPED where a line is better and none worse (MIXED where one is worse too), NOT_HELPED where every judged line
    is the same or worse (a pinned line also by its pins: none left is better), UNJUDGED where nothing could be
    judged."""
    verdicts = [_line_verdict(o) for o in outcomes]
    if BETTER in verdicts:
        return MIXED if WORSE in verdicts else HELPED
    return NOT_HELPED if any(v in (SAME, WORSE) for v in verdicts) else UNJUDGED


def sentence(settings: str, outcome: Outcome, mode: Callable[[object], str]) -> str:
    """One line's before and after in words, after the try's `settings` ("--pools 100")."""
    line = outcome.line
    head = f"{settings}: {scenario_label(line.row)}, {mode(line.row)} at {load_of(line.row)}:"
    if outcome.change is None:
        return f"{head} {outcome.why}."
    change = outcome.change
    said = f"{head} {_rps(change.base)} → {_rps(change.new)} req/s, {_verdict(change)}"
    if line.wall == "pinning":
        said += f"; pinned {fmt(outcome.pins[0])} → {fmt(outcome.pins[1])} times a block"
    elif outcome.reached:
        said += (f"; predicted {_rps(line.predicted_rps)} req/s: {outcome.reached} (the try's "
                 f"{_rps(outcome.low)}–{_rps(outcome.high)})")
    return said + (f"; {outcome.why}" if outcome.why else "") + "."


def _line_verdict(outcome: Outcome) -> str:
    change = outcome.change
    if change is None or outcome.why:
        return NOT_JUDGED
    if outcome.line.wall == "pinning" and outcome.pins[0] > 0 and outcome.pins[1] == 0:
        return BETTER if change.verdict != WORSE else WORSE
    return change.verdict if change.verdict != UNKNOWN else NOT_JUDGED


def _reached(predicted: float, change: Change | None, low: float, high: float) -> str:
    """Whether the try reached the advice's predicted ceiling: within its interval or above (its mean where it has
    no interval)."""
    if change is None or not (predicted > 0 and math.isfinite(predicted)):
        return ""
    top = high if math.isfinite(high) else change.new
    return "reached" if top >= predicted else "short of it"


def _pins(scenario: runs.Scenario) -> float:
    values = [v.measured.pinned_events for v in scenario.reps if math.isfinite(v.measured.pinned_events)]
    return statistics.fmean(values) if values else math.nan


def _verdict(change: Change) -> str:
    if not math.isfinite(change.low) or not change.base:
        return {NOT_JUDGED: "not judged (a flagged row)"}.get(change.verdict, "no interval (one rep, no floor)")
    words = {BETTER: "better", WORSE: "worse", SAME: "no change", NOT_JUDGED: "not judged (a flagged row)"}
    return (f"{words.get(change.verdict, change.verdict)} [{change.share_low * 100:+.0f}%, "
            f"{change.share_high * 100:+.0f}%]")


def _rps(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{value:,.0f}" if value >= 100 else f"{value:.1f}"
