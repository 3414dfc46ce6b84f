"""What the analysis works from and concludes, typed and immutable: the run's Context, a Verdict per row, an
Aggregate per scenario, and analysis.csv's columns with the cells of one Verdict.

A Verdict carries the row's dimensions (a `dimensions.Row`), the measured figures the report quotes, and
what the analysis decided from them; nothing downstream reads a verdict by a string key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from vtlab.core import constants as rig_constants
from vtlab.core import dimensions
from vtlab.core.aafloor import Floor as AAFloor
from vtlab.core.arms import Arms
from vtlab.core.triedbefore import NotHelped
from vtlab.core import measures
from vtlab.results.cells import format_value

NAN = math.nan


@dataclass(frozen=True)
class CpuPoint:
    """One clean row's load and the CPU it cost: what predicts another row's CPU wall."""
    concurrency: float
    rps: float            # every response per second (failed ones cost CPU too)
    cpu_pct: float        # the CPU that competes for the service's cores (facts.cpu_tiers)


@dataclass(frozen=True)
class Context:
    """What the analysis needs beyond one row: the run's machine and the low-load service times."""
    host_cpus: float  # the CPUs the tiers could use: the host's, or a cgroup quota's fewer
    shared_cores: bool
    load_cpus: float
    service_time_s: dict[tuple[str, ...], float]  # scenario_of(row) -> seconds
    rig: rig_constants.Constants = rig_constants.CURRENT  # what the run measured with (metadata.json)
    # scenario_of(row) -> (thread mode, users) of the row whose p50 is the scenario's service time
    service_time_point: dict[tuple[str, ...], tuple[str, float]] = field(default_factory=dict)
    cpu_points: dict[tuple[str, ...], tuple[CpuPoint, ...]] = field(default_factory=dict)  # cpu_group -> rows
    service_unseen: bool = False  # a --url service: not vtlab's process, so its CPU and RSS are not measured
    # the mean of the stub's uniform extra delay (the plan's 0 to stub_jitter_ms): part of the designed wait where no
    # row measured the service time (a 1,000 ms delay + 0–100 ms is a 1.05 s call)
    jitter_mean_s: float = 0.0
    # whether the service's database is vtlab's PostgreSQL, whose max_connections every pool shares: vtlab's own
    # service's always, a user's with --db; a user's own --db-url (or none) is not the rig's to know
    vtlab_database: bool = True


