"""The plan: a profile and the command line's flags expanded into the rows a run measures, and checked.

A flag given on the command line replaces that dimension in every block of the profile, so `--conc 500` keeps
the profile's modes, pools and connection modes but measures only at 500. A combination that cannot run is
refused here, naming the flags, before anything starts."""

from __future__ import annotations

import math
import random
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Protocol, TypeVar

from vtlab.core import constants as rig_constants
from vtlab.core import dimensions, shapes
from vtlab.core.aafloor import Floor as AAFloor
from vtlab.core.arms import Arms, arm_of
from vtlab.core.dimensions import Row
from vtlab.core.triedbefore import NotHelped
from vtlab.plan import checks, expand, interleave, sizing
from vtlab.plan.calibration import Calibration
from vtlab.plan.presets import JDKS, SERVICE_WORKLOAD, Block, profiles

@dataclass(frozen=True)
class Overrides:
    """Dimensions given on the command line; None keeps the profile's."""
    modes: tuple[str, ...] | None = None
    pools: tuple[int, ...] | None = None
    concurrency: tuple[int, ...] | None = None
    conn_modes: tuple[str, ...] | None = None
    path_modes: tuple[str, ...] | None = None
    rates: tuple[int, ...] | None = None
    reps: int | None = None
    ramp_s: int | None = None
    warmup_s: int | None = None
    hold_s: int | None = None
    stub_delay_ms: int | None = None
    stub_jitter_ms: int | None = None
    tomcat_max_threads: int | None = None
    model: str | None = None
    workloads: tuple[str, ...] | None = None
    sleep_ms: int | None = None
    cpu_work: int | None = None
    executors: tuple[str, ...] | None = None
    offload_pool: int | None = None
    fanouts: tuple[str, ...] | None = None
    pool_impls: tuple[str, ...] | None = None
    http_clients: tuple[str, ...] | None = None
    servers: tuple[str, ...] | None = None
    client_pools: tuple[int, ...] | None = None
    contexts: tuple[str, ...] | None = None
    context_kb: int | None = None
    db_latencies: tuple[int, ...] | None = None
    db_jitter_ms: int | None = None
    downstream_latencies: tuple[int, ...] | None = None
    downstream_jitter_ms: int | None = None
    shapes: tuple[str, ...] | None = None
    spike_multiple: float | None = None
    spike_s: int | None = None
    step_count: int | None = None
    jdks: tuple[int, ...] | None = None
    java_home: str | None = None  # another runtime; its major version (from its release file) is its jdk value
    java_home_jdk: int | None = None
    jvm_opts: tuple[tuple[str, ...], ...] | None = None  # one set of options per --jvm-opts: a dimension of the rows
    runners: int | None = None
    warmup_until: str | None = None
    aot: str | None = None
    memory_probe: str | None = None
    downstream_http: str | None = None
    jvm_per_row: bool | None = None  # --jvm-per-row: a fresh service JVM for every row, never steps on a warm one
    prewarm: str | None = None
    paired: bool | None = None  # --paired: both modes' JVMs up, measured in interleaved blocks (plan.interleave)
    blocks: int | None = None   # --blocks: each arm's blocks at each point of a paired plan
    aa: str | None = None       # --aa MODE: a paired plan of one mode against itself
    versus: tuple[str, str] | None = None  # --service A --vs B: one mode on both jars (their names), paired
    pair_seed: int | None = None  # the blocks' order's seed (None: a random one, recorded)
    profile_pairs: bool = False  # `vtlab run`: a profile that pairs by default does, unless a flag chose otherwise
    unpairable: str = ""  # a target's flag no paired plan can take, and why (a fixed --port): one mode after the other


def row_options(row: Row) -> tuple[str, ...]:
    """The row's JVM options as the words the JVM is given (the jvm_opts dimension keeps them as shell words)."""
    return tuple(shlex.split(row.jvm_opts))


# What the memory probe (measure.memprobe) reads the platform threads' stacks with.
NATIVE_MEMORY_TRACKING = "-XX:NativeMemoryTracking=summary"


