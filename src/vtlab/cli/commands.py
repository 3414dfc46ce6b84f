"""The `vtlab` command: one function per subcommand."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from vtlab.core import cores, dimensions, shapes
from vtlab.rig import doctor, ownership, postgres, prereqs, procs, runtimes
from vtlab.cli import k8sflags, targetflags
from vtlab.targets import k8srun, userservice
from vtlab.plan import expansion
from vtlab.results import table
from vtlab.core.settings import APP_HOST, PG_HOST, RESULTS

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


# The flags that shape the plan: each replaces the expansion.Overrides field of the same name (its dest).
PLAN_FLAGS: list[tuple[str, str, Callable[[str], object], str]] = [
    ("--modes", "modes", choices_list(expansion.ALL_MODES),
     "platform, virtual and/or webflux (the reactive twin; order-summary workload only)"),
    ("--pools", "pools", int_list(1, "HikariCP pool sizes"), "pool sizes, e.g. 50,100"),
    ("--conc", "concurrency", int_list(1, "closed-model concurrent users"), "e.g. 100,500,1000"),
    ("--rates", "rates", int_list(1, "open-model request rates per second"),
     "open model: target requests per second, e.g. 100,400"),
    ("--model", "model", choices_list(expansion.MODELS, single=True), "closed (fixed users) or open (arrival rate)"),
    ("--reps", "reps", bounded_int(1, 100, "repetitions"), "repetitions per scenario"),
    ("--ramp", "ramp_s", bounded_int(1, 3600, "seconds"), "ramp-up seconds"),
    ("--warmup", "warmup_s", bounded_int(1, 3600, "seconds"), "unrecorded warm-up seconds"),
    ("--hold", "hold_s", bounded_int(2, 3600, "seconds"), "recorded hold seconds"),
    ("--conn-mode", "conn_modes", choices_list(expansion.CONN_MODES), "released, held or both"),
    ("--path-mode", "path_modes", choices_list(expansion.PATH_MODES),
     "normal, synchronized, synchronized-platform-http (the same monitor, the call's completions on platform "
     "threads: pins on JDK 21 without deadlocking), pinned-control (the JFR pinning positive control)"),
    ("--workload", "workloads", choices_list(expansion.WORKLOADS),
     "order-summary (DB read + downstream), write (insert + downstream, every write checked), offload (the "
     "read + call on --executor), fanout (the read + two calls), sleep (pure waiting), cpu (pure computation)"),
    ("--executor", "executors", choices_list(expansion.EXECUTORS),
     "offload workload: platform (a fixed pool of --offload-pool) or virtual (one per task)"),
    ("--offload-pool", "offload_pool", bounded_int(1, 10_000, "platform offload threads"),
     "offload workload: the fixed platform pool's size (default 50)"),
    ("--fanout", "fanouts", choices_list(expansion.FANOUTS),
     "fanout workload: sequential (one call after the other) and/or structured (StructuredTaskScope, JDK 25 "
     "preview)"),
    ("--pool-impl", "pool_impls", choices_list(expansion.POOL_IMPLS), "JDBC pool: hikari and/or agroal"),
    ("--context", "contexts", choices_list(expansion.CONTEXTS),
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
    ("--jvm-opts", "jvm_opts", jvm_options, "the service's JVM options, every row alike, after vtlab's own heap and "
     "JFR settings, e.g. '-XX:+UseParallelGC' (recorded in metadata)"),
    ("--runners", "runners", bounded_int(1, 64, "k6 processes"), "k6 processes sharing each row's load on k6's "
     "execution segments, their requests merged into the row's one series (default 1; on Kubernetes the TestRun's "
     "parallelism)"),
]


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="vtlab", description=(
        "Platform vs virtual threads on a real blocking Spring Boot service, measured and explained."))
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_run, _add_k8s, _add_doctor, _add_setup, _add_db, _add_report, _add_bench_stub, _add_test):
        add(sub)
    return top


def _add_run(sub) -> None:
    run = sub.add_parser("run", help="measure the matrix (does any missing setup first)",
                         description="Measure platform vs virtual threads; one CSV row per scenario.")
    _add_plan_flags(run)
    run.add_argument("--cpus", type=core_map, help="core map override, e.g. 'app=0-3 pg=4 stub=5 load=6-7'")
    run.add_argument("--out", type=Path, help="run folder (default results/<timestamp>)")
    run.add_argument("--resume", action="store_true", help="skip rows already in the run folder's CSV "
                     "(the latest run when --out is not given)")
    run.add_argument("--keep", action="store_true", help="leave PostgreSQL and the stub up after the last row")
    run.add_argument("--dry-run", action="store_true", help="print the rows and exit")
    run.add_argument("--k6-dashboard", action="store_true",
                     help="export k6's own web dashboard of each row, linked from the report (off by default: it costs "
                          "k6 about 12%% more CPU per request; see README)")
    targetflags.add(run, bounded_int(1, 65_535, "a TCP port"))
    run.set_defaults(func=cmd_run)


# On Kubernetes, --context names kubectl's context, as in kubectl itself; the per-request context is then
# --request-context.
K8S_RENAMED = {"--context": "--request-context"}


def _add_k8s(sub) -> None:
    k8s = sub.add_parser("k8s", help="the same plan on a Kubernetes cluster (k6-operator runners)",
                         description="Render the plan as Kubernetes manifests, or run it on a cluster row by row.")
    actions = k8s.add_subparsers(dest="k8s_action", required=True, metavar="ACTION")
    # no abbreviations: --context would otherwise be taken for --context-kb where it is not a flag (render)
    render = actions.add_parser("render", help="write the manifests of every tier and row (nothing is applied)",
                                allow_abbrev=False)
    _add_plan_flags(render, K8S_RENAMED)
    k8sflags.add(render)
    render.add_argument("--out", type=Path, required=True, help="the folder to write the manifests into")
    render.set_defaults(func=cmd_k8s)
    run = actions.add_parser("run", help="measure the plan on a cluster through kubectl (needs the k6-operator)",
                             allow_abbrev=False)
    _add_plan_flags(run, K8S_RENAMED)
    k8sflags.add(run)
    run.add_argument("--context", dest="kube_context", required=True, metavar="CTX", help="the kubectl context")
    run.add_argument("--out", type=Path, help="run folder (default results/<timestamp>)")
    run.add_argument("--resume", action="store_true", help="skip rows already in --out's CSV")
    run.set_defaults(func=cmd_k8s)


def _add_plan_flags(command: argparse.ArgumentParser, renamed: dict[str, str] | None = None) -> None:
    """The plan's flags; `renamed`: flags a command spells otherwise (k8s: --context is kubectl's)."""
    presets = expansion.profiles()
    command.add_argument("--profile", choices=list(presets),
                         help="preset matrix (default quick; service with --service or --url): "
                              + "; ".join(f"{n}: {p.summary}" for n, p in presets.items()))
    for flag, dest, parse, words in PLAN_FLAGS:
        command.add_argument((renamed or {}).get(flag, flag), dest=dest, type=parse, help=words)


def _add_doctor(sub) -> None:
    doctor = sub.add_parser("doctor", help="check this machine for what would bend the numbers or stop a run",
                            description="Toolchains, open-file and backlog limits, CPU frequency, disk, ports and "
                            "other vtlab runs, judged against the plan the same flags as `run` give. "
                            "Exit 0 when all is well, 1 with warnings.")
    _add_plan_flags(doctor)
    doctor.set_defaults(func=cmd_doctor)


def _add_setup(sub) -> None:
    setup = sub.add_parser("setup", help="build the jars and k6, initialise and seed the database")
    setup.add_argument("--reseed", action="store_true", help="seed again even when already seeded")
    setup.set_defaults(func=cmd_setup)


def _add_db(sub) -> None:
    db = sub.add_parser("db", help="the embedded PostgreSQL (127.0.0.1:5544)")
    db.add_argument("action", choices=("start", "stop", "status", "seed"))
    db.add_argument("--reseed", action="store_true", help="with seed: seed again even when seeded")
    db.set_defaults(func=cmd_db)


def _add_report(sub) -> None:
    report = sub.add_parser("report", help="analyse a run and render report.html / report.md / analysis.csv")
    report.add_argument("run_dir", type=Path, help="a run folder holding matrix.csv (and metadata.json)")
    report.add_argument("--compare", type=Path, action="append", default=[], metavar="OTHER",
                        help="another run folder or CSV to overlay (repeatable), e.g. the published figures")
    report.add_argument("--hold-from", type=float, metavar="S",
                        help="re-cut every row's hold from its kept series: start, in seconds since k6 started "
                             "(with --hold-to); writes RUN_DIR/recut-FROM-TO/ and reports it")
    report.add_argument("--hold-to", type=float, metavar="S", help="the re-cut hold's end (see --hold-from)")
    report.set_defaults(func=cmd_report)


def _add_bench_stub(sub) -> None:
    bench = sub.add_parser("bench-stub", help="measure the downstream stub's capacity on one CPU")
    bench.add_argument("--seconds", type=bounded_int(5, 600, "seconds"), default=20,
                       help="warm-up and measurement length each (default 20)")
    bench.add_argument("--vus", type=bounded_int(1, 5000, "k6 users"), default=64, help="concurrent users (default 64)")
    bench.add_argument("--delay", type=bounded_int(0, 60_000, "milliseconds"), default=0,
                       help="the stub's delay (default 0: pure per-request cost)")
    bench.set_defaults(func=cmd_bench_stub)


def _add_test(sub) -> None:
    test = sub.add_parser("test", help="run every test (Java and Python) against real tiers")
    test.add_argument("pytest_args", nargs="*", help="extra arguments for pytest")
    test.set_defaults(func=cmd_test)


# --- subcommands -------------------------------------------------------------------------------

def _plan(args: argparse.Namespace, target: userservice.Target | None = None) -> expansion.Plan:
    """The plan the profile and flags describe; ValueError names a flag combination that cannot run. For a user's
    service (`target`) every row calls it: the service workload, whatever the profile's."""
    given = {dest: getattr(args, dest) for _, dest, _, _ in PLAN_FLAGS}
    if target is not None:
        given["workloads"] = (expansion.SERVICE_WORKLOAD,)
        if not target.uses_stub:
            given["stub_delay_ms"] = 0  # no downstream of vtlab's: no designed wait in the service time
    home = given.get("java_home")
    profile = args.profile or ("quick" if target is None else "service")
    java_home_jdk = runtimes.major(Path(home)) if home else None
    return expansion.build(profile, expansion.Overrides(**given, java_home_jdk=java_home_jdk))


