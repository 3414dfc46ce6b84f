"""What the row loop measures on: a target (vtlab's own service, the user's jar or URL, a cluster) and the small
capabilities some targets add. The loop (measure/loop.py) knows targets only through this module.

A target prepares what its rows need, says what metadata.json records about it, measures one row into its CSV
values, and closes. A row that cannot be measured raises procs.TierDied: the loop writes it as failed and goes on.
What only some targets do is a capability of their type (after k6's output/types.go), never a None to test.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan
from vtlab.rig import procs


@dataclass(frozen=True)
class Turn:
    """One row's turn in this invocation of the run."""
    row: Row
    position: int   # its place in the plan (a cluster's manifests are named by it)
    index: int      # its place among the rows this invocation measures: 0 is the first, whatever was resumed
    warmup_s: int   # its unrecorded warm-up (loop.warmup_for)


class Reporter(Protocol):
    """How the rows are shown while they run (progress.Progress: one live line)."""

    def resumed(self, measured: int, planned: int) -> None: ...

    def begin(self, turn: Turn) -> None: ...

    def tick(self, load_started: float, ok_per_s: float, failed_per_s: float = 0.0, hold_ended: bool = False) -> None:
        """Each second of a row's load: `ok_per_s` and `failed_per_s` the successes and failures a second lately,
        from k6's own live counts (load.live_reading), never a counter of the service's: the same source for every
        target; `hold_ended` on the first second after the row's hold."""

    def failed(self, died: procs.TierDied) -> None: ...

    def end(self, values: dict[str, object]) -> None: ...


class Target(Protocol):
    """The loop calls prepare first, then describe and measure, and close last however the run ends."""

    def prepare(self, plan: Plan, run_dir: Path) -> None:
        """Start, or make ready, what every row needs (the long-lived tiers)."""

    def describe(self) -> dict[str, object]:
        """What metadata.json records about the target: every key but the loop's own (plan, started, finished).
        It may grow as rows teach the target more (the service's runtime): the loop writes it again then."""

    def measure(self, turn: Turn, progress: Reporter) -> dict[str, object]:
        """One row's CSV values; procs.TierDied when a tier died or the row could not be served."""

    def close(self) -> None:
        """Stop what prepare started and the run does not keep; runs however the run ends."""


@runtime_checkable
class Revives(Protocol):
    """A target that starts dead tiers again after a failed row. Its run stops after loop.MAX_CONSECUTIVE_FAILURES
    failed rows in a row: with fresh tiers failing each time, the machine or the setup is wrong."""

    def revive(self, died: procs.TierDied) -> None: ...


@runtime_checkable
class OnThisMachine(Protocol):
    """A target whose tiers run on this machine: the loop watches the machine's other processes before the first row."""

    def own_pids(self) -> set[int]: ...


@runtime_checkable
class SetsUpLate(Protocol):
    """A target whose long-lived tiers take long to set up and may fail doing it (a cluster's database, seeded by a
    Job that can take an hour): the loop calls set_up once the run's CSV and metadata exist, so that a run its
    set-up failed is resumed with --resume like any other, and "started" counts the set-up."""

    def set_up(self) -> None: ...


@runtime_checkable
class TakesTurns(Protocol):
    """A target that measures a paired point's blocks in turns (measure.turns: one k6 per arm for the point, each
    block its arm's turn), where the plan allows it (turns.fits): every block's CSV values, in the turns' order."""

    def measure_point(self, turns: list[Turn], progress: Reporter) -> list[dict[str, object]]: ...


@runtime_checkable
class ShowsItsRows(Protocol):
    """A target that shows its rows its own way instead of the live line (the cluster's one line per row)."""

    def reporter(self, rows: int) -> Reporter: ...


class RowRefused(procs.TierDied):
    """A row the target would not measure for a reason of its own (`reason`, e.g. the user's service not starting):
    it fails like a row a tier died in, and a run such rows stop ends with that reason itself."""

    def __init__(self, tier: str, how: str, log: Path | None, reason: Exception):
        super().__init__(tier, how, log)
        self.reason = reason
