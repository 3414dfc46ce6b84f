"""The results contract: matrix.csv (schema, append + fsync, resume) and the run's metadata.

Every other stage that reads results goes through this module, so the schema lives here only.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from vtlab.core import dimensions
from vtlab.results.cells import failed, format_value

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
    # the machine's CPU other processes than the tiers and the harness used, or the hypervisor stole (100% = every
    # CPU): a noisy neighbour
    "foreign_cpu_pct",
    # the pool's own exact accounting over the hold (HikariCP): borrows/s, mean connections out and mean
    # waiters (Little's law over its timers), mean time a connection was out, borrows that timed out
    "pool_borrows_per_s", "pool_out_mean", "pool_waiting_mean", "pool_usage_ms", "pool_timeouts",
    # successful responses per second over the hold as the service counted them (a cross-check of k6's), and
    # the 95% half-width of throughput_rps by batch means over k6's own successes each second
    "throughput_service_rps", "throughput_ci95_rps",
    # the steady-state test: how far the successful requests per second drifted from the hold's start to its
    # end (least squares through batch means), in % of the hold's mean, and that drift's 95% half-width
    "throughput_trend_pct", "throughput_trend_ci95_pct",
    # the longest run of whole seconds of the hold in which no request that succeeded had started (k6's series):
    # what the analysis reads a stall from, beside the live watch's
    "longest_silence_s",
    # the successful responses' mean latency (with the rate, Little's law gives the requests in flight, which
    # an open-model row's pre-allocated users are not); p99 of every response of the hold, failed ones too;
    # the hold's failures by status ("503=12;0=3")
    "mean_ms", "p99_all_ms", "errors_by_status",
    # a row a dead tier ended: which tier, how it ended, the last lines of its log; every measurement empty
    "failed_tier", "failure", "failure_log",
    # the load's shape during the hold (steady, spike, steps, soak), its settings, and what it measured:
    # spike: p99 before and during it, requests failed during it, seconds until p99 recovered; steps: req/s
    # and p99 per step ("load=value;…") and the knee; soak: RSS and thread drift per minute, GC per minute
    "shape", "spike_multiple", "spike_s", "step_count",
    "base_p99_ms", "spike_p99_ms", "spike_failed", "recovery_s", "steps_rps", "steps_p99_ms", "knee_load",
    "rss_drift_mb_per_min", "threads_drift_per_min", "gc_pause_ms_per_min",
    # the service's Java runtime (major version, the `jdk` dimension; jdk_version is what the live service
    # reported); a stall (users waiting, next to nothing completing: "stalled: …") and the JSON thread dump
    # taken during it, relative to the run folder
    "jdk", "stall", "thread_dump",
    # the limits the service reported through its meters over the hold: its pool's size, and Tomcat's request
    # threads (-1 under virtual threads: unbounded) — what the analysis takes for a user's service, whose row
    # sets neither
    "pool_max", "tomcat_threads_config",
    # what each request cost the service over the hold, from counters: KiB allocated (the JVM's allocation
    # counter), GC pause ms per 1,000 requests, context switches of its threads (voluntary: blocked; involuntary:
    # preempted) from /proc, the most virtual-thread carriers seen and the threads that ended during the hold
    "alloc_kb_per_req", "gc_pause_ms_per_1k_req", "csw_voluntary_per_req", "csw_involuntary_per_req",
    "carriers_max", "threads_ended",
    # async-profiler's profile of the hold (--profiles): the kinds kept under profiles/, the seconds profiled,
    # how the CPU was sampled (perf_events, ctimer, itimer) and why a profile is missing
    "profiles", "profile_s", "profile_cpu_engine", "profile_problem",
    # why the warm-up (warmup_s, as run) ended: settled (the rate and the CPU per request steady), bound (never
    # settled: the hold began at the plan's warm-up), fixed (a warm-up of the plan's length)
    "warmup_end",
    # the service's JDK 25 AOT cache: used, off, or why the JVM did not use it (its own -Xlog:aot)
    "aot_cache",
    # memory: the long-lived heap after collections (max over the hold) and its maximum, the collector threads'
    # CPU (% of one core), lines of the service's log naming an OutOfMemoryError during the row
    "heap_live_mb_max", "heap_old_max_mb", "gc_cpu_pct", "oom_errors",
    # connections: the service's open files at their peak and its limit, lines of its log naming "Too many open
    # files", Tomcat's max connections and accept count as it ran, the kernel's somaxconn, and the connections the
    # host's listening sockets dropped with their accept queue full during the row
    "open_files_max", "open_files_limit", "fd_errors", "max_connections", "accept_count", "somaxconn",
    "listen_overflows",
    # the service's heap maximum as it ran (vtlab's own service's is sized to the row's users:
    # services.service_heap_mb), and the HTTP version vtlab's service called the stub with (http1: a connection per
    # call; http2: h2c streams)
    "heap_max_mb", "downstream_http",
    # memory with every user waiting (--memory-probe, measure.memprobe): the requests in flight then, the live heap
    # after a full collection, of it the virtual threads' stack chunks, its largest classes ("class=MB;…"), the RSS,
    # the platform threads and their stacks reserved and committed (Native Memory Tracking), and why a figure is missing
    "probe_in_flight", "probe_heap_live_mb", "probe_stack_chunks_mb", "probe_rss_mb", "probe_top_classes",
    "probe_threads", "probe_stack_reserved_mb", "probe_stack_committed_mb", "probe_problem",
    # what each request cost the other tiers in CPU over the hold, ms (failed requests included, as for the
    # service's app_cpu_ms_per_req): PostgreSQL, the stub and k6 — the rig's own cost beside the service's
    "pg_cpu_ms_per_req", "stub_cpu_ms_per_req", "load_cpu_ms_per_req",
    # the downstream client (the http_client dimension) and its pool's size as the row set it (0: the client's own),
    # then what the service's meters said of that pool over the hold: connections allowed per route (-1: no limit),
    # connections leased (mean, max) and requests waiting for one (mean, max, share of samples with any)
    "http_client", "client_pool", "client_pool_max", "client_leased_mean", "client_leased_max",
    "client_pending_mean", "client_pending_max", "client_pending_share",
    # the embedded server (the server dimension) and the request threads it ran with as it reported them (-1: no cap)
    "server", "server_max_threads",
    # the service's JVM options beyond vtlab's own (the jvm_opts dimension: one value per --jvm-opts), as shell words
    "jvm_opts",
    # the warm-up's criterion at the hold's start (measure.settle): which of its tests were unmet at the bound
    # (rate, jit, cpu; empty when it settled), the JIT's compile time as % of the service's CPU over the last window
    # and as % of the JVM's busiest window (since the row's ramp, or in its pre-warm or an earlier step, where that
    # compiled more a second: measure.settle.Burst), methods compiled a second, and where the JIT was read from
    # (perfdata: HotSpot's counters; compiler-threads: their CPU in /proc; empty: not read), and the machine's busy %
    "warmup_unsettled", "warmup_jit_share_pct", "warmup_jit_decay_pct", "warmup_compiles_per_s",
    "warmup_jit_source", "warmup_host_busy_pct",
    # the row's place on its service JVM: 1 for a fresh JVM, n for the nth step of a staircase on one warm JVM
    # (planner.Plan.steps_on_one_jvm); empty where vtlab did not start the JVM
    "jvm_step",
    # the users its JVM ran at before its first step (targets.prewarm; empty: none), for prewarm_s of the run's rig
    "prewarm_users",
    # the part of foreign_cpu_pct the hypervisor gave other guests (steal): a shared host's, not a process's
    "steal_cpu_pct",
    # a cgroup's CPU quota on the rig in cores (empty: none bound it): host_cpu_pct is then busy against the quota's
    # share of the machine (an emulated slower machine: core.cores.usable_share)
    "cpu_quota_cores",
    # the rig's own scrapes of the service's meters over the hold, as vtlab's service counts them on the thread that
    # writes each: ms of CPU and KiB allocated a second, and a scrape (empty: the service keeps no such count)
    "scrape_cpu_ms_per_s", "scrape_kib_per_s", "scrape_cpu_ms_per_scrape", "scrape_kib_per_scrape",
    # the share of the hold (%) in which at least one runnable task on the host waited for a CPU, by the kernel's
    # pressure stall information (/proc/pressure/cpu, `some`); empty where the kernel has none: CPU queueing that
    # the host's busy share (host_cpu_pct) does not show on shared cores
    "cpu_pressure_pct",
    # the service JVM's JIT compiler threads' CPU over the hold, ms a second (HotSpot's "C1/C2 CompilerThreadN" in
    # /proc, read with the tiers' CPU): a cost of the JVM's, not of serving, taken out of the service's CPU in the
    # fixed and marginal costs (explain.compiler); empty where the service's process is not vtlab's (a --url
    # service, a cluster's pod) or /proc could not be read
    "jit_cpu_ms_per_s",
    # the hold's batches' throughput against k6's own CPU per request in them (log against log): the slope (-1: the
    # throughput moved exactly as the same work's cost to k6) and the share of its variance that explains. k6 does the
    # same work for every request, so where its cost moved, the host's speed did (series.holdstats._host_speed)
    "host_speed_slope", "host_speed_r2",
    # the service's CPU, and every tier's together (service, PostgreSQL, stub, k6), in units of k6's own CPU over the
    # same batches of the hold, with each mean's 95% half-width: costs a request that the host's speed does not move
    # (series.holdstats._in_k6_units)
    "app_cpu_per_k6_cpu", "app_cpu_per_k6_cpu_ci95", "tiers_cpu_per_k6_cpu", "tiers_cpu_per_k6_cpu_ci95",
    # the pinned virtual threads by the first frame below the JDK's own and what held the carrier there (monitor,
    # class-init, native: measure.jfr), "frame=kind/count/total ms/max ms;…", the longest total first
    "pinned_frames",
    # "yes" for a paired point's block taken in turns (measure.turns: one k6 per arm for the point, the block its
    # arm's turn: its ramp_s the spread of its users' first requests, its warm-up the turn's settle, its cool-down
    # the drain of its last iterations); empty for a row that was a k6 run of its own
    "taken_in_turns",
    # the host's speed under the hold: the median CPU µs one fixed piece of work took on the CPU sampler's thread
    # (measure.hostwork; higher: a slower host). Its CPU time, so the rows' own load on shared cores moves it ~2%
    "host_work_us",
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
    return {dimensions.key(dimensions.parse(line)) for line in read_rows(path) if not failed(line)}


def why_not_appendable(path: Path) -> str | None:
    """Why an existing CSV cannot be continued (another version's columns, a damaged line), or None.
    A last line cut short by a full disk or a crash mid-write is no reason: CsvWriter sets it aside."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        text = path.read_text()
        lines = list(csv.reader(io.StringIO(text[:text.rfind("\n") + 1], newline="")))  # torn tail aside
    except (UnicodeDecodeError, csv.Error) as err:
        return f"{path} cannot be read as a CSV ({err}); it is left as it is: give a new --out folder"
    if not lines or lines[0] != COLUMNS:
        return f"{path} was written by another vtlab version (different columns); give a new --out folder"
    body = lines[1:]
    damaged = [number for number, line in enumerate(body, start=2) if len(line) != len(COLUMNS)]
    if damaged:
        return (f"{path}: line(s) {', '.join(map(str, damaged[:5]))} do not have the {len(COLUMNS)} columns every "
                "row has (edited or damaged); nothing was changed: repair or delete those lines, then --resume")
    return None


def _torn(path: Path) -> bool:
    """Whether the file's last line was cut short: every line this writer writes ends with a line break."""
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) != b"\n"