def _examine(the_plan: expansion.Plan) -> list[doctor.Finding]:
    return doctor.examine(max(row.concurrency for row in the_plan.rows), len(the_plan.rows),
                          postgres.main_instance().running())


def cmd_doctor(args: argparse.Namespace) -> int:
    try:
        the_plan = _plan(args)
    except ValueError as err:
        return usage_error(str(err))
    doctor.raise_open_files_limit()  # as `run` does: judge the limit a run would have
    findings = _examine(the_plan)
    for finding in findings:
        print(finding.line())
    warned = doctor.warnings(findings)
    print(f"vtlab doctor: {len(warned)} warning(s)" if warned else "vtlab doctor: all well")
    return 1 if warned else 0


def cmd_run(args: argparse.Namespace) -> int:
    from vtlab.measure import loop
    from vtlab.targets import own, user

    try:
        target = targetflags.target(args)
        the_plan = _plan(args, target)
    except ValueError as err:
        return usage_error(str(err))
    if args.k6_dashboard and the_plan.runners > 1:
        return usage_error(f"--k6-dashboard with --runners {the_plan.runners}: each runner's dashboard would show only "
                           "its share of the load; drop one of them")
    run_dir = args.out
    if args.resume and run_dir is None:
        previous = sorted(p for p in RESULTS.glob("*") if (p / "matrix.csv").exists())
        if not previous:
            return usage_error("--resume: no earlier run under results/ to resume; give --out RUN_DIR")
        run_dir = previous[-1]
    if run_dir is not None and (run_dir / "matrix.csv").exists() and not args.resume:
        return usage_error(f"--out: {run_dir} already holds a matrix.csv; add --resume to continue it")
    problem = table.why_not_appendable(run_dir / table.CSV_NAME) if run_dir is not None else None
    if problem:
        return usage_error(f"--resume: {problem}")
    if args.resume and run_dir is not None and (run_dir / table.METADATA_NAME).exists():
        problem = _other_target(table.read_metadata(run_dir).get("target"), target)
        if problem:
            return usage_error(f"--resume: {run_dir} measured {problem}; resume it with the same service and call")
    run_dir = run_dir or loop.default_run_dir(RESULTS)
    problem = None if args.dry_run else table.why_not_writable(run_dir)
    if problem:
        return usage_error(f"--out: {problem}; give a writable folder")
    mapping = args.cpus or cores.automatic(cores.available())
    if target is not None and not args.dry_run:
        problem = _target_problem(target)
        if problem:
            return usage_error(problem)

    minutes = (len(the_plan.rows) * expansion.estimated_row_s(the_plan) + loop.FIRST_ROW_EXTRA_WARMUP_S) / 60
    measured = (f"stub delay {the_plan.stub_delay_ms} ms" if target is None or target.uses_stub else "")
    if target is not None:
        measured = f"your service ({target.jar or target.url}): {target.call.describe()}" + (
            f", {measured}" if measured else "")
    print(f"vtlab run: profile {the_plan.profile}, {len(the_plan.rows)} rows, ~{minutes:.0f} min; {measured}; "
          f"cores {cores.describe_map(mapping)}; results in {run_dir}")
    if args.dry_run:
        for row in the_plan.rows:
            print("  " + dimensions.label(row))
        return 0
    doctor.raise_open_files_limit()
    findings = _examine(the_plan)  # before any tier starts: its ports are still free
    for finding in doctor.warnings(findings):
        print(f"vtlab: doctor: {finding.line().lstrip()}", file=sys.stderr)
    procs.install_signal_handlers()
    try:
        measured = own.OwnService(args.keep, mapping, doctor.record(findings), args.k6_dashboard) if target is None \
            else user.UserService(target, mapping, doctor.record(findings), args.k6_dashboard)
        outcome = loop.run(measured, the_plan, run_dir)
    finally:
        procs.stop_all()
    _report_and_headline(outcome.csv.parent, [])
    if outcome.failed_rows:
        print(f"vtlab: {outcome.failed_rows} row(s) failed: a tier died (see the report's failed rows); "
              "--resume measures them again", file=sys.stderr)
        return 1
    return 0


