"""k6's own live counts: the line a second each k6 runner of a row writes beside its series (vtlab's k6 output,
load/k6build/series, VTLAB_LIVE_FILE), read as the harness reads it — to decide the warm-up's end and the row's
(measure.settle) and to show the successes a second on the live line (measure.progress). The same counts for every
target: k6 measures vtlab's service, a user's jar and a URL alike, where a service's own request counter may not
exist."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

# The live line's rate is over the last WINDOW_S seconds. k6 counts a request when it ends, so a closed model's
# users, whose requests last alike (the default's 1 s downstream call), finish in waves: a one-second count is off
# by up to a wave as a wave ends just before or just after the line is written, and over five seconds that same
# miss weighs a fifth as much; a change of load (a staircase's next step, a stall) still shows within five seconds.
# It is the stall watch's window too (series.windows.recent_rate).
WINDOW_S = 5.0
# k6 writes a line about every second, a few milliseconds late or early: a line this much before the window's
# start still opens it (the window spans WINDOW_S seconds of lines, not one line fewer for a millisecond)
EDGE_S = 0.5


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


def users_began(runners: Sequence[Sequence[Live]]) -> float | None:
    """When the row's users began (Unix s): the first line of any runner with an iteration running; None before
    one. k6 sets its users up before the first starts, seconds for many (10,000 users: 5 s with none running,
    2026-11-28), and its process started before that."""
    began = [line.at for lines in runners for line in lines if line.running > 0]
    return min(began) if began else None


def ok_rate(runners: Sequence[Sequence[Live]], window_s: float = WINDOW_S) -> float:
    """The successes a second over the last `window_s` seconds, summed over the runners (failures never count).
    Each runner's own: its successes from the first line in the window (the first it wrote, while it is younger
    than the window) to its latest, over the time between them. A runner with fewer than two lines has no time to
    divide by yet and adds nothing: it has only just started."""
    return _rate(runners, window_s, lambda line: line.ok)


def failed_rate(runners: Sequence[Sequence[Live]], window_s: float = WINDOW_S) -> float:
    """The failures a second over the same window, summed over the runners: beside the successes on the live line,
    so a row whose successes fell to nothing says why (a warm-up whose downstream calls fail)."""
    return _rate(runners, window_s, lambda line: line.failed)


def _rate(runners: Sequence[Sequence[Live]], window_s: float, count: Callable[[Live], int]) -> float:
    total = 0.0
    for lines in runners:
        if len(lines) < 2:
            continue
        last = lines[-1]
        first = next((line for line in lines[:-1] if line.at >= last.at - window_s - EDGE_S), lines[-2])
        if last.at > first.at:
            total += (count(last) - count(first)) / (last.at - first.at)
    return total