class Running(Protocol):
    def alive(self) -> bool: ...


Alive = TypeVar("Alive", bound=Running)  # a target's service JVM: whatever it is, it is running or not


@dataclass(frozen=True)
class Plan:
    profile: str
    rows: tuple[Row, ...]
    ramp_s: int
    warmup_s: int
    hold_s: int
    stub_delay_ms: int
    stub_jitter_ms: int
    model: str
    overrides: dict = field(default_factory=dict)
    cooldown_s: int = 3
    spike_multiple: float = shapes.Shape.multiple
    spike_s: int = shapes.Shape.spike_s
    step_count: int = shapes.Shape.steps
    java_homes: dict = field(default_factory=dict)  # jdk value -> a --java-home for it (else vtlab's own)
    jvm_option_sets: tuple[tuple[str, ...], ...] = ((),)  # the rows' JVM option sets (the jvm_opts dimension), in order
    runners: int = 1  # k6 processes sharing each row's load (locally, or the k6-operator's parallelism)
    warmup_until: str = "settled"  # presets.WARMUP_ENDS: settled (warmup_s is the bound) or fixed
    aot: str = "off"  # presets.AOT: the service's JDK 25 AOT cache (vtlab.rig.aot), trained once per command line
    memory_probe: str = "off"  # presets.MEMORY_PROBE: each row's memory with every user waiting (measure.memprobe)
    downstream_http: str = "http1"  # presets.DOWNSTREAM_HTTP: vtlab's service to the stub, every row alike
    jvm_per_row: bool = False  # a fresh service JVM for every row; else rows differing only in load are its steps
    prewarm: str = "on"  # presets.PREWARM: a staircase's fresh JVM run at its top rate before its first step
    # A search's plan (vtlab capacity): its rows chosen as it goes, any row may have a next step, each a step on its
    # family's warm JVM (a fixed warm-up's too) sized for the most users it may reach. 0: its rows are all known.
    search_peak_users: int = 0
    sizing: dict = field(default_factory=dict)  # what the calibration sized (plan.sizing.describe); {}: nothing
    # A paired plan's arms (plan.interleave): both JVMs up, the rows' reps its blocks, in its seed's order; None: not.
    arms: Arms | None = None
    pair_seed: int = 0
    in_turn: bool = False  # a search whose modes take turns point by point (capacity --paired): all JVMs kept up
    sequential: str = ""  # why a profile that pairs by default measures each mode in its own stretch of time here
    aa_floor: AAFloor | None = None  # the machine's A/A floor as planned (plan.aacache)
    not_helped: tuple[NotHelped, ...] = ()  # the advice its tries found no help, as planned (plan.triedcache)

    @property
    def together(self) -> bool:
        """Whether each arm's (mode's) JVM stays up while the other's rows run: a paired plan, or a search in turn."""
        return self.arms is not None or self.in_turn

    def service_options(self, row: Row) -> tuple[str, ...]:
        """The service's JVM options beyond vtlab's own: the row's, and Native Memory Tracking for the probe (a few
        percent of the service's CPU: only where asked for)."""
        return (*row_options(row), *((NATIVE_MEMORY_TRACKING,) if self.memory_probe == "on" else ()))

    def uses_aot(self, row: Row) -> bool:
        """JDK 25's AOT cache keeps method profiles (JEP 515); JDK 21 has none of it."""
        return self.aot == "on" and row.jdk >= 25

    def settles(self, row: Row) -> bool:
        """Whether the row's warm-up ends when it has settled (measure.settle), not after warmup_s: a steady load
        of users only. A shaped hold and the open model's hold scenario begin at times fixed before k6 starts."""
        return self.warmup_until == "settled" and row.load_model == "closed" and row.shape in ("steady", "soak")

    def steps_on_one_jvm(self, row: Row) -> bool:
        """Whether the row is a step of a staircase on one warm service JVM: the rows that differ from it only in
        users are measured on the JVM the first of them started, each settling anew (measure.settle) before its
        hold; a fresh JVM per rep keeps the between-run noise. Only a warm-up that settles can tell when a step is
        steady; a fixed one would hold each step for the first row's warm-up again."""
        return not self.jvm_per_row and (self.settles(row) or self.search_peak_users > 0 or self.arms is not None)

    def next_step_follows(self, position: int) -> bool:
        """Whether the row after the one at `position` is the next step on the same JVM: the JVM is then kept (a
        search's, until its family changes: targets start a fresh JVM for another family)."""
        if self.search_peak_users > 0:
            return not self.jvm_per_row
        if position + 1 >= len(self.rows):
            return False
        row, following = self.rows[position], self.rows[position + 1]
        if self.arms is not None:  # the other arm's blocks come between: kept while a block of its family is to come
            return self.steps_on_one_jvm(row) and any(self.family(later) == self.family(row)
                                                      for later in self.rows[position + 1:])
        return (self.steps_on_one_jvm(row) and self.steps_on_one_jvm(following)
                and self.family(following) == self.family(row))

    def arm(self, row: Row) -> str:
        """The row's arm, "a" or "b", where the plan keeps two JVMs up together (core.arms; a search in turn: platform
        a, virtual b); "" where it does not."""
        if self.arms is not None:
            return arm_of(row, self.arms)
        return ("b" if row.thread_mode == "virtual" else "a") if self.in_turn else ""

    def kept(self, jvms: Mapping[tuple[str, ...], Alive], row: Row, stepped: bool) -> tuple[Alive | None, list[Alive]]:
        """Of the service JVMs a target keeps up (`jvms`, by family): the one the row steps on, where it may (its
        staircase's, still running; None where a fresh one starts), and the ones to stop first: its family's, and
        every other unless the plan keeps its arms' JVMs up together."""
        family = self.family(row)
        found = jvms.get(family)
        if stepped and found is not None and found.alive():
            return found, []
        return None, [jvm for key, jvm in jvms.items() if key == family or not self.together]

    def partner(self, position: int) -> int | None:
        """A paired plan's row's partner: the position of the other arm's block of its pair (None: not paired)."""
        if self.arms is None or self.search_peak_users > 0:  # a search's positions are its points', not its rows'
            return None
        return interleave.partner(self.rows, self.arms, position)

    def ramp_for(self, row: Row, warm: bool) -> int:
        """k6's ramp for a row: the plan's, or at most the rig's step_ramp_s on a JVM the steps before warmed (only
        the users change there; core.constants says why); never shorter than spread_ramp_s."""
        usual = min(self.ramp_s, rig_constants.CURRENT.step_ramp_s) if warm else self.ramp_s
        return max(usual, self.spread_ramp_s(row))

    def spread_ramp_s(self, row: Row) -> int:
        """The shortest ramp that spreads what serves a closed model's requests across one whole request's wait: the
        users, or where they outnumber a platform JVM's request threads, the users that first take the threads (users
        x wait / threads). Every k6 run starts from an idle JVM, and a user — or a saturated thread, which takes its
        next queued request the moment it is done — keeps the phase its first request gave it; the stub's jitter
        moves it ~29 ms a 1 s cycle, far too little to spread it in a row. 1,000 users over 2 s filled 200 threads in
        0.4 s: their completions, folded on the 1.05 s cycle, left a third of it nearly empty (def10's 1,000-user
        platform step), and per-second counts beat against the cycle every ~20 s (177-200 req/s) — the step
        too-noisy in four default runs of five. Users on an 8 s downstream (the frontier) need 8 s. 0 where the wait
        is not the rig's to know (a user's service) or nothing waits (cpu)."""
        wait_s, threads = self.wait_s(row), row.tomcat_max_threads
        served = threads if row.thread_mode == "platform" and 0 < threads < row.concurrency else row.concurrency
        if row.load_model != "closed" or wait_s <= 0 or served <= 0:
            return 0
        return math.ceil(row.concurrency * wait_s / served)

    def wait_s(self, row: Row) -> float:
        """What one request of the row waits on by design, in seconds: the stub's mean delay (its jitter's half) and
        any latency added each way, the sleep, or nothing (cpu); 0 for a user's service, whose wait is its own."""
        call_ms = row.stub_delay_ms + self.stub_jitter_ms / 2 + 2 * row.downstream_latency_ms
        return {"sleep": row.sleep_ms, "cpu": 0, SERVICE_WORKLOAD: 0}.get(row.workload, call_ms) / 1000

    def family(self, row: Row) -> tuple[str, ...]:
        """What the row's service JVM is started for (jvm_family); a search's repeat of a point is a step of the
        same JVM as the point (its rep aside): the search asks again for a figure too close to call, not for the
        between-run noise of a fresh JVM and its warm-up."""
        return jvm_family(row, ("rep",) if self.search_peak_users > 0 or self.arms is not None else ())

    def family_peak_users(self, row: Row) -> int:
        """The most users any step of the row's staircase sees: what its JVM's connections and heap are sized for
        (the row's own peak where it runs on a JVM of its own)."""
        if not self.steps_on_one_jvm(row):
            return self.peak_users(row)
        if self.search_peak_users > 0:
            return max(self.search_peak_users, self.peak_users(row))
        family = self.family(row)
        return max(self.peak_users(other) for other in self.rows if self.family(other) == family)

    def shape(self, row: Row) -> shapes.Shape:
        """The row's load shape with the plan's settings for it."""
        return shapes.Shape(row.shape, self.spike_multiple, self.spike_s, self.step_count)

    def users(self, row: Row) -> int:
        """k6's users for a row: an open-model spike needs users for its peak rate, not only for the base one."""
        shape = self.shape(row)
        return round(row.concurrency * shape.multiple) if row.load_model == "open" and row.shape == "spike" \
            else row.concurrency

    def peak_users(self, row: Row) -> int:
        """The most users the service sees at once in a row: a closed-model spike's peak too (k6 adds users for it),
        what its connections and heap are sized for."""
        if row.load_model == "closed" and row.shape == "spike":
            return round(row.concurrency * self.shape(row).multiple)
        return self.users(row)

    def describe(self) -> dict:
        floor = {} if self.aa_floor is None else {"aa_floor": self.aa_floor.describe()}
        paired = {**self.arms.describe(), "blocks": max(row.rep for row in self.rows), "seed": self.pair_seed,
                  **floor} if self.arms is not None else {}
        return {"profile": self.profile, "ramp_s": self.ramp_s, "warmup_s": self.warmup_s,
                "hold_s": self.hold_s, "cooldown_s": self.cooldown_s, "stub_delay_ms": self.stub_delay_ms,
                "stub_jitter_ms": self.stub_jitter_ms, "model": self.model, "spike_multiple": self.spike_multiple,
                "spike_s": self.spike_s, "step_count": self.step_count,
                "java_homes": {str(k): v for k, v in self.java_homes.items()},
                "jvm_opts": [list(options) for options in self.jvm_option_sets],
                "runners": self.runners, "warmup_until": self.warmup_until, "aot": self.aot,
                "memory_probe": self.memory_probe, "downstream_http": self.downstream_http,
                "jvm_per_row": self.jvm_per_row, "prewarm": self.prewarm, "overrides": self.overrides,
                "rows": [dimensions.values(row) for row in self.rows],
                **({"sizing": self.sizing} if self.sizing else {}), **({"paired": paired} if paired else {}),
                **({"sequential": self.sequential} if self.sequential else {}),
                **({"not_helped": [tried.describe() for tried in self.not_helped]} if self.not_helped else {})}

    def sized_words(self) -> str:
        """What the calibration sized, as the run's first line says it ("" where the plan's points are not sized)."""
        return sizing.said(self.profile, self.overrides, self.model, self.sizing)