def _other_target(recorded: object, target: userservice.Target | None) -> str | None:
    """What a run being resumed measured, when it is not what the flags name now; None when it is the same."""
    now = target.describe() if target else None
    keys = ("jar", "url", "call")
    then = {key: recorded.get(key) for key in keys} if isinstance(recorded, dict) else None
    if (then is None) == (now is None) and (now is None or then == {key: now[key] for key in keys}):
        return None
    return (f"{then['jar'] or then['url']} ({then['call']})" if then else "vtlab's own service")


def _target_problem(target: userservice.Target) -> str | None:
    """What stops a run on the user's service before anything starts: a script k6 cannot run (a usage error,
    returned), an unreachable --url or a taken --port (the environment: userservice.TargetError, exit 3)."""
    from vtlab.rig import build

    if target.url:
        userservice.check_reachable(target.url)
    if target.port and procs.port_in_use(target.port, APP_HOST):
        raise userservice.TargetError(f"--port {target.port}: the port is taken on {APP_HOST} by another process; "
                                      "free it or leave --port out (vtlab picks a free one)")
    try:
        with tempfile.TemporaryDirectory(prefix="vtlab-script-") as folder:
            targetflags.check_script(build.build_k6(), target.call, Path(folder))
    except ValueError as err:
        return str(err)
    return None


