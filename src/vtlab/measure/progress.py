"""The live line a run prints: current row, rows left, ETA, the successes a second lately, each row's result."""

from __future__ import annotations

import math
import sys
import time

from vtlab.core import dimensions
from vtlab.rig import procs
from vtlab.measure.target import Turn
from vtlab.core.dimensions import Row
from vtlab.results.rows import typed


class Progress:
    """One live line: current row, rows left, ETA, the successes a second lately (k6's own counts, whatever the
    target: measure.livecounts).

    The ETA is an upper bound that only falls: each row left at its longest (`row_bound_s`: a warm-up that
    settles ends at the latest at the plan's warm-up), the current row at its longest less what it has run, and
    never more than the last ETA less the time since. A row that settles early makes it drop."""

    def __init__(self, total: int, row_bound_s: float, first_row_extra_s: float = 0.0):
        self.total = total
        self.row_bound_s = row_bound_s
        self.first_row_extra_s = first_row_extra_s  # the run's first row warms the tiers too (loop.warmup_for)
        self.durations: list[float] = []
        self.tty = sys.stdout.isatty()
        self.index = 0
        self.row: Row | None = None
        self.row_started = time.monotonic()
        self.last_print = 0.0
        self.eta: tuple[float, float] | None = None  # (when, seconds left) as last shown

    def resumed(self, measured: int, planned: int) -> None:
        print(f"vtlab: resuming: {measured} of {planned} rows already measured")

    def begin(self, turn: Turn) -> None:
        self.index, self.row, self.row_started = turn.index, turn.row, time.monotonic()
        if not self.tty:
            print(f"{self.position()} {dimensions.label(turn.row)}", flush=True)

    def rows_left(self) -> int:
        """The rows after the current one; never fewer than none: a capacity search may ask for more points than
        it expected (captp3: its 18th of 12 was shown as "-6 rows left, ETA ≤ -7m21s")."""
        return max(0, self.total - self.index - 1)

    def position(self) -> str:
        """"[3/12]": the current row's place among the rows, which a search asking for more than it expected grows."""
        return f"[{self.index + 1}/{self.index + 1 + self.rows_left()}]"

    def left_s(self, now: float) -> float:
        """The run's time left at most: the current row's bound less its time so far, and every later row's."""
        current = self.row_bound_s + (self.first_row_extra_s if self.index == 0 else 0.0)
        left = max(0.0, current - (now - self.row_started)) + self.row_bound_s * self.rows_left()
        if self.eta is not None:
            left = min(left, max(0.0, self.eta[1] - (now - self.eta[0])))
        self.eta = (now, left)
        return left

    def tick(self, load_started: float, ok_per_s: float, failed_per_s: float = 0.0, hold_ended: bool = False) -> None:
        now = time.monotonic()
        left = self.left_s(now)
        failures = f" {failed_per_s:.1f} failed/s |" if failed_per_s > 0 else ""
        line = (f"{self.position()} {dimensions.label(self.row) if self.row else ''} | "
                f"{now - load_started:4.0f} s | {ok_per_s:7.1f} req/s ok |{failures} "
                f"{self.rows_left()} rows left, ETA ≤ {_clock(left)}")
        if self.tty:
            print("\r" + line[:160].ljust(160), end="", flush=True)
        elif now - self.last_print >= 15 or hold_ended:
            # without a terminal a line each 15 s, and the one as the hold ends: the figure the row's is read beside
            print("  " + line + (" | the hold's end" if hold_ended else ""), flush=True)
            self.last_print = now

    def failed(self, died: procs.TierDied) -> None:
        self.durations.append(time.monotonic() - self.row_started)
        print(("\n" if self.tty else "") + f"  -> FAILED: the {died.tier} {died.how}", flush=True)

    def end(self, values: dict[str, object]) -> None:
        self.durations.append(time.monotonic() - self.row_started)
        row = typed(values, strict=False)  # a line printed, never the reason a measured row is lost
        summary = (f"  -> {row.throughput_rps:.1f} req/s ok, p99 {row.p99_ms:.0f} ms, "
                   f"errors {row.error_rate * 100:.2f}%, app CPU {_pct(row.app_cpu_pct)}, "
                   f"k6 CPU {_pct(row.load_cpu_pct)}")
        print(("\n" if self.tty else "") + summary, flush=True)


def _pct(number: float) -> str:
    return "n/a" if math.isnan(number) else f"{number:.0f}%"


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s"
