"""Which lines may answer a comparison or a conclusion: the valid ones, and none other. Where a side has no valid
line, the words that say so and why (the flags that made its rows invalid, from explain.validity), and its figures
set apart: told as from invalid rows, never as the answer.

A line is a scenario's line (a `Verdict`, its reps combined) or an `Aggregate`; an aggregate is judged by its line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from vtlab.explain.model import Aggregate, Verdict
from vtlab.explain.validity import invalidating
from vtlab.report.labels import fmt

Line = Any  # a Verdict or an Aggregate
Label = Callable[[Any], str]  # a line -> the words that tell it apart from its side's others ("400 users")

# How figures from lines with no valid rep are introduced, wherever a sentence still quotes them.
APART = "figures from invalid rows, not an answer"


def valid(lines: Sequence[Line]) -> list[Line]:
    """The lines that may answer: those with a valid rep."""
    return [line for line in lines if line.valid]


def reasons(line: Line) -> str:
    """Why a line is not valid: the flags that made its reps invalid, in the order they were raised."""
    return ";".join(dict.fromkeys(invalidating(_verdict(line).flags))) or "not valid"


def load(line: Line) -> str:
    """The load a line was measured at, in words: "400 users", "150/s offered"."""
    row = line.row
    return f"{row.target_rps}/s offered" if row.load_model == "open" else f"{row.concurrency} users"


def none_valid(what: str, lines: Sequence[Line], label: Label | None = None) -> str:
    """ "no valid platform row (too-noisy)"; with a label for each line, "no valid platform row (400 users:
    too-noisy; 1000 users: generator-interference)"."""
    told = "; ".join(f"{label(line)}: {reasons(line)}" if label else reasons(line) for line in lines)
    return f"no valid {what} row ({told})"


def figures(what: str, lines: Sequence[Line], label: Label | None = None) -> str:
    """The throughput each line is told with, as measured: "platform 198.8 req/s (400 users), 199.5 req/s (1000
    users)"."""
    return f"{what} " + ", ".join(fmt(_verdict(line).measured.throughput_rps, 1) + " req/s"
                                  + (f" ({label(line)})" if label else "") for line in lines)


def unanswered(sides: Sequence[tuple[str, Sequence[Line]]], label: Label | None = None) -> str:
    """Why a comparison of the sides (each its name and lines) is not made: each side without a valid line, said
    with its rows' reasons, then their figures set apart. "" where every side has a valid line."""
    empty = [(what, lines) for what, lines in sides if lines and not valid(lines)]
    if not empty:
        return ""
    return ("; ".join(none_valid(what, lines, label) for what, lines in empty) + f" — {APART}: "
            + "; ".join(figures(what, lines, label) for what, lines in empty))


def left_out(lines: Sequence[Line], label: Label) -> str:
    """What a conclusion drawn from the valid lines left out: " (left out as not valid: 400/s offered:
    dropped-iterations)", or "" where every line is valid."""
    invalid = [line for line in lines if not line.valid]
    if not invalid:
        return ""
    return " (left out as not valid: " + "; ".join(f"{label(line)}: {reasons(line)}" for line in invalid) + ")"


def _verdict(line: Line) -> Verdict:
    return line.line if isinstance(line, Aggregate) else line