def cmd_k8s(args: argparse.Namespace) -> int:
    from vtlab.targets import k8smanifests
    from vtlab.measure import loop

    try:
        the_plan = _plan(args)
        cluster = k8sflags.cluster(args)
    except ValueError as err:
        return usage_error(str(err))
    problem = k8sflags.unsupported(the_plan)
    if problem:
        return usage_error(f"{problem} (on Kubernetes)")
    if args.k8s_action == "render":
        k8srun.write(k8smanifests.render(the_plan, cluster), args.out)
        print(f"vtlab k8s render: {len(the_plan.rows)} rows, {the_plan.runners} runner(s) each, namespace "
              f"{cluster.namespace}: {args.out}")
        return 0
    if args.resume and args.out is None:
        return usage_error("--resume: give --out RUN_DIR, the cluster run to continue")
    run_dir = args.out or loop.default_run_dir(RESULTS)
    if (run_dir / table.CSV_NAME).exists() and not args.resume:
        return usage_error(f"--out: {run_dir} already holds a matrix.csv; add --resume to continue it")
    problem = table.why_not_appendable(run_dir / table.CSV_NAME) if args.resume else None
    if problem:
        return usage_error(f"--resume: {problem}")
    if args.resume and table.read_metadata(run_dir).get("target") != k8srun.target(the_plan, cluster):
        return usage_error(f"--resume: {run_dir} was not measured on a cluster with these images, runners, "
                           "resources, node selectors and database (its metadata.json's target); resume it with "
                           "the flags it was started with")
    java = prereqs.find_jdk()  # its `jfr` reads the recordings back; before the cluster is touched
    kubectl, facts = k8srun.preflight(args.kube_context, cluster)
    problem = table.why_not_writable(run_dir)  # after the cluster's checks: a refused run leaves no folder
    if problem:
        return usage_error(f"--out: {problem}")
    procs.install_signal_handlers()
    try:
        failed = loop.run(k8srun.ClusterRun(kubectl, facts, cluster, java.jfr), the_plan, run_dir).failed_rows
    finally:
        procs.stop_all()
    _report_and_headline(run_dir, [])
    return 1 if failed else 0