def build(profile_name: str, overrides: Overrides, measured: Calibration | None = None) -> Plan:
    """The plan of a profile and the flags; `measured`: this machine's calibration, which sizes a sized profile's
    top point (plan.sizing) unless the user gave the users; None keeps the profile's nominal points."""
    profile = profiles()[profile_name]
    pairing, sequential = interleave.by_profile(profile.pair_blocks, profile.pair_hold_s, overrides.__dict__)
    overrides = replace(overrides, **pairing)
    arms = interleave.arms_asked(overrides.__dict__)
    if arms is not None:  # its blocks are the rows' reps; an A/A or a before/after measures its one mode
        overrides = replace(overrides, modes=(arms.a,) if arms.same_mode else overrides.modes,
                            reps=overrides.blocks or interleave.DEFAULT_BLOCKS)
    given = {key: value for key, value in overrides.__dict__.items() if value is not None}
    # Scalars: the flag where given, else the profile's (a flag of 0 counts: --stub-delay 0 is a choice).
    setting = {name: given.get(name, getattr(profile, name)) for name in SCALARS}
    setting["jvm_opts"] = tuple(dict.fromkeys(given.get("jvm_opts", (profile.jvm_opts,))))
    if setting["model"] == "open" and not overrides.rates and not any(b.rates for b in profile.blocks):
        raise ValueError("--model open needs --rates (requests per second, e.g. --rates 100,400)")
    java_homes = _java_homes(overrides)
    if overrides.java_home_jdk is not None and overrides.jdks is None:
        overrides = replace(overrides, jdks=(overrides.java_home_jdk,))  # --java-home alone: rows on that runtime
    blocks = [_apply(block, overrides) for block in profile.blocks]
    sized = measured if measured is not None and sizing.applies(profile_name, given, setting["model"]) else None
    moved: tuple[sizing.Moved, ...] = ()
    if sized is not None:
        blocks, moved = sizing.size(blocks, sized, setting["stub_delay_ms"], setting["tomcat_max_threads"])
    for block in blocks:
        _check_jitter("--db-latency", block.db_latencies, "--db-jitter", setting["db_jitter_ms"])
        _check_jitter("--downstream-latency", block.downstream_latencies, "--downstream-jitter",
                      setting["downstream_jitter_ms"])
    # Reps are the outer loop so slow drift (thermal, page cache) spreads over every scenario.
    candidates = (expand.shaped(row, setting) for rep in range(1, setting["reps"] + 1) for block in blocks
                  for row in expand.rows(block, rep, setting))
    rows = tuple(dict.fromkeys(row for row in candidates if row is not None))  # first occurrence, in order
    if not rows:
        raise ValueError("the plan has no rows: --modes webflux measures only --workload order-summary")
    checks.check(rows, setting, java_homes, overrides.client_pools, setting["downstream_http"])
    jvm_per_row = bool(given.get("jvm_per_row"))
    if not jvm_per_row:
        rows = staircases(rows, lambda row: setting["warmup_until"] == "settled" and row.load_model == "closed"
                          and row.shape in ("steady", "soak"))
    seed = overrides.pair_seed if overrides.pair_seed is not None else random.SystemRandom().randrange(2 ** 31)
    if arms is not None:
        rows = interleave.arranged(rows, arms, seed)
    return Plan(profile_name, rows, setting["ramp_s"], setting["warmup_s"], setting["hold_s"],
                setting["stub_delay_ms"], setting["stub_jitter_ms"], setting["model"], given, setting["cooldown_s"],
                setting["spike_multiple"], setting["spike_s"], setting["step_count"], java_homes,
                tuple(setting["jvm_opts"]), setting["runners"], setting["warmup_until"],
                setting["aot"], setting["memory_probe"], setting["downstream_http"], jvm_per_row,
                sizing=sizing.describe(sized, moved) if sized is not None else {}, prewarm=setting["prewarm"],
                arms=arms, pair_seed=seed if arms is not None else 0, sequential=sequential)


