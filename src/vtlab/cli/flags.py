"""The command line's shared parts: the flag value parsers, the plan's flags (every command that builds a plan
takes them alike) and the plan they describe, and the usage error every command returns."""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from vtlab.core import cores, shapes
from vtlab.measure import profiler
from vtlab.plan import aacache, blockturns, calibration, checks, interleave, planner, presets, triedcache
from vtlab.rig import runtimes
from vtlab.targets import userservice

# --- flag value parsers: each names what it accepts, so argparse's error names the flag too ---

def choices_list(accepted: Sequence[str], single: bool = False) -> Callable[[str], object]:
    def parse(text: str) -> object:
        values = tuple(v.strip() for v in text.split(",") if v.strip())
        bad = [v for v in values if v not in accepted]
        if not values or bad or (single and len(values) > 1):
            raise argparse.ArgumentTypeError(
                f"{','.join(bad) or repr(text)} is not accepted; use "
                + (f"one of {', '.join(accepted)}" if single else f"a comma-separated list of {', '.join(accepted)}"))
        return values[0] if single else values
    return parse


def int_list(minimum: int, what: str) -> Callable[[str], tuple[int, ...]]:
    def parse(text: str) -> tuple[int, ...]:
        try:
            values = tuple(int(v) for v in text.split(",") if v.strip())
        except ValueError:
            values = ()
        if not values or any(v < minimum for v in values):
            raise argparse.ArgumentTypeError(
                f"{text!r} is not accepted; use a comma-separated list of {what} (integers >= {minimum})")
        return values
    return parse


def bounded_int(minimum: int, maximum: int, what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not accepted; use {what}, an integer from {minimum} to {maximum}")
        return value
    return parse


def profile_kinds(text: str) -> tuple[str, ...]:
    """--profiles: async-profiler's kinds, e.g. cpu,alloc."""
    try:
        return profiler.parse_kinds(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def jdk_list(text: str) -> tuple[int, ...]:
    """--jdk: majors vtlab provides; another major is checked against --java-home when the plan is built."""
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        values = ()
    if not values or any(v < min(runtimes.PROVIDED) for v in values):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not accepted; use a comma-separated list of {', '.join(map(str, runtimes.PROVIDED))} "
            "(or the major version of a --java-home runtime)")
    return values


def java_home(text: str) -> str:
    path = Path(text).expanduser()
    if runtimes.major(path) is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; use a Java runtime's home folder (one holding "
                                         "bin/java and a release file), e.g. /usr/lib/jvm/temurin-21-jdk-amd64")
    return str(path.resolve())


def jvm_options(text: str) -> tuple[str, ...]:
    try:
        words = tuple(shlex.split(text))
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted ({err}); use JVM options as shell words") from None
    if not all(word.startswith("-") for word in words):
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; use JVM options, each starting with '-' "
                                         "(e.g. -XX:+UseParallelGC)")
    return words


def core_map(text: str) -> dict[str, set[int]]:
    try:
        return cores.parse_override(text, cores.available())
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{err}; e.g. --cpus 'app=0-3 pg=4 stub=5 load=6-7'") from None