@dataclass(frozen=True)
class Measured:
    """The row's measured figures that a verdict is told beside, as read (NaN where not measured)."""
    throughput_rps: float = NAN
    throughput_ci95_rps: float = NAN
    error_rate: float = NAN
    p50_ms: float = NAN
    p99_ms: float = NAN             # successful responses only (k6's expected_response)
    p99_all_ms: float = NAN         # every response of the hold, failed ones too
    rss_mb_max: float = NAN
    heap_used_mb_max: float = NAN
    gc_pauses: float = NAN
    gc_pause_ms: float = NAN
    jvm_threads_max: float = NAN
    hikari_pending_max: float = NAN     # sampled at 2 Hz: the fallback where the pool keeps no timers
    pool_out_mean: float = NAN          # exact, from the pool's timers: mean connections out
    pool_waiting_mean: float = NAN      # exact: mean threads waiting for a connection
    # the downstream client's pool (2 Hz gauges): connections per route as it ran (-1: no limit), leased, waiting
    client_pool_max: float = NAN
    pool_max: float = NAN               # a user's service's pool as its meters read it (vtlab's own: the row's setting)
    app_cpus: float = NAN               # the CPUs the service's cores gave it, where they were its own
    client_leased_mean: float = NAN
    client_pending_mean: float = NAN
    client_pending_max: float = NAN
    server_max_threads: float = NAN     # the server's request threads as it reported them (-1: no cap)
    app_cpu_pct: float = NAN
    proxy_cpu_pct: float = NAN
    # the other tiers' CPU over the hold (100% = one core), the hold's length and where the row stood on its JVM
    # (1: fresh; 2, 3, …: a staircase's later steps): what explain.costs fits fixed and marginal costs from
    pg_cpu_pct: float = NAN
    stub_cpu_pct: float = NAN
    load_cpu_pct: float = NAN
    hold_s: float = NAN
    jvm_step: float = NAN
    app_cpu_ms_per_req: float = NAN
    # what each request cost the other tiers (holdstats): PostgreSQL, the stub, k6
    pg_cpu_ms_per_req: float = NAN
    stub_cpu_ms_per_req: float = NAN
    load_cpu_ms_per_req: float = NAN
    # what each request cost the service's JVM, from counters (holdstats, threadcounts); this and
    # app_cpu_ms_per_req are the service's own, the rig's scrape taken out where measured (explain.scrape)
    alloc_kb_per_req: float = NAN
    gc_pause_ms_per_1k_req: float = NAN
    csw_voluntary_per_req: float = NAN
    csw_involuntary_per_req: float = NAN
    # the rig's own scrapes of the service's meters over the hold, where the service counted them (holdstats): ms of
    # CPU and KiB allocated a second, and a scrape
    scrape_cpu_ms_per_s: float = NAN
    scrape_kib_per_s: float = NAN
    scrape_cpu_ms_per_scrape: float = NAN
    scrape_kib_per_scrape: float = NAN
    # the service JVM's JIT compiler threads' CPU over the hold, ms a second (holdstats): the JVM's, not its
    # requests' (explain.compiler)
    jit_cpu_ms_per_s: float = NAN
    # the service's CPU, and every tier's, in units of k6's own CPU over the same batches, with each mean's 95%
    # half-width (holdstats._in_k6_units): costs a request the host's speed does not move (report.equalspeed)
    app_cpu_per_k6_cpu: float = NAN
    app_cpu_per_k6_cpu_ci95: float = NAN
    tiers_cpu_per_k6_cpu: float = NAN
    tiers_cpu_per_k6_cpu_ci95: float = NAN
    host_cpu_pct: float = NAN
    host_work_us: float = NAN           # the host's speed under the hold: a fixed work's CPU µs (measure.hostwork)
    vt_parallelism: float = NAN
    pinned_events: float = NAN
    rows_inserted: float = NAN
    writes_acknowledged: float = NAN
    writes_lost: float = NAN
    pinned_reasons: str = ""
    pinned_frames: str = ""             # by the first frame below the JDK's own (results.cells.format_frames)
    writes_ok: str = ""             # "true" / "false" / "" (no write check ran)
    errors_by_status: str = ""      # failed responses by HTTP status, e.g. "503=580,0=12"
    # what the load's shape measured (shapestats.py): a spike, a staircase, a soak
    base_p99_ms: float = NAN
    spike_p99_ms: float = NAN
    spike_failed: float = NAN
    recovery_s: float = NAN
    knee_load: float = NAN
    rss_drift_mb_per_min: float = NAN
    threads_drift_per_min: float = NAN
    gc_pause_ms_per_min: float = NAN
    steps_rps: str = ""             # "users=req/s;…" per step
    steps_p99_ms: str = ""
    jdk_version: str = ""           # the runtime the live service reported (e.g. "21.0.8+9-LTS")
    stall: str = ""                 # "stalled …": users waited while next to nothing completed (vtlab.measure.stalls)
    thread_dump: str = ""           # the JSON thread dump taken during the stall, relative to the run folder
    # the memory probe (measure.memprobe): with every user waiting, the requests in flight, the live heap after a
    # full collection, the RSS, the platform threads and their stacks, the heap's largest classes
    probe_in_flight: float = NAN
    probe_heap_live_mb: float = NAN
    probe_stack_chunks_mb: float = NAN
    probe_rss_mb: float = NAN
    probe_threads: float = NAN
    probe_stack_reserved_mb: float = NAN
    probe_stack_committed_mb: float = NAN
    probe_top_classes: str = ""
    taken_in_turns: bool = False    # a paired block taken in turns on one k6 per arm (measure.turns)


# the figures a verdict quotes as measured: each a matrix.csv column of that name (checked at import)
MEASURED_NUMBERS = measures.declared(*(f.name for f in fields(Measured) if f.type in ("float", float)))


@dataclass(frozen=True)
class Ceilings:
    """Little's-law ceilings in req/s, one per resource (inf where the resource cannot limit)."""
    concurrency: float = NAN
    threads: float = NAN
    pool: float = NAN
    cpu: float = NAN
    connections: float = NAN  # the connections the service can hold at once (Tomcat's limit, its open files)
    client_pool: float = NAN  # the downstream client's connections per route over the time a request holds one
    # Ceilings computed from the row's own throughput-bound measurement (its own p50, its own CPU busy share,
    # its own connections out): "attained" against them is true by construction, not a prediction that held.
    restated: tuple[str, ...] = ()
    # Ceilings that could not be computed, each with the measurement that was missing (a user's service that
    # exposes no pool or Tomcat meters, a --url service whose CPU vtlab cannot see): "pool: …".
    missing: tuple[str, ...] = ()


# Each limit's name and its Ceilings field, in the order that breaks a tie.
LIMITS = (("concurrency", "concurrency"), ("thread-pool", "threads"), ("connection-pool", "pool"), ("cpu", "cpu"),
          ("connection-limit", "connections"), ("client-pool", "client_pool"))


@dataclass(frozen=True)
class Failure:
    """How a row ended when a tier died during it: its numbers are not a measurement."""
    tier: str
    how: str = ""
    log: str = ""