def _report_and_headline(run_dir: Path, others: list[Path]) -> int:
    from vtlab.report import render

    paths = render.render(run_dir, others)
    print()
    print(paths["markdown"].read_text())
    print(f"report: {paths['html']}\nanalysis: {paths['analysis']}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    if not (args.run_dir / "matrix.csv").exists():
        return usage_error(f"report: {args.run_dir} holds no matrix.csv")
    for other in args.compare:
        if not other.exists():
            return usage_error(f"--compare: {other} does not exist")
    if (args.hold_from is None) != (args.hold_to is None):
        return usage_error("--hold-from and --hold-to go together: the window's start and end, in seconds since "
                           "k6 started")
    if args.hold_from is not None and not 0 <= args.hold_from < args.hold_to:
        return usage_error(f"--hold-from {args.hold_from:g} / --hold-to {args.hold_to:g}: need 0 <= from < to")
    try:
        run_dir = args.run_dir
        if args.hold_from is not None:
            from vtlab.series import recut

            run_dir = recut.recut(run_dir, (args.hold_from, args.hold_to))
            print(f"vtlab: re-cut every row's hold to {args.hold_from:g}–{args.hold_to:g} s: {run_dir}")
        return _report_and_headline(run_dir, args.compare)
    except (ValueError, FileNotFoundError) as err:
        return usage_error(str(err))


def cmd_setup(args: argparse.Namespace) -> int:
    from vtlab.rig import build, postgres

    procs.install_signal_handlers()
    pg = postgres.main_instance()
    was_running = pg.initialised and pg.running()
    try:
        timings = build.setup(pg, reseed=args.reseed)
    finally:
        if not was_running:
            pg.stop()
    print("vtlab setup: done (" + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()) + ")")
    return 0


def cmd_db(args: argparse.Namespace) -> int:
    from vtlab.rig import build, postgres
    from vtlab.core.settings import STATE

    pg = postgres.main_instance()
    if args.action == "start":
        started = pg.start()
        ownership.release(pg.postmaster_pid())  # it is meant to outlive this command
        postgres.write_env_file(pg.credentials(), STATE / "db.env")
        print(f"PostgreSQL {'started' if started else 'already running'} on {PG_HOST}:{pg.port} "
              f"(data {pg.data_dir}; credentials in {STATE / 'db.env'})")
    elif args.action == "stop":
        pg.stop()
        print("PostgreSQL stopped")
    elif args.action == "status":
        running = pg.initialised and pg.running()
        seeded = running and pg.seeded()
        print(f"PostgreSQL on {PG_HOST}:{pg.port}: {'running' if running else 'stopped'}"
              + (f", {'seeded' if seeded else 'not seeded'}" if running else "")
              + f" (data {pg.data_dir})")
        return 0 if running else 3
    else:
        seconds = build.prepare_database(pg, reseed=args.reseed or bool(os.environ.get("RESEED")))
        print("already seeded (use --reseed or RESEED=1 to seed again)" if seconds is None
              else f"seeded in {seconds:.1f} s")
    return 0


def cmd_bench_stub(args: argparse.Namespace) -> int:
    from vtlab.measure import stubbench

    procs.install_signal_handlers()
    try:
        stubbench.run(args.seconds, args.vus, args.delay)
    finally:
        procs.stop_all()
    return 0


def cmd_test(args: argparse.Namespace) -> int:
    from vtlab.cli import testrun

    procs.install_signal_handlers()
    try:
        return testrun.run_all(args.pytest_args)
    finally:
        procs.stop_all()


def usage_error(message: str) -> int:
    print(f"vtlab: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    stopped = ownership.reap()
    if stopped:
        print(f"vtlab: stopped {len(stopped)} process(es) a killed vtlab left running: {', '.join(stopped)}",
              file=sys.stderr)
    try:
        return args.func(args)
    except prereqs.MissingPrerequisite as err:
        print(f"vtlab: missing prerequisite: {err}", file=sys.stderr)
        return 3
    except (userservice.TargetError, k8srun.ClusterError) as err:
        print(f"\nvtlab: {err}", file=sys.stderr)
        return 3
    except subprocess.CalledProcessError as err:
        print(f"vtlab: command failed ({err.returncode}): {' '.join(map(str, err.cmd))}", file=sys.stderr)
        return 1
    except RuntimeError as err:
        print(f"\nvtlab: {err}", file=sys.stderr)
        return 1
