"""What a row measured, declared once: every matrix.csv column that is not a dimension, with its type, its unit,
what an empty cell means and the stage that writes it, in the CSV's order with the dimensions in their places.

The CSV header (results.table.COLUMNS), the typed row every analysis reads (results.rows.MeasuredRow) and the check
that no analysis code names a column that is not one derive from SCHEMA: adding a measured column is one entry
here plus the code that writes it and the code that reads it (by attribute, never by its name as a string).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vtlab.core import dimensions

NUMBER, TEXT, YES = float, str, bool  # a cell read as a float (NaN: empty), as text ("": empty), as "yes"
NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class Measure:
    name: str
    kind: type          # NUMBER, TEXT or YES: what the cell is read as
    unit: str           # "" for a count, a ratio or text
    stage: str          # the module that writes it
    empty: str = NOT_MEASURED  # what an empty cell means


def dimension(name: str) -> dimensions.Dimension:
    """A dimension's place among the columns (its type and default are dimensions.DIMENSIONS')."""
    return dimensions.BY_NAME[name]


SCHEMA: tuple[Measure | dimensions.Dimension, ...] = (
    # the published rig's 23 columns, in its order, so results compare with it
    Measure("ts_iso", TEXT, "", "measure.csvrow"),
    dimension("thread_mode"),
    dimension("hikari_pool"),
    dimension("path_mode"),
    dimension("conn_mode"),
    dimension("concurrency"),
    dimension("rep"),
    Measure("throughput_rps", NUMBER, "req/s", "series.holdstats"),
    Measure("p50_ms", NUMBER, "ms", "series.holdstats"),
    Measure("p95_ms", NUMBER, "ms", "series.holdstats"),
    Measure("p99_ms", NUMBER, "ms", "series.holdstats"),
    Measure("p999_ms", NUMBER, "ms", "series.holdstats"),
    Measure("max_ms", NUMBER, "ms", "series.holdstats"),
    Measure("error_rate", NUMBER, "", "series.holdstats"),
    Measure("http_reqs", NUMBER, "", "series.holdstats"),
    Measure("app_cpu_pct", NUMBER, "%", "series.holdstats"),
    Measure("pg_cpu_pct", NUMBER, "%", "series.holdstats"),
    Measure("load_cpu_pct", NUMBER, "%", "series.holdstats"),
    Measure("hikari_active_max", NUMBER, "", "series.holdstats"),
    Measure("hikari_pending_max", NUMBER, "", "series.holdstats"),
    Measure("jvm_threads_max", NUMBER, "", "series.holdstats"),
    Measure("rss_mb_max", NUMBER, "MiB", "series.holdstats"),
    Measure("pinned_events", NUMBER, "", "measure.csvrow"),
    dimension("load_model"),
    dimension("target_rps"),
    Measure("dropped_iterations", NUMBER, "", "series.holdstats"),
    dimension("stub_delay_ms"),
    dimension("tomcat_max_threads"),
    Measure("ramp_s", NUMBER, "s", "measure.csvrow"),
    Measure("warmup_s", NUMBER, "s", "measure.settle"),
    Measure("hold_s", NUMBER, "s", "measure.csvrow"),
    Measure("ok_requests", NUMBER, "", "series.holdstats"),
    Measure("throughput_first_half_rps", NUMBER, "req/s", "series.holdstats"),
    Measure("throughput_second_half_rps", NUMBER, "req/s", "series.holdstats"),
    Measure("app_cpu_ms_per_req", NUMBER, "ms/req", "series.holdstats"),
    Measure("app_cpu_pct_max", NUMBER, "%", "series.holdstats"),
    Measure("stub_cpu_pct", NUMBER, "%", "series.holdstats"),
    Measure("load_cpu_pct_max", NUMBER, "%", "series.holdstats"),
    Measure("host_cpu_pct", NUMBER, "%", "series.holdstats"),
    Measure("tomcat_connections_max", NUMBER, "", "series.holdstats"),
    Measure("cpu_samples", NUMBER, "", "series.holdstats"),
    Measure("meter_samples", NUMBER, "", "series.holdstats"),
    Measure("k6_exit", NUMBER, "", "series.holdstats"),
    Measure("jfr_pinned_threshold_ms", NUMBER, "ms", "measure.csvrow"),
    Measure("app_cpus", NUMBER, "", "measure.csvrow"),
    Measure("vt_parallelism", NUMBER, "", "measure.csvrow"),
    Measure("jdk_version", TEXT, "", "measure.csvrow"),
    Measure("spring_boot_version", TEXT, "", "measure.csvrow"),
    Measure("hikari_version", TEXT, "", "measure.csvrow"),
    Measure("k6_version", TEXT, "", "measure.csvrow"),
    Measure("core_map", TEXT, "", "measure.csvrow"),
    dimension("workload"),
    dimension("sleep_ms"),
    dimension("cpu_work"),
    Measure("cooldown_s", NUMBER, "s", "measure.csvrow"),
    Measure("pinned_reasons", TEXT, "", "measure.csvrow", "no pin, or no JFR read"),
    Measure("writes_ok", TEXT, "", "measure.writecheck", "not a write row"),
    Measure("rows_inserted", NUMBER, "", "measure.writecheck"),
    Measure("writes_acknowledged", NUMBER, "", "measure.writecheck"),
    Measure("writes_lost", NUMBER, "", "measure.writecheck"),
    Measure("hikari_pending_share", NUMBER, "", "series.holdstats"),
    dimension("offload_executor"),
    dimension("offload_pool"),
    dimension("fanout"),
    dimension("pool_impl"),
    dimension("context"),
    dimension("context_kb"),
    dimension("db_latency_ms"),
    dimension("db_jitter_ms"),
    dimension("downstream_latency_ms"),
    dimension("downstream_jitter_ms"),
    Measure("proxy_cpu_pct", NUMBER, "%", "series.holdstats"),
    Measure("gc_pauses", NUMBER, "", "series.holdstats"),
    Measure("gc_pause_ms", NUMBER, "ms", "series.holdstats"),
    Measure("heap_used_mb_max", NUMBER, "MiB", "series.holdstats"),
    # the machine's CPU other processes than the tiers and the harness used, or the hypervisor stole (100% = every
    # CPU): a noisy neighbour
    Measure("foreign_cpu_pct", NUMBER, "%", "series.holdstats"),
    # the pool's own exact accounting over the hold (HikariCP): borrows/s, mean connections out and mean
    # waiters (Little's law over its timers), mean time a connection was out, borrows that timed out
    Measure("pool_borrows_per_s", NUMBER, "/s", "series.holdstats"),
    Measure("pool_out_mean", NUMBER, "", "series.holdstats"),
    Measure("pool_waiting_mean", NUMBER, "", "series.holdstats"),
    Measure("pool_usage_ms", NUMBER, "ms", "series.holdstats"),
    Measure("pool_timeouts", NUMBER, "", "series.holdstats"),
    # successful responses per second over the hold as the service counted them (a cross-check of k6's), and
    # the 95% half-width of throughput_rps by batch means over k6's own successes each second
    Measure("throughput_service_rps", NUMBER, "req/s", "series.holdstats"),
    Measure("throughput_ci95_rps", NUMBER, "req/s", "series.holdstats"),
    # the steady-state test: how far the successful requests per second drifted from the hold's start to its
    # end (least squares through batch means), in % of the hold's mean, and that drift's 95% half-width
    Measure("throughput_trend_pct", NUMBER, "%", "series.holdstats"),
    Measure("throughput_trend_ci95_pct", NUMBER, "%", "series.holdstats"),
    # the longest run of whole seconds of the hold in which no request that succeeded had started (k6's series):
    # what the analysis reads a stall from, beside the live watch's
    Measure("longest_silence_s", NUMBER, "s", "series.holdstats"),
    # the successful responses' mean latency (with the rate, Little's law gives the requests in flight, which
    # an open-model row's pre-allocated users are not); p99 of every response of the hold, failed ones too;
    # the hold's failures by status ("503=12;0=3")
    Measure("mean_ms", NUMBER, "ms", "series.holdstats"),
    Measure("p99_all_ms", NUMBER, "ms", "series.holdstats"),
    Measure("errors_by_status", TEXT, "", "series.holdstats", "no failure"),
    # a row a dead tier ended: which tier, how it ended, the last lines of its log; every measurement empty
    Measure("failed_tier", TEXT, "", "measure.csvrow", "the row was measured (no tier died)"),
    Measure("failure", TEXT, "", "measure.csvrow", "the row was measured"),
    Measure("failure_log", TEXT, "", "measure.csvrow", "the row was measured"),
    # the load's shape during the hold (steady, spike, steps, soak), its settings, and what it measured:
    # spike: p99 before and during it, requests failed during it, seconds until p99 recovered; steps: req/s
    # and p99 per step ("load=value;…") and the knee; soak: RSS and thread drift per minute, GC per minute
    dimension("shape"),
    Measure("spike_multiple", NUMBER, "", "measure.csvrow"),
    Measure("spike_s", NUMBER, "s", "measure.csvrow"),
    Measure("step_count", NUMBER, "", "measure.csvrow"),
    Measure("base_p99_ms", NUMBER, "ms", "series.shapestats"),
    Measure("spike_p99_ms", NUMBER, "ms", "series.shapestats"),
    Measure("spike_failed", NUMBER, "", "series.shapestats"),
    Measure("recovery_s", NUMBER, "s", "series.shapestats"),
    Measure("steps_rps", TEXT, "", "series.shapestats", "not a steps shape"),
    Measure("steps_p99_ms", TEXT, "", "series.shapestats", "not a steps shape"),
    Measure("knee_load", NUMBER, "", "series.shapestats"),
    Measure("rss_drift_mb_per_min", NUMBER, "MiB/min", "series.shapestats"),
    Measure("threads_drift_per_min", NUMBER, "/min", "series.shapestats"),
    Measure("gc_pause_ms_per_min", NUMBER, "ms/min", "series.shapestats"),
    # the service's Java runtime (major version, the `jdk` dimension; jdk_version is what the live service
    # reported); a stall (users waiting, next to nothing completing: "stalled: …") and the JSON thread dump
    # taken during it, relative to the run folder
    dimension("jdk"),
    Measure("stall", TEXT, "", "measure.drive", "no stall seen"),
    Measure("thread_dump", TEXT, "", "measure.drive", "no stall, so no dump"),
    # the limits the service reported through its meters over the hold: its pool's size, and Tomcat's request
    # threads (-1 under virtual threads: unbounded) — what the analysis takes for a user's service, whose row
    # sets neither
    Measure("pool_max", NUMBER, "", "series.holdstats"),
    Measure("tomcat_threads_config", NUMBER, "", "series.holdstats"),
    # what each request cost the service over the hold, from counters: KiB allocated (the JVM's allocation
    # counter), GC pause ms per 1,000 requests, context switches of its threads (voluntary: blocked; involuntary:
    # preempted) from /proc, the most virtual-thread carriers seen and the threads that ended during the hold
    Measure("alloc_kb_per_req", NUMBER, "KiB/req", "series.holdstats"),
    Measure("gc_pause_ms_per_1k_req", NUMBER, "ms/1k req", "series.holdstats"),
    Measure("csw_voluntary_per_req", NUMBER, "/req", "measure.threadcounts"),
    Measure("csw_involuntary_per_req", NUMBER, "/req", "measure.threadcounts"),
    Measure("carriers_max", NUMBER, "", "measure.threadcounts"),
    Measure("threads_ended", NUMBER, "", "measure.threadcounts"),
    # async-profiler's profile of the hold (--profiles): the kinds kept under profiles/, the seconds profiled,
    # how the CPU was sampled (perf_events, ctimer, itimer) and why a profile is missing
    Measure("profiles", TEXT, "", "measure.profiler", "no profile taken"),
    Measure("profile_s", NUMBER, "s", "measure.profiler"),
    Measure("profile_cpu_engine", TEXT, "", "measure.profiler"),
    Measure("profile_problem", TEXT, "", "measure.profiler", "none, or no profile asked"),
    # why the warm-up (warmup_s, as run) ended: settled (the rate and the CPU per request steady), bound (never
    # settled: the hold began at the plan's warm-up), fixed (a warm-up of the plan's length)
    Measure("warmup_end", TEXT, "", "measure.settle"),
    # the service's JDK 25 AOT cache: used, off, or why the JVM did not use it (its own -Xlog:aot)
    Measure("aot_cache", TEXT, "", "targets.inturns"),
    # memory: the long-lived heap after collections (max over the hold) and its maximum, the collector threads'
    # CPU (% of one core), lines of the service's log naming an OutOfMemoryError during the row
    Measure("heap_live_mb_max", NUMBER, "MiB", "series.holdstats"),
    Measure("heap_old_max_mb", NUMBER, "MiB", "series.holdstats"),
    Measure("gc_cpu_pct", NUMBER, "%", "measure.threadcounts"),
    Measure("oom_errors", NUMBER, "", "measure.csvrow"),
    # connections: the service's open files at their peak and its limit, lines of its log naming "Too many open
    # files", Tomcat's max connections and accept count as it ran, the kernel's somaxconn, and the connections the
    # host's listening sockets dropped with their accept queue full during the row
    Measure("open_files_max", NUMBER, "", "series.holdstats"),
    Measure("open_files_limit", NUMBER, "", "series.holdstats"),
    Measure("fd_errors", NUMBER, "", "measure.csvrow"),
    Measure("max_connections", NUMBER, "", "series.holdstats"),
    Measure("accept_count", NUMBER, "", "targets.servicejvm"),
    Measure("somaxconn", NUMBER, "", "measure.csvrow"),
    Measure("listen_overflows", NUMBER, "", "series.holdstats"),
    # the service's heap maximum as it ran (vtlab's own service's is sized to the row's users:
    # services.service_heap_mb), and the HTTP version vtlab's service called the stub with (http1: a connection per
    # call; http2: h2c streams)
    Measure("heap_max_mb", NUMBER, "MiB", "series.holdstats"),
    Measure("downstream_http", TEXT, "", "measure.csvrow"),
    # memory with every user waiting (--memory-probe, measure.memprobe): the requests in flight then, the live heap
    # after a full collection, of it the virtual threads' stack chunks, its largest classes ("class=MB;…"), the RSS,
    # the platform threads and their stacks reserved and committed (Native Memory Tracking), and why a figure is missing
    Measure("probe_in_flight", NUMBER, "", "measure.memprobe"),
    Measure("probe_heap_live_mb", NUMBER, "MiB", "measure.memprobe"),
    Measure("probe_stack_chunks_mb", NUMBER, "MiB", "measure.memprobe"),
    Measure("probe_rss_mb", NUMBER, "MiB", "measure.memprobe"),
    Measure("probe_top_classes", TEXT, "", "measure.memprobe"),
    Measure("probe_threads", NUMBER, "", "measure.memprobe"),
    Measure("probe_stack_reserved_mb", NUMBER, "MiB", "measure.memprobe"),
    Measure("probe_stack_committed_mb", NUMBER, "MiB", "measure.memprobe"),
    Measure("probe_problem", TEXT, "", "measure.memprobe", "none, or no probe asked"),
    # what each request cost the other tiers in CPU over the hold, ms (failed requests included, as for the
    # service's app_cpu_ms_per_req): PostgreSQL, the stub and k6 — the rig's own cost beside the service's
    Measure("pg_cpu_ms_per_req", NUMBER, "ms/req", "series.holdstats"),
    Measure("stub_cpu_ms_per_req", NUMBER, "ms/req", "series.holdstats"),
    Measure("load_cpu_ms_per_req", NUMBER, "ms/req", "series.holdstats"),
    # the downstream client (the http_client dimension) and its pool's size as the row set it (0: the client's own),
    # then what the service's meters said of that pool over the hold: connections allowed per route (-1: no limit),
    # connections leased (mean, max) and requests waiting for one (mean, max, share of samples with any)
    dimension("http_client"),
    dimension("client_pool"),
    Measure("client_pool_max", NUMBER, "", "series.holdstats"),
    Measure("client_leased_mean", NUMBER, "", "series.holdstats"),
    Measure("client_leased_max", NUMBER, "", "series.holdstats"),
    Measure("client_pending_mean", NUMBER, "", "series.holdstats"),
    Measure("client_pending_max", NUMBER, "", "series.holdstats"),
    Measure("client_pending_share", NUMBER, "", "series.holdstats"),
    # the embedded server (the server dimension) and the request threads it ran with as it reported them (-1: no cap)
    dimension("server"),
    Measure("server_max_threads", NUMBER, "", "measure.csvrow"),
    # the service's JVM options beyond vtlab's own (the jvm_opts dimension: one value per --jvm-opts), as shell words
    dimension("jvm_opts"),
    # the warm-up's criterion at the hold's start (measure.settle): which of its tests were unmet at the bound
    # (rate, jit, cpu; empty when it settled), the JIT's compile time as % of the service's CPU over the last window
    # and as % of the JVM's busiest window (since the row's ramp, or in its pre-warm or an earlier step, where that
    # compiled more a second: measure.settle.Burst), methods compiled a second, and where the JIT was read from
    # (perfdata: HotSpot's counters; compiler-threads: their CPU in /proc; empty: not read), and the machine's busy %
    Measure("warmup_unsettled", TEXT, "", "measure.settle", "it settled, or a fixed warm-up"),
    Measure("warmup_jit_share_pct", NUMBER, "%", "measure.settle"),
    Measure("warmup_jit_decay_pct", NUMBER, "%", "measure.settle"),
    Measure("warmup_compiles_per_s", NUMBER, "/s", "measure.settle"),
    Measure("warmup_jit_source", TEXT, "", "measure.settle"),
    Measure("warmup_host_busy_pct", NUMBER, "%", "measure.settle"),
    # the row's place on its service JVM: 1 for a fresh JVM, n for the nth step of a staircase on one warm JVM
    # (planner.Plan.steps_on_one_jvm); empty where vtlab did not start the JVM
    Measure("jvm_step", NUMBER, "", "targets.inturns"),
    # the users its JVM ran at before its first step (targets.prewarm; empty: none), for prewarm_s of the run's rig
    Measure("prewarm_users", NUMBER, "", "targets.inturns"),
    # the part of foreign_cpu_pct the hypervisor gave other guests (steal): a shared host's, not a process's
    Measure("steal_cpu_pct", NUMBER, "%", "series.holdstats"),
    # a cgroup's CPU quota on the rig in cores (empty: none bound it): host_cpu_pct is then busy against the quota's
    # share of the machine (an emulated slower machine: core.cores.usable_share)
    Measure("cpu_quota_cores", NUMBER, "cores", "series.holdstats"),
    # the rig's own scrapes of the service's meters over the hold, as vtlab's service counts them on the thread that
    # writes each: ms of CPU and KiB allocated a second, and a scrape (empty: the service keeps no such count)
    Measure("scrape_cpu_ms_per_s", NUMBER, "ms/s", "series.holdstats"),
    Measure("scrape_kib_per_s", NUMBER, "KiB/s", "series.holdstats"),
    Measure("scrape_cpu_ms_per_scrape", NUMBER, "ms/scrape", "series.holdstats"),
    Measure("scrape_kib_per_scrape", NUMBER, "KiB/scrape", "series.holdstats"),
    # the share of the hold (%) in which at least one runnable task on the host waited for a CPU, by the kernel's
    # pressure stall information (/proc/pressure/cpu, `some`); empty where the kernel has none: CPU queueing that
    # the host's busy share (host_cpu_pct) does not show on shared cores
    Measure("cpu_pressure_pct", NUMBER, "%", "series.holdstats"),
    # the service JVM's JIT compiler threads' CPU over the hold, ms a second (HotSpot's "C1/C2 CompilerThreadN" in
    # /proc, read with the tiers' CPU): a cost of the JVM's, not of serving, taken out of the service's CPU in the
    # fixed and marginal costs (explain.compiler); empty where the service's process is not vtlab's (a --url
    # service, a cluster's pod) or /proc could not be read
    Measure("jit_cpu_ms_per_s", NUMBER, "ms/s", "series.holdstats"),
    # the hold's batches' throughput against k6's own CPU per request in them (log against log): the slope (-1: the
    # throughput moved exactly as the same work's cost to k6) and the share of its variance that explains. k6 does the
    # same work for every request, so where its cost moved, the host's speed did (series.holdstats._host_speed)
    Measure("host_speed_slope", NUMBER, "", "series.holdstats"),
    Measure("host_speed_r2", NUMBER, "", "series.holdstats"),
    # the service's CPU, and every tier's together (service, PostgreSQL, stub, k6), in units of k6's own CPU over the
    # same batches of the hold, with each mean's 95% half-width: costs a request that the host's speed does not move
    # (series.holdstats._in_k6_units)
    Measure("app_cpu_per_k6_cpu", NUMBER, "", "series.holdstats"),
    Measure("app_cpu_per_k6_cpu_ci95", NUMBER, "", "series.holdstats"),
    Measure("tiers_cpu_per_k6_cpu", NUMBER, "", "series.holdstats"),
    Measure("tiers_cpu_per_k6_cpu_ci95", NUMBER, "", "series.holdstats"),
    # the pinned virtual threads by the first frame below the JDK's own and what held the carrier there (monitor,
    # class-init, native: measure.jfr), "frame=kind/count/total ms/max ms;…", the longest total first
    Measure("pinned_frames", TEXT, "", "measure.csvrow", "no pin, or no JFR read"),
    # "yes" for a paired point's block taken in turns (measure.turns: one k6 per arm for the point, the block its
    # arm's turn: its ramp_s the spread of its users' first requests, its warm-up the turn's settle, its cool-down
    # the drain of its last iterations); empty for a row that was a k6 run of its own
    Measure("taken_in_turns", YES, "", "targets.inturns", "a k6 run of its own"),
    # the host's speed under the hold: the median CPU µs one fixed piece of work took on the CPU sampler's thread
    # (measure.hostwork; higher: a slower host). Its CPU time, so the rows' own load on shared cores moves it ~2%
    Measure("host_work_us", NUMBER, "µs", "series.holdstats"),
    # how far the host's speed moved under the hold: the fixed work's 10th to 90th percentile, in % of its median
    Measure("host_work_spread_pct", NUMBER, "%", "series.holdstats"),
)

MEASURES: tuple[Measure, ...] = tuple(column for column in SCHEMA if isinstance(column, Measure))
BY_NAME: dict[str, Measure] = {measure.name: measure for measure in MEASURES}
NAMES: tuple[str, ...] = tuple(column.name for column in SCHEMA)  # every column, in the CSV's order

assert len(set(NAMES)) == len(NAMES), "a column declared twice"
assert set(dimensions.NAMES) <= set(NAMES), "every dimension has its place among the columns"


def declared(*names: str) -> tuple[str, ...]:
    """Measured columns an analysis reads by a name it builds (a tier's CPU, a list of figures), checked at import:
    a misspelt one fails there, naming it."""
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        raise NameError(f"not a measured column: {', '.join(unknown)} (core/measures.py declares them)")
    return names


def given(figure: float, default: float) -> float:
    """A figure, or `default` where the row has none (an empty cell reads NaN)."""
    return default if math.isnan(figure) else figure