# The flags that shape the plan: each replaces the planner.Overrides field of the same name (its dest).
PLAN_FLAGS: list[tuple[str, str, Callable[[str], object], str]] = [
    ("--modes", "modes", choices_list(presets.ALL_MODES),
     "platform, virtual and/or webflux (the reactive twin; order-summary workload only)"),
    ("--pools", "pools", int_list(1, "HikariCP pool sizes"), "pool sizes, e.g. 50,100"),
    ("--conc", "concurrency", int_list(1, "closed-model concurrent users"), "e.g. 100,500,1000"),
    ("--rates", "rates", int_list(1, "open-model request rates per second"),
     "open model: target requests per second, e.g. 100,400"),
    ("--model", "model", choices_list(presets.MODELS, single=True), "closed (fixed users) or open (arrival rate)"),
    ("--reps", "reps", bounded_int(1, 100, "repetitions"), "repetitions per scenario"),
    ("--ramp", "ramp_s", bounded_int(1, 3600, "seconds"),
     "ramp-up seconds (a closed model's at least one request's wait, so that users, and platform threads they "
     "outnumber, start spread over it: docs/verdict.md, Waves)"),
    ("--warmup", "warmup_s", bounded_int(1, 3600, "seconds"),
     "unrecorded warm-up seconds: the most a warm-up that ends when settled may last, or exactly (fixed)"),
    ("--warmup-until", "warmup_until", choices_list(presets.WARMUP_ENDS, single=True),
     "settled (default: the warm-up ends once the successful rate and the service's CPU per request are steady "
     "over 20 s, at most --warmup; steady closed-model loads) or fixed (exactly --warmup seconds)"),
    ("--aot", "aot", choices_list(presets.AOT, single=True),
     "on (vtlab's service on JDK 25 starts from an AOT cache of classes and method profiles, trained once per build "
     "and command line: 10 s of the row's load) or off (default)"),
    ("--prewarm", "prewarm", choices_list(presets.PREWARM, single=True),
     "on (default: a staircase's fresh JVM runs 20 s at its top step's users — on platform threads at most its "
     "request threads — before its first step, unrecorded, so that every step is measured on compiled code) or off "
     "(the first step warms the JVM itself)"),
    ("--downstream-http", "downstream_http", choices_list(presets.DOWNSTREAM_HTTP, single=True),
     "what vtlab's service speaks to the stub: http1 (default: a connection per call in flight) or http2 (h2c: every "
     "call a stream of a few connections, so 10,000 waiting requests fit in a process's open files)"),
    ("--memory-probe", "memory_probe", choices_list(presets.MEMORY_PROBE, single=True),
     "on: at the end of each steady row, with every user waiting on a request none of which is counted, the "
     "service's live heap after a full collection (and its largest classes), RSS and threads' stacks (Native Memory "
     "Tracking on for the row); the report fits the memory per waiting request over the rows. off (default)"),
    ("--hold", "hold_s", bounded_int(2, 3600, "seconds"), "recorded hold seconds"),
    ("--conn-mode", "conn_modes", choices_list(presets.CONN_MODES), "released, held or both"),
    ("--path-mode", "path_modes", choices_list(presets.PATH_MODES),
     "normal, synchronized, synchronized-platform-http (the same monitor, the call's completions on platform "
     "threads: pins on JDK 21 without deadlocking), pinned-control (the JFR pinning positive control)"),
    ("--workload", "workloads", choices_list(presets.WORKLOADS),
     "order-summary (DB read + downstream), write (insert + downstream, every write checked), offload (the "
     "read + call on --executor), fanout (the read + two calls), sleep (pure waiting), cpu (pure computation)"),
    ("--executor", "executors", choices_list(presets.EXECUTORS),
     "offload workload: platform (a fixed pool of --offload-pool) or virtual (one per task)"),
    ("--offload-pool", "offload_pool", bounded_int(1, 10_000, "platform offload threads"),
     "offload workload: the fixed platform pool's size (default 50)"),
    ("--fanout", "fanouts", choices_list(presets.FANOUTS),
     "fanout workload: sequential (one call after the other) and/or structured (StructuredTaskScope, JDK 25 "
     "preview)"),
    ("--pool-impl", "pool_impls", choices_list(presets.POOL_IMPLS), "JDBC pool: hikari and/or agroal"),
    ("--server", "servers", choices_list(presets.SERVERS),
     "the service's embedded server: tomcat (default), jetty (Jetty 12) and/or netty (Reactor Netty under WebFlux, "
     "the same blocking controllers on a blocking executor); each one's request threads sized by --tomcat-threads "
     "alike"),
    ("--http-client", "http_clients", choices_list(presets.HTTP_CLIENTS),
     "the service's downstream client under RestClient: jdk (default: the JDK's HttpClient, no pool limit), apache "
     "(HttpClient 5: 5 connections per route), reactor (Reactor Netty: 2 × max(CPUs, 8), twice that many waiting) "
     "and/or jetty (64 per destination, 1,024 queued), each with its own default pool"),
    ("--client-pool", "client_pools", int_list(1, "connections per route"),
     "size the pooled clients' (apache, reactor, jetty) connections per route instead of their defaults, e.g. "
     "200,1000"),
    ("--context", "contexts", choices_list(presets.CONTEXTS),
     "per-request context: none, threadlocal and/or scopedvalue"),
    ("--context-kb", "context_kb", bounded_int(1, 16_384, "kilobytes"), "size of each request's context (default 64)"),
    ("--db-latency", "db_latencies", int_list(0, "milliseconds per direction"),
     "latency added each way between service and PostgreSQL (Toxiproxy), e.g. 0,20"),
    ("--db-jitter", "db_jitter_ms", bounded_int(0, 10_000, "milliseconds"),
     "± jitter around --db-latency (at most the latency)"),
    ("--downstream-latency", "downstream_latencies", int_list(0, "milliseconds per direction"),
     "latency added each way between service and stub (Toxiproxy)"),
    ("--downstream-jitter", "downstream_jitter_ms", bounded_int(0, 10_000, "milliseconds"),
     "± jitter around --downstream-latency (at most the latency)"),
    ("--sleep-ms", "sleep_ms", bounded_int(0, 60_000, "milliseconds"), "sleep workload: how long each request sleeps"),
    ("--cpu-work", "cpu_work", bounded_int(1, 1_000_000, "SHA-256 rounds"), "cpu workload: SHA-256 rounds per request"),
    ("--stub-delay", "stub_delay_ms", bounded_int(0, 60_000, "milliseconds"), "downstream delay (ms)"),
    ("--stub-jitter", "stub_jitter_ms", bounded_int(0, 60_000, "milliseconds"), "uniform extra delay (ms)"),
    ("--tomcat-threads", "tomcat_max_threads", bounded_int(1, 10_000, "Tomcat max threads"),
     "Tomcat max threads (default 200)"),
    ("--shape", "shapes", choices_list(shapes.SHAPES),
     "the load during the hold: steady (ramp and hold), spike (a step to --spike-multiple × the load for "
     "--spike-s and back), steps (a staircase of --steps up to the load), soak (a long steady hold)"),
    ("--spike-multiple", "spike_multiple", bounded_int(2, 100, "times the base load"),
     "spike shape: the peak load as a multiple of the row's (default 3)"),
    ("--spike-s", "spike_s", bounded_int(2, 3600, "seconds"), "spike shape: how long the peak lasts (default 10)"),
    ("--steps", "step_count", bounded_int(2, 50, "steps"), "steps shape: how many steps up to the load (default 4)"),
    ("--jdk", "jdks", jdk_list, "the service's Java runtime: 21 and/or 25 (vtlab installs 21 into .tools/; "
     "pinned-control, scopedvalue and structured need 25)"),
    ("--java-home", "java_home", java_home, "another Java runtime for the service; its major version is its "
     "--jdk value"),
    ("--jvm-opts", "jvm_opts", jvm_options, "the service's JVM options after vtlab's own heap and JFR settings, e.g. "
     "'-XX:+UseParallelGC'; give it again for another set (--jvm-opts '' for none): each set is a dimension of the "
     "rows, recorded in the jvm_opts column"),
    ("--runners", "runners", bounded_int(1, 64, "k6 processes"), "k6 processes sharing each row's load on k6's "
     "execution segments, their requests merged into the row's one series (default 1; on Kubernetes the TestRun's "
     "parallelism)"),
]


