"""The results contract: matrix.csv (schema, append + fsync, resume) and the run's metadata.

Every other stage that reads results goes through this module, so the schema lives here only.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from vtlab import dimensions

CSV_NAME = "matrix.csv"
METADATA_NAME = "metadata.json"

# The published rig's 23 columns, in its order, so results compare with it.
DESIGN_COLUMNS = [
    "ts_iso", "thread_mode", "hikari_pool", "path_mode", "conn_mode", "concurrency", "rep",
    "throughput_rps", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "error_rate", "http_reqs",
    "app_cpu_pct", "pg_cpu_pct", "load_cpu_pct", "hikari_active_max", "hikari_pending_max",
    "jvm_threads_max", "rss_mb_max", "pinned_events",
]

EXTRA_COLUMNS = [
    "load_model", "target_rps", "dropped_iterations", "stub_delay_ms", "tomcat_max_threads",
    "ramp_s", "warmup_s", "hold_s", "ok_requests", "throughput_first_half_rps",
    "throughput_second_half_rps", "app_cpu_ms_per_req", "app_cpu_pct_max", "stub_cpu_pct",
    "load_cpu_pct_max", "host_cpu_pct", "tomcat_connections_max", "cpu_samples", "meter_samples",
    "k6_exit", "jfr_pinned_threshold_ms", "app_cpus", "vt_parallelism", "jdk_version",
    "spring_boot_version", "hikari_version", "k6_version", "core_map",
    "workload", "sleep_ms", "cpu_work", "cooldown_s", "pinned_reasons",
    "writes_ok", "rows_inserted", "writes_acknowledged", "writes_lost", "hikari_pending_share",
    "offload_executor", "offload_pool", "fanout", "pool_impl", "context", "context_kb",
    "db_latency_ms", "db_jitter_ms", "downstream_latency_ms", "downstream_jitter_ms", "proxy_cpu_pct",
    "gc_pauses", "gc_pause_ms", "heap_used_mb_max",
    # a row a dead tier ended: which tier, how it ended, the last lines of its log; every measurement empty
    "failed_tier", "failure", "failure_log",
]

COLUMNS = DESIGN_COLUMNS + EXTRA_COLUMNS

assert set(dimensions.NAMES) <= set(COLUMNS), "every row dimension has its CSV column"


def read_rows(path: Path) -> list[dict[str, str]]:
    """The CSV's lines as text, with every dimension's empty or missing cell read as its default once,
    here: nothing downstream has to know what an older CSV left out."""
    if not path.exists():
        return []
    with open(path, newline="") as handle:
        lines = list(csv.DictReader(handle))
    for line in lines:
        for dimension in dimensions.DIMENSIONS:
            if line.get(dimension.name) in (None, ""):
                line[dimension.name] = format_value(dimension.default)
    return lines


def done_keys(path: Path) -> set[tuple[str, ...]]:
    """The resume keys of the rows a CSV already holds measured (compare with dimensions.key(planned_row));
    a failed row is measured again."""
    return {dimensions.key(dimensions.parse(line)) for line in read_rows(path) if not line.get("failed_tier")}


def same_columns(path: Path) -> bool:
    """Whether an existing CSV can be appended to: written with exactly this version's columns."""
    if not path.exists() or path.stat().st_size == 0:
        return True
    with open(path, newline="") as handle:
        return next(csv.reader(handle), []) == COLUMNS


class CsvWriter:
    """Appends one row at a time and fsyncs it, so a crash never loses a measured row."""

    def __init__(self, path: Path):
        self.path = path
        if path.exists() and path.stat().st_size > 0:
            if not same_columns(path):
                raise ValueError(f"{path} has different columns than this vtlab writes; "
                                 "use another --out folder")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._write([COLUMNS])

    def append(self, row: Mapping[str, object]) -> None:
        missing = [column for column in COLUMNS if column not in row]
        if missing:
            raise ValueError(f"row lacks columns: {missing}")
        self._write([[format_value(row[column]) for column in COLUMNS]])

    def _write(self, lines: Iterable[list[str]]) -> None:
        with open(self.path, "a", newline="") as handle:
            csv.writer(handle).writerows(lines)
            handle.flush()
            os.fsync(handle.fileno())


def format_value(value: object) -> str:
    if isinstance(value, float):
        if value != value:  # NaN: a reading that could not be taken stays visibly empty
            return ""
        return f"{value:.3f}".rstrip("0").rstrip(".") if abs(value) < 1e15 else str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write_metadata(run_dir: Path, metadata: Mapping[str, object]) -> None:
    path = run_dir / METADATA_NAME
    path.write_text(json.dumps(metadata, indent=2, sort_keys=True, default=str) + "\n")


def read_metadata(run_dir: Path) -> dict[str, object]:
    path = run_dir / METADATA_NAME
    return json.loads(path.read_text()) if path.exists() else {}
