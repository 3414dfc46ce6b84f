"""A row's CSV line: its dimensions, what was measured during the hold, and what it ran with; or, for a row a
tier ended, its dimensions and what died."""

from __future__ import annotations

import datetime as dt
import os

from pathlib import Path

from vtlab.core import constants
from vtlab.core import cores, dimensions
from vtlab.measure import load, writecheck
from vtlab.measure.jfr import Pinned, pinned as pinned_of
from vtlab.measure.drive import Drive
from vtlab.measure.tiers import Rig
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan
from vtlab.results import cells, table
from vtlab.rig import procs
from vtlab.series import holdstats, shapestats


def row_values(row: Row, plan: Plan, spec: load.LoadSpec, drive: Drive, info: dict, pinned: Pinned | None,
               proxy: bool, k6_version: str, placement: str) -> dict[str, object]:
    """The CSV line: the row's dimensions, then what was measured during the hold, then the context
    (`placement`: where the tiers ran, a core map or a cluster). Columns a row has no figure for are empty."""
    hold = holdstats.Hold(drive.measured, drive.cpu, drive.meters, drive.hold_start, drive.hold_end, plan.hold_s,
                          tuple(tier for tier, pid in drive.pids.items() if pid), proxy,
                          quota_cores=cores.quota(), cpus=os.cpu_count() or 0)
    return {**{column: "" for column in table.COLUMNS}, "ts_iso": now(), **dimensions.values(row),
            **holdstats.columns(hold), **_pinning(pinned),
            **_conditions(plan, spec, drive, info, k6_version, placement),
            **drive.stall, **_shape_figures(spec, drive), **drive.memory,
            **drive.watched.cells(drive.measured.requests / plan.hold_s, row.thread_mode == "virtual"),
            "failed_tier": "", "failure": "", "failure_log": ""}


def failed_row(row: Row, died: procs.TierDied) -> dict[str, object]:
    """A row a dead tier ended: its dimensions and what died, every measurement empty — never a number."""
    return {**{column: "" for column in table.COLUMNS}, "ts_iso": now(), **dimensions.values(row),
            "failed_tier": died.tier, "failure": died.how, "failure_log": died.log_tail}


def log_offset(log: Path | None) -> int:
    """Where a row begins in its service's log: the log's size now (0 where there is none yet). A JVM that served
    the steps before it wrote theirs above."""
    try:
        return log.stat().st_size if log else 0
    except OSError:
        return 0


def local_row_values(rig: Rig, row: Row, plan: Plan, spec: load.LoadSpec, drive: Drive, info: dict,
                     jfr: Path | None, service_log: Path | None = None, log_from: int = 0,
                     jfr_window: tuple[float, float] | None = None) -> dict[str, object]:
    """The CSV line of a row measured on this machine: its `jfr` recording's pinning (None: none kept; within
    `jfr_window`, Unix s, where the recording holds more than the row), the OutOfMemoryErrors its `service_log`
    names from byte `log_from` on (None: a service vtlab did not start, whose log it cannot read; the offset: where
    the row began on a JVM that served others before it) and, for a write row, the writes counted in the
    database."""
    pinned = pinned_of(rig.java.jfr, jfr, jfr_window) if jfr else None
    values = row_values(row, plan, spec, drive, info, pinned, rig.toxiproxy is not None, rig.k6_version,
                        cores.describe_map(rig.core_map))
    # a stack trace's line and each of its causes': a heap, the metaspace or the threads' native memory ran out
    oom = procs.lines_naming(service_log, "java.lang.OutOfMemoryError", log_from) if service_log else ""
    # a connection the service could not accept or open for want of a file descriptor (EMFILE)
    fd_errors = procs.lines_naming(service_log, "Too many open files", log_from) if service_log else ""
    return {**values, "oom_errors": oom, "fd_errors": fd_errors, "somaxconn": somaxconn(),
            **_writes(rig, row, drive.measured)}


def somaxconn() -> int | str:
    """The kernel's cap on every listening socket's accept queue (empty where unreadable)."""
    try:
        return int(Path("/proc/sys/net/core/somaxconn").read_text())
    except (OSError, ValueError):
        return ""


