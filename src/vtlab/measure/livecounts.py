"""k6's own live counts: the line a second each k6 runner of a row writes beside its series (vtlab's k6 output,
load/k6build/series, VTLAB_LIVE_FILE), read as the harness reads it — to decide the warm-up's end and the row's
(measure.settle)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Live:
    """One line of a k6 runner's live file: when (Unix s), successes and failures so far, the hold's iterations
    running, every iteration running."""
    at: float
    ok: int
    failed: int
    hold_running: int
    running: int


def parse_live(text: str) -> list[Live]:
    """A live file's complete lines (the last may be half written: it is left out)."""
    lines = text.split("\n")[:-1]
    out = []
    for line in lines:
        fields = line.split(",")
        if len(fields) == 5:
            out.append(Live(int(fields[0]) / 1000, *(int(field) for field in fields[1:])))
    return out


def read(paths: Sequence[Path]) -> list[list[Live]]:
    """Each runner's lines so far, in the runners' order; none for a runner that has not created its file yet."""
    runners = []
    for path in paths:
        try:
            runners.append(parse_live(path.read_text()))
        except FileNotFoundError:
            runners.append([])
    return runners

