"""`vtlab report RUN --hold-from A --hold-to B`: every measured row's figures computed again from its kept
series for another window, without measuring again. The result is a run of its own, `RUN/recut-A-B/`
(matrix.csv, metadata.json saying what it was cut from, and its report); the run itself is left as it was.

Without a window, the rows are cut where they were measured (k6's hold tags, the samplers' hold), which
gives the CSV's own figures back: what the test of this module checks.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Mapping
from pathlib import Path

from vtlab.core import constants as rig_constants
from vtlab.core import dimensions, shapes
from vtlab.core.measures import given
from vtlab.series import holdstats, store, shapestats
from vtlab.results import record, table
from vtlab.results import rows as measured_rows

Window = tuple[float, float]  # seconds since k6 started, [from, to)
# Read by the drive loop over the measured hold and kept as figures only, not as a series: another window has none.
HOLD_ONLY = ("csw_voluntary_per_req", "csw_involuntary_per_req", "carriers_max", "threads_ended")


class NoSeries(ValueError):
    """A row measured before vtlab kept series, or whose series were deleted: it cannot be cut again."""


def recut_rows(run_dir: Path, window: Window | None = None) -> list[dict[str, object]]:
    """The run's rows with their measured columns computed from the series for `window` (their own hold
    when None); failed rows as they were."""
    run = record.read(run_dir)
    # on a cluster the service's node is the host, and the other tiers run on nodes of their own
    # (measure.drive.of_requests)
    host_tiers = ("app",) if run.on_cluster else None
    rows = table.read_rows(run_dir / table.CSV_NAME)
    return [dict(row) if measured_rows.typed(row, strict=False).failed
            else recut_row(run_dir / "series", row, window, run.rig, host_tiers, run.cpu_count) for row in rows]


def recut_row(series_dir: Path, row: Mapping[str, str], window: Window | None, rig: rig_constants.Constants,
              host_tiers: tuple[str, ...] | None = None, cpus: int = 0) -> dict[str, object]:
    """One row's measured columns from its series, by the constants the run recorded (`rig`: k6's start-up slack,
    the batch count, the shapes' thresholds); `host_tiers`: the tiers sharing the host whose neighbours
    foreign_cpu_pct counts (None: every sampled tier, as on one machine); `cpus`: the machine's, which a quota the
    row recorded (cpu_quota_cores) is a share of."""
    # its figures as read; the line written back keeps its other cells as they were
    seen = measured_rows.typed(row, strict=False)
    slug = dimensions.slug(seen.dims)
    k6_file, samples_file = store.k6_path(series_dir, slug), store.samples_path(series_dir, slug)
    if not (k6_file.exists() and samples_file.exists()):
        raise NoSeries(f"row {slug} has no kept series in {series_dir} (measured before vtlab kept them?)")
    cpu, meters, origin_unix_s = store.read_samples(samples_file)
    k6 = store.read_k6(k6_file, store.k6_start_unix_s(k6_file) - origin_unix_s)
    hold_s = seen.hold_s
    hold_start_s = store.hold_start_s(k6, given(seen.ramp_s, 0) + given(seen.warmup_s, 0))
    # the samplers' hold as the row measured it: k6's start-up slack left out at its front
    start, end = window if window else (hold_start_s + rig.k6_start_slack_s, hold_start_s + hold_s)
    measured = store.load_result(k6, int(given(seen.k6_exit, 0)), window, int(given(seen.writes_acknowledged, 0)))
    sampled = tuple(sorted({name.removesuffix("_ticks") for _, reading in cpu.points for name in reading
                            if name.endswith("_ticks") and name != "harness_ticks"}))
    hold = holdstats.Hold(measured, cpu, meters, start, end, end - start if window else hold_s, host_tiers or sampled,
                          proxy=not math.isnan(seen.proxy_cpu_pct), rig=rig,
                          quota_cores=given(seen.cpu_quota_cores, 0) or None, cpus=cpus)
    shape = shapes.from_row(seen)
    load = seen.target_rps if seen.load_model == "open" else seen.concurrency
    # the shape's parts lie where k6 ran them, inside the row's own hold: what they measured is the row's,
    # whatever window the rest is cut to
    return {**row, **holdstats.columns(hold), "hold_s": hold.hold_s, **{column: "" for column in HOLD_ONLY if window},
            **shapestats.figures(shape, k6, meters, cpu, load, hold_start_s, hold_s, rig)}


def recut(run_dir: Path, window: Window) -> Path:
    """Write the re-cut run next to the run: its CSV and a metadata.json naming the window and the source."""
    rows = recut_rows(run_dir, window)
    out = run_dir / f"recut-{window[0]:g}-{window[1]:g}"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir()
    writer = table.CsvWriter(out / table.CSV_NAME)
    for row in rows:
        writer.append({column: row.get(column, "") for column in table.COLUMNS})
    # the source's record as it was written (raw), so the re-cut's file differs from it only by "recut"
    table.write_metadata(out, {**record.read(run_dir).raw, "recut": {"from_run": run_dir.name, "hold_from_s": window[0],
                                                       "hold_to_s": window[1]}})
    return out