def why_not_writable(folder: Path) -> str | None:
    """Why a run could not write its results into `folder`, found before anything starts."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".vtlab-write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        return f"cannot write results into {folder} ({err.strerror})"
    return None


class ResultsNotWritten(RuntimeError):
    """A measured row could not be written (disk full, folder gone); the rows before it are intact."""


class CsvWriter:
    """Appends one row at a time and fsyncs it, so a crash never loses a measured row."""

    def __init__(self, path: Path):
        self.path = path
        if path.exists() and path.stat().st_size > 0:
            problem = why_not_appendable(path)
            if problem:
                raise ValueError(problem)
            if _torn(path):
                self._set_aside_torn_tail()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._write([COLUMNS])

    def append(self, row: Mapping[str, object]) -> None:
        missing = [column for column in COLUMNS if column not in row]
        if missing:
            raise ValueError(f"row lacks columns: {missing}")
        try:
            self._write([[format_value(row[column]) for column in COLUMNS]])
        except OSError as err:
            # Print the row so the measurement is not lost with the write; the next run sets the torn
            # line aside and --resume measures the row again.
            raise ResultsNotWritten(
                f"could not write a measured row to {self.path} ({err.strerror}); every earlier row is intact. "
                f"The row's values: {json.dumps({k: format_value(v) for k, v in row.items()})}. "
                "Free the space (or fix the folder), then run the same command with --resume") from err

    def _set_aside_torn_tail(self) -> None:
        """Keep the cut-short last line in a side file and the intact rows in the CSV."""
        text = self.path.read_bytes()
        intact, torn = text[:text.rindex(b"\n") + 1], text[text.rindex(b"\n") + 1:]
        side = self.path.with_name(self.path.name + ".torn")
        side.write_bytes(torn)
        replacement = self.path.with_name(self.path.name + ".tmp")
        replacement.write_bytes(intact)
        os.replace(replacement, self.path)
        print(f"vtlab: {self.path}'s last line was cut short (a full disk or a crash mid-write); "
              f"kept in {side}, the row will be measured again", file=sys.stderr)

    def _write(self, lines: Iterable[list[str]]) -> None:
        with open(self.path, "a", newline="") as handle:
            csv.writer(handle).writerows(lines)
            handle.flush()
            os.fsync(handle.fileno())


def write_metadata(run_dir: Path, metadata: Mapping[str, object]) -> None:
    path = run_dir / METADATA_NAME
    path.write_text(json.dumps(metadata, indent=2, sort_keys=True, default=str) + "\n")