# What vtlab's blocking service switches at run time (targets.servicejvm.run_as): rows differing only in it are
# steps of one JVM too. The reactive twin has no such switch (its connection is R2DBC's).
SWITCHED_AT_RUN_TIME = ("conn_mode",)


def jvm_family(row: Row, also_aside: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What a service JVM is started for: every dimension but the load (users, rate), what the service switches at
    run time, and `also_aside`. Rows of one family run as the steps of one JVM's staircase (Plan.steps_on_one_jvm),
    a step never after a larger load (staircases)."""
    switched = SWITCHED_AT_RUN_TIME if row.thread_mode != "webflux" else ()
    aside = ("concurrency", "target_rps", *switched, *also_aside)
    return dimensions.key(row, tuple(name for name in dimensions.RESUME_KEY if name not in aside))


def staircases(rows: tuple[Row, ...], stepped: Callable[[Row], bool]) -> tuple[Row, ...]:
    """The rows in the order a staircase measures them: each family's `stepped` rows together, where its first row
    was, in rising load (a step never follows a larger one: what a larger load left behind — threads, heap,
    connections — would carry into it); every other row where it was."""
    order: dict[tuple[str, ...], list[Row]] = {}
    for row in rows:
        order.setdefault(jvm_family(row) if stepped(row) else ("row", *dimensions.key(row)), []).append(row)
    return tuple(row for family in order.values()
                 for row in sorted(family, key=lambda row: (row.concurrency, row.target_rps)))


def _java_homes(overrides: Overrides) -> dict[int, str]:
    if overrides.java_home is None:
        return {}
    if overrides.java_home_jdk is None:
        raise ValueError(f"--java-home {overrides.java_home}: not a Java runtime (no bin/java and release file)")
    if overrides.java_home_jdk < min(JDKS):
        raise ValueError(f"--java-home {overrides.java_home}: JDK {overrides.java_home_jdk}; the service needs JDK "
                         f"{min(JDKS)} or newer")
    if overrides.jdks is not None and overrides.java_home_jdk not in overrides.jdks:
        raise ValueError(f"--java-home {overrides.java_home} is JDK {overrides.java_home_jdk}, which --jdk "
                         f"{','.join(map(str, overrides.jdks))} does not measure; add {overrides.java_home_jdk} "
                         "to --jdk")
    return {overrides.java_home_jdk: overrides.java_home}


# The profile's scalar settings a flag of the same name replaces.
SCALARS = ("model", "reps", "ramp_s", "warmup_s", "hold_s", "cooldown_s", "stub_delay_ms", "stub_jitter_ms",
           "tomcat_max_threads", "sleep_ms", "cpu_work", "offload_pool", "context_kb", "db_jitter_ms",
           "downstream_jitter_ms", "spike_multiple", "spike_s", "step_count", "runners", "warmup_until",
           "aot", "memory_probe", "downstream_http", "prewarm")


def _check_jitter(latency_flag: str, latencies: tuple[int, ...], jitter_flag: str, jitter: int) -> None:
    # Toxiproxy draws each delay from latency ± jitter: a jitter above the latency would ask for negative delays.
    if any(0 < latency < jitter for latency in latencies) or (jitter and not any(latencies)):
        raise ValueError(f"{jitter_flag} {jitter} needs a {latency_flag} of at least {jitter} ms")


def _apply(block: Block, overrides: Overrides) -> Block:
    changes = {name: getattr(overrides, name) for name in BLOCK_FIELDS if getattr(overrides, name) is not None}
    if overrides.tomcat_max_threads is not None:
        changes["tomcat_threads"] = (overrides.tomcat_max_threads,)
    return replace(block, **changes)


# Block dimensions a flag of the same name replaces in every block.
BLOCK_FIELDS = tuple(f.name for f in fields(Block) if f.name in {o.name for o in fields(Overrides)})


def estimated_row_s(plan: Plan) -> float:
    """A row at its longest: a warm-up that settles ends by warmup_s, the hold's last requests within the grace after
    its cool-down (measure.settle). JVM start + health check and stop + JFR dump take ~15 s on 2 shared cores."""
    return plan.ramp_s + plan.warmup_s + plan.hold_s + plan.cooldown_s + 15
