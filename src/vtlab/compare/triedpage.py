"""The tries of a run's advice, written beside the run: tries.md (each try's verdict, each line's before and after in
words) and tries.json (results.triedfile: the same as data, which the run's report reads)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.compare import tried
from vtlab.compare.tried import Outcome
from vtlab.core import dimensions
from vtlab.report.labels import load_of, scenario_label
from vtlab.results import triedfile

MARKDOWN = "tries.md"


@dataclass(frozen=True)
class Tried:
    """A try as measured: its name (its folder under the run's tries/), its settings (flag, value), its lines'
    outcomes, or why it was not measured (its plan refused)."""
    name: str
    settings: tuple[tuple[str, str], ...]
    outcomes: list[Outcome] = field(default_factory=list)
    why: str = ""

    @property
    def words(self) -> str:
        return " ".join(f"{flag} {value}" for flag, value in self.settings)

    @property
    def verdict(self) -> str:
        return f"not tried: {self.why}" if self.why else tried.verdict(self.outcomes)


@dataclass(frozen=True)
class Left:
    """Advice not tried: its line's row and wall, and why."""
    row: object
    wall: str
    why: str


def write(run_dir: Path, measured: Sequence[Tried], left: Sequence[Left], mode: Callable[[object], str]
          ) -> tuple[Path, Path]:
    markdown = run_dir / MARKDOWN
    markdown.write_text(as_markdown(measured, left, mode))
    return markdown, triedfile.write(run_dir, as_data(measured, left, mode))


def as_markdown(measured: Sequence[Tried], left: Sequence[Left], mode: Callable[[object], str]) -> str:
    lines = ["# The advice, tried", "",
             "Each setting the run's advice sized, re-measured on the points it was advised for (one at a time, then "
             "together where two hold one point), each try a run of its own under tries/, against this run as "
             "`vtlab compare` judges a change.", ""]
    for done in measured:
        lines += [f"## {done.words}: {done.verdict}", "", f"Its run: tries/{done.name}/", ""]
        lines += [f"- {tried.sentence(done.words, outcome, mode)}" for outcome in done.outcomes]
        lines.append("")
    if left:
        lines += ["## Not tried", ""]
        lines += [f"- {scenario_label(n.row)}, {mode(n.row)} at {load_of(n.row)}: {n.why}" for n in left]
        lines.append("")
    return "\n".join(lines)


def as_data(measured: Sequence[Tried], left: Sequence[Left], mode: Callable[[object], str]) -> dict[str, object]:
    return {"tries": [{"name": done.name, "settings": [list(s) for s in done.settings],
                       "folder": f"tries/{done.name}", "verdict": done.verdict,
                       "lines": [_line(done.words, outcome, mode) for outcome in done.outcomes]} for done in measured],
            "not_tried": [{"row": dimensions.values(n.row), "wall": n.wall, "why": n.why} for n in left]}


def _line(settings: str, outcome: Outcome, mode: Callable[[object], str]) -> dict[str, object]:
    change, line = outcome.change, outcome.line
    return {"row": dimensions.values(line.row), "wall": line.wall, "setting": line.setting, "value": _n(line.value),
            "advised": _n(line.needed), "predicted_rps": _n(line.predicted_rps),
            "base_rps": _n(change.base) if change else None, "new_rps": _n(change.new) if change else None,
            "change_low": _n(change.share_low) if change else None,
            "change_high": _n(change.share_high) if change else None,
            "verdict": change.verdict if change else None, "interval": [_n(outcome.low), _n(outcome.high)],
            "reached": outcome.reached or None, "pins": [_n(p) for p in outcome.pins], "why": outcome.why or None,
            "said": tried.sentence(settings, outcome, mode)}


def _n(value: float) -> float | None:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None