@dataclass(frozen=True)
class Verdict:
    row: Any                        # dimensions.Row: every dimension of the row, typed
    measured: Measured
    service_time_ms: float = NAN
    service_time_source: str = ""
    cpu_ms_per_req: float = NAN
    ceilings: Ceilings = Ceilings()
    ceiling_rps: float = NAN        # the lowest finite ceiling
    limit: str = ""                 # which ceiling that is ("concurrency", "thread-pool", ...)
    attained: float = NAN           # throughput / ceiling
    bottleneck: str = ""            # what the measurements say held the row back; "" for a failed row
    evidence: str = ""              # what the row showed of that wall (unexplained: the gap and what was checked)
    valid: bool = False
    flags: tuple[str, ...] = ()
    queued: bool = False            # its latency includes waiting for a thread or connection by design
    failure: Failure | None = None  # set for a row a tier died in
    # How far apart another throughput must be before it is called different from this one (a half-width, req/s):
    # one rep's within-row interval, at least the rig's between-run noise floor; several reps' interval of the mean.
    noise_half_rps: float = NAN
    # A row on cores shared with k6 whose cost was priced (explain.generatorprice): the service's throughput without
    # k6 on its cores, measured ÷ (1 − loss), and its 95% interval from the price's; NaN where nothing was corrected.
    without_generator_rps: float = NAN
    without_generator_low_rps: float = NAN
    without_generator_high_rps: float = NAN

    @property
    def failed(self) -> bool:
        return self.failure is not None

    @property
    def limit_restated(self) -> bool:
        """Whether the ceiling that set the limit restates this row's own measurement (attained is then moot)."""
        return dict(LIMITS).get(self.limit, "") in self.ceilings.restated


@dataclass(frozen=True)
class Aggregate:
    """One scenario over its repetitions: median with min-max over the valid reps (all reps if none is)."""
    row: Any                        # the first repetition's dimensions (all but rep are every rep's)
    reps: int
    valid_reps: int
    throughput_median: float
    throughput_min: float
    throughput_max: float
    interval_low: float             # one rep: its own 95% interval; several: their mean's, its ends on the log
    interval_high: float
    spread: float
    spread_warning: bool
    p99_median: float
    ceiling_rps: float
    limit: str
    bottleneck: str
    bottlenecks_seen: str           # "a/b" when reps named different walls, else ""
    valid: bool
    flags: tuple[str, ...]
    line: Verdict                   # the scenario told as one row: its reps' median figures, this verdict
    members: tuple[Verdict, ...] = ()  # the repetitions themselves, in the CSV's order

    @property
    def interval_known(self) -> bool:
        """Whether the interval says anything: reps to spread over, or a within-row interval."""
        return self.reps > 1 or not math.isnan(self.line.measured.throughput_ci95_rps)


@dataclass(frozen=True)
class Pair:
    """Block `block` of both arms, `order` "ab" or "ba" as they ran; `why_out` says why it counts for nothing ("":
    it counts)."""
    block: int
    order: str
    a_rps: float
    b_rps: float
    why_out: str = ""
    # k6's CPU per request in each block (ms): the same work in every block of an arm, so where it moves the host's
    # speed moved (holdstats' host-speed fit reads it the same way); NaN where not measured
    a_k6_ms: float = NAN
    b_k6_ms: float = NAN
    # the host's speed under each block: a fixed work's CPU µs (measure.hostwork), the same at any load; NaN where not
    # measured (a run from before it)
    a_host_us: float = NAN
    b_host_us: float = NAN

    @property
    def ratio(self) -> float:
        return self.b_rps / self.a_rps if self.a_rps > 0 else math.nan


@dataclass(frozen=True)
class PairedPoint:
    """One point of a paired plan: b ÷ a over its counted pairs, the interval of their geometric mean, and why there
    is no ratio where there is none."""
    row: Any                 # arm a's first block's row: the point's dimensions (its load, its scenario)
    arms: Arms
    pairs: tuple[Pair, ...]
    ratio: float = math.nan
    low: float = math.nan    # NaN where fewer than two pairs count: one ratio has no spread to bound it
    high: float = math.nan
    why_not: str = ""
    in_turns: bool = False   # its blocks were turns of one k6 per arm (measure.turns), not k6 runs of their own

    @property
    def counted(self) -> tuple[Pair, ...]:
        return tuple(pair for pair in self.pairs if not pair.why_out)

    @property
    def computed(self) -> bool:
        return not self.why_not

    @property
    def contains_one(self) -> bool:
        """Whether the interval holds 1.00×: no difference shown between the arms."""
        return self.low <= 1.0 <= self.high

    def half_width_share(self) -> float:
        """The interval's half-width as a share of the ratio (on the log scale, where it is symmetric)."""
        return (math.log(self.high) - math.log(self.low)) / 2 if self.low > 0 else math.nan