# Flags given more than once, each time another value of their dimension (a JVM option set holds commas and spaces).
REPEATED = ("jvm_opts",)


def add_plan_flags(command: argparse.ArgumentParser, renamed: dict[str, str] | None = None,
                   staircases: bool = True, paired: bool = True) -> None:
    """The plan's flags; `renamed`: flags a command spells otherwise (k8s: --context is kubectl's). `staircases`:
    whether the command runs rows as steps of one warm JVM (a cluster starts a pod per row: never); `paired`: whether
    it measures a paired plan (plan.interleave): not a cluster's, nor a capacity search, whose points are chosen as it
    goes (its own --paired takes the modes in turn)."""
    profiles = presets.profiles()
    command.add_argument("--profile", choices=list(profiles),
                         help="preset matrix (default quick; service with --service or --url): "
                              + "; ".join(f"{n}: {p.summary}" for n, p in profiles.items()))
    for flag, dest, parse, words in PLAN_FLAGS:
        command.add_argument((renamed or {}).get(flag, flag), dest=dest, type=parse, help=words,
                             action="append" if dest in REPEATED else "store")
    if not staircases:
        return
    command.add_argument("--jvm-per-row", action="store_true",
                         help="a fresh service JVM for every row (each warming up anew); by default vtlab's own "
                              "service and a --service jar run the rows that differ only in users as the steps of "
                              "one warm JVM, each settling before its hold")
    if not paired:
        return
    command.add_argument("--paired", action="store_true",
                         help="measure the thread modes as one comparison: both modes' JVMs up for the run, each "
                              "point measured in --blocks short blocks taken in turn in a randomized balanced order "
                              "(ABBA/BAAB), answered by the paired ratio of adjacent blocks (docs/paired.md)")
    command.add_argument("--sequential", action="store_true",
                         help="measure each thread mode in its own stretch of time, one JVM after the other, where "
                              "the profile would pair them (the default one does: docs/paired.md)")
    command.add_argument("--blocks", type=bounded_int(2, 50, "blocks per arm"),
                         help=f"with --paired or --aa: each arm's blocks at each point (default "
                              f"{interleave.DEFAULT_BLOCKS}); each block is a row, its rep")
    command.add_argument("--aa", choices=presets.PAIRED_MODES,
                         help="an A/A: the paired design with one mode against itself on two JVMs, to show what "
                              "'no difference' measures on this machine today")