def _writes(rig: Rig, row: Row, measured: load.LoadResult) -> dict[str, object]:
    """Write rows: the rows the database holds must equal the writes k6 saw acknowledged."""
    if row.workload != "write":
        return {"writes_ok": "", "rows_inserted": "", "writes_acknowledged": "", "writes_lost": ""}
    assert rig.pg is not None  # a write row runs vtlab's own service, on vtlab's database
    check = writecheck.compare(measured.acknowledged_writes, rig.pg.written_orders())
    rig.pg.discard_written_orders()
    return check


def _shape_figures(spec: load.LoadSpec, drive: Drive) -> dict[str, object]:
    """The shape's settings and what it measured, from the row's series (on their clock: k6's start)."""
    return {"spike_multiple": spec.shape.multiple if spec.shape.name == "spike" else "",
            "spike_s": spec.shape.spike_s if spec.shape.name == "spike" else "",
            "step_count": spec.shape.steps if spec.shape.name == "steps" else "",
            **shapestats.figures(spec.shape, drive.k6, drive.meters, drive.cpu, spec.load, drive.k6_hold_start,
                                 spec.hold_s)}


# The pinned frames a row keeps, the longest total first: what a reader acts on, not every stack the JFR saw
FRAMES_KEPT = 5


def _pinning(pinned: Pinned | None) -> dict[str, object]:
    """JFR's jdk.VirtualThreadPinned events of the whole row, by reason and by frame; empty when unreadable."""
    if pinned is None:
        return {"pinned_events": "", "pinned_reasons": "", "pinned_frames": ""}
    return {"pinned_events": sum(pinned.reasons.values()), "pinned_reasons": cells.format_reasons(pinned.reasons),
            "pinned_frames": cells.format_frames((f.frame, f.kind, f.count, f.total_ms, f.max_ms)
                                                 for f in pinned.frames[:FRAMES_KEPT])}


def _conditions(plan: Plan, spec: load.LoadSpec, drive: Drive, info: dict, k6_version: str,
                placement: str) -> dict[str, object]:
    """What the row ran with: phases (the warm-up and cool-down as run), the service's runtime as it reported
    itself, versions, cores."""
    cooldown = plan.cooldown_s if drive.cooldown_s is None else round(drive.cooldown_s, 1)
    tomcat = info.get("tomcat", {})
    # a build before the server's record told Tomcat's alone
    server = info.get("server", {"maxConnections": tomcat.get("maxConnections"),
                                 "acceptQueue": tomcat.get("acceptCount"), "maxThreads": tomcat.get("maxThreads")})
    # the server's limits as the live service reported them (vtlab's own); its meters give a user's service's
    # max connections (holdstats) and no accept count
    named = (("max_connections", "maxConnections"), ("accept_count", "acceptQueue"))
    limits = {key: server[name] for key, name in named if isinstance(server.get(name), int) and server[name] > 0}
    return {**limits, "downstream_http": info.get("downstream", {}).get("httpVersion", ""),
            "server_max_threads": "" if server.get("maxThreads") is None else server["maxThreads"],
            "ramp_s": spec.ramp_s, **drive.warmup.cells(), "hold_s": plan.hold_s, "cooldown_s": cooldown,
            "jfr_pinned_threshold_ms": constants.CURRENT.jfr_pinned_threshold_ms,
            "app_cpus": info.get("availableProcessors", ""),
            "vt_parallelism": info.get("virtualThreadSchedulerParallelism", ""),
            "jdk_version": info.get("jdkVersion", ""), "spring_boot_version": info.get("springBootVersion", ""),
            "hikari_version": info.get("pool", {}).get("version", ""), "k6_version": k6_version,
            "core_map": placement}


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def at(unix_s: float) -> str:
    """A moment as the CSV's ts_iso: a block measured in turns is written when its point ends, and dated when it did."""
    return dt.datetime.fromtimestamp(unix_s, dt.timezone.utc).isoformat(timespec="seconds")