@dataclass(frozen=True)
class Advice:
    """What to change for one scenario and mode (explain.advice): a setting's wall, a CPU wall, or why nothing."""
    row: Any                    # the line's dimensions (its scenario, mode and load)
    wall: str                   # what held it: a setting's wall, or cpu
    setting: str = ""           # the setting in words ("" for a wall no setting moves)
    value: float = math.nan     # as the service ran it
    needed: float = math.nan    # what carries the asked rate
    asked_rps: float = math.nan  # the users' own ceiling: their number over the service time (the open model's rate)
    predicted_rps: float = math.nan  # the ceiling with the setting at `needed`: the next wall's, or the users'
    next_wall: str = ""         # which ceiling that is
    flag: str = ""              # what to try
    beyond: str = ""            # a limit the needed size meets, or the cost it carries
    shape: str = ""             # what no setting fixes: the code's shape, the CPU
    why_not: str = ""           # why nothing is advised (an invalid line, an unexplained wall, a figure missing)
    # a pinned frame's (wall "pinning", its frame the setting, its events the value): what held the carrier there
    # (measure.jfr: monitor, class-init, native), and the time its events pinned, in all and at most
    pin_kind: str = ""
    pinned_ms: float = math.nan
    longest_ms: float = math.nan
    not_helped: NotHelped | None = None  # a try of this flag at this point before, which did not help (no suggestion)
    enough: float = math.nan    # what carries the rate the next wall allows (`needed` where that wall is the users')


@dataclass(frozen=True)
class Analysis:
    context: Context                # the machine, the low-load service times, the rig constants
    verdicts: tuple[Verdict, ...]   # the measured rows, in the CSV's order: all any story or chart sees
    aggregates: tuple[Aggregate, ...]
    failed: tuple[Verdict, ...] = ()  # rows a tier died in: listed, never judged
    paired: tuple[PairedPoint, ...] = ()  # a paired run's points, each its paired ratio (explain.pairs); () else
    aa_floor: AAFloor | None = None  # the machine's A/A floor its paired answers are told against (core.aafloor)
    not_helped: tuple[NotHelped, ...] = ()  # the advice tried on the machine that did not help (core.triedbefore)

    @property
    def rig(self) -> rig_constants.Constants:
        return self.context.rig

    @property
    def lines(self) -> tuple[Verdict, ...]:
        """One verdict per scenario, its repetitions combined: what the scenario sections tell."""
        return tuple(a.line for a in self.aggregates)


# analysis.csv: every dimension of the row (from the registry), then what was measured and the verdict.
VERDICT_COLUMNS = (
    "throughput_rps", "throughput_ci95_rps", "noise_half_rps", "p99_ms", "error_rate", "service_time_ms",
    "service_time_source",
    "cpu_ms_per_req", "ceiling_concurrency_rps", "ceiling_threads_rps", "ceiling_pool_rps",
    "ceiling_cpu_rps", "ceiling_connections_rps", "ceiling_client_pool_rps", "ceiling_rps", "limit", "attained",
    "bottleneck", "valid", "flags",
    "ceilings_restated",
    "evidence",
    "without_generator_rps", "without_generator_low_rps", "without_generator_high_rps",
)
COLUMNS = (*dimensions.NAMES, *VERDICT_COLUMNS)


def cells(verdict: Verdict) -> list[str]:
    """One line of analysis.csv."""
    m, c = verdict.measured, verdict.ceilings
    values: dict[str, object] = {
        **dimensions.values(verdict.row),
        "throughput_rps": m.throughput_rps, "throughput_ci95_rps": m.throughput_ci95_rps,
        "noise_half_rps": verdict.noise_half_rps, "p99_ms": m.p99_ms,
        "error_rate": m.error_rate, "service_time_ms": verdict.service_time_ms,
        "service_time_source": verdict.service_time_source, "cpu_ms_per_req": verdict.cpu_ms_per_req,
        "ceiling_concurrency_rps": c.concurrency, "ceiling_threads_rps": c.threads, "ceiling_pool_rps": c.pool,
        "ceiling_cpu_rps": c.cpu, "ceiling_connections_rps": c.connections,
        "ceiling_client_pool_rps": c.client_pool, "ceiling_rps": verdict.ceiling_rps,
        "limit": verdict.limit,
        "attained": verdict.attained, "bottleneck": verdict.bottleneck, "valid": verdict.valid,
        "flags": ";".join(verdict.flags), "ceilings_restated": ";".join(c.restated), "evidence": verdict.evidence,
        "without_generator_rps": verdict.without_generator_rps,
        "without_generator_low_rps": verdict.without_generator_low_rps,
        "without_generator_high_rps": verdict.without_generator_high_rps,
    }
    return [format_value(values[column]) for column in COLUMNS]