def plan_of(args: argparse.Namespace, target: userservice.Target | None = None,
            calibrated: bool = False, pair_seed: int | None = None, on_this_machine: bool = False) -> planner.Plan:
    """The plan the profile and flags describe; ValueError names a flag combination that cannot run. For a user's
    service (`target`) every row calls it: the service workload, whatever the profile's. `calibrated`: this machine's
    cached calibration (if any) sizes a sized profile's points on vtlab's own service (plan.sizing); read here, never
    measured: without one the profile's nominal points are planned. `pair_seed`: a paired plan's order, where a resumed
    run recorded it (else drawn anew). `on_this_machine`: a run on vtlab's own PostgreSQL, whose connections the
    service's pools must fit (plan.checks.connections)."""
    given = {dest: getattr(args, dest) for _, dest, _, _ in PLAN_FLAGS}
    given.update({dest: tuple(given[dest]) for dest in REPEATED if given[dest] is not None})
    if target is not None:
        given["workloads"] = (presets.SERVICE_WORKLOAD,)
        if not target.uses_stub:
            given["stub_delay_ms"] = 0  # no downstream of vtlab's: no designed wait in the service time
    given["jvm_per_row"] = getattr(args, "jvm_per_row", True) or None  # no such flag: a JVM (a pod) per row
    if getattr(args, "paired", False) and getattr(args, "sequential", False):
        raise ValueError("--paired with --sequential: give one of them (the paired design, or each mode in its own "
                         "stretch of time)")
    chosen = True if getattr(args, "paired", False) else False if getattr(args, "sequential", False) else None
    # only a command with both flags (vtlab run) lets the profile pair by default: a cluster's run, a capacity search
    # a --url service or a fixed --port cannot have a second JVM up beside it: one mode after the other (the port's
    # said in the first line: the service profile would have paired)
    pairs = hasattr(args, "sequential") and (target is None or target.started_by_vtlab)
    fixed_port = (f"--port {target.port}: both modes' JVMs cannot listen on one port"
                  if target is not None and target.port else "")
    paired = {"paired": chosen, "profile_pairs": pairs, "unpairable": fixed_port,
              "blocks": getattr(args, "blocks", None),
              "aa": getattr(args, "aa", None), "pair_seed": pair_seed,
              "versus": userservice.jar_names(target.jar, target.vs) if target is not None and target.vs and target.jar
              else None}
    home = given.get("java_home")
    profile = args.profile or ("quick" if target is None else "service")
    java_home_jdk = runtimes.major(Path(home)) if home else None
    measured = calibration.load(len(cores.available())) if calibrated and target is None else None
    plan = planner.build(profile, planner.Overrides(**given, **paired, java_home_jdk=java_home_jdk), measured)
    if on_this_machine and target is None:  # vtlab's own service on vtlab's PostgreSQL: its pools must fit it
        checks.connections(plan.rows, together=plan.arms is not None)
    if not on_this_machine:
        return plan
    count = len(cores.available())  # what this machine remembers: its A/As' floor, and the advice that did not help
    return dataclasses.replace(plan, aa_floor=aacache.load(count) if plan.arms is not None else None,
                               not_helped=triedcache.load(count) if target is None else ())


def usage_error(message: str) -> int:
    """A flag, or a combination of them, that cannot run: said as argparse says its own, with its exit code."""
    print(f"vtlab: error: {message}", file=sys.stderr)
    return 2


def bound_and_design(plan: planner.Plan) -> tuple[float, str]:
    """The run's first line's bound, in minutes (its rows at their longest: blocks in turns, or k6 runs with the
    run's first row's extra warm-up), and how its modes are measured: paired (its blocks and holds), or each in its
    own stretch of time because a flag asked for what cannot be paired ("" where the profile never pairs)."""
    from vtlab.measure import loop

    seconds = (blockturns.bound_s(plan) if blockturns.fits(plan) else
               len(plan.rows) * planner.estimated_row_s(plan) + loop.warmup_for(plan, 0) - plan.warmup_s)
    blocks = max(row.rep for row in plan.rows)
    both = ("two JVMs of one configuration up (an A/A)" if plan.arms is not None and plan.arms.aa else
            "both jars' JVMs up" if plan.arms is not None and plan.arms.versus else "both modes' JVMs up")
    design = (f"{both}, {blocks} blocks of {plan.hold_s} s each at every point, taken in turn"
              if plan.arms is not None else
              f"each mode in its own stretch of time ({plan.sequential})" if plan.sequential else "")
    return seconds / 60, design
