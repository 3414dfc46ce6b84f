"""The flags that point `vtlab run` at the user's own service (--service JAR or --url URL) and say what to call
on it, read into a userservice.Target. Every wrong combination is refused here, naming the flag, before anything
starts."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from vtlab.core.settings import APP_HOST
from vtlab.measure import load
from vtlab.rig import build, procs
from vtlab.targets import headers, own, requestmix, user, userservice

# Plan flags that set parts of vtlab's own service: they mean nothing to a user's service, whose own settings go
# in with --service-env. (dest, flag)
OWN_SERVICE_ONLY = (("pools", "--pools"), ("conn_modes", "--conn-mode"), ("path_modes", "--path-mode"),
                    ("workloads", "--workload"), ("executors", "--executor"), ("offload_pool", "--offload-pool"),
                    ("fanouts", "--fanout"), ("pool_impls", "--pool-impl"), ("contexts", "--context"),
                    ("context_kb", "--context-kb"), ("sleep_ms", "--sleep-ms"), ("cpu_work", "--cpu-work"),
                    ("tomcat_max_threads", "--tomcat-threads"), ("downstream_latencies", "--downstream-latency"),
                    ("downstream_jitter_ms", "--downstream-jitter"), ("http_clients", "--http-client"),
                    ("client_pools", "--client-pool"), ("servers", "--server"))
# The target's own flags: (dest, flag, given when)
_JAR_ONLY = (("service_env", "--service-env"), ("service_args", "--service-args"), ("health", "--health"),
             ("port", "--port"), ("db", "--db"), ("db_url", "--db-url"))
# Latency between the service and vtlab's PostgreSQL (Toxiproxy in between): a user's service takes it with --db,
# the database vtlab runs for it; a --db-url database is as far away as it is.
_DB_DELAY = (("db_latencies", "--db-latency"), ("db_jitter_ms", "--db-jitter"))
_HEADER = ("header", "--header")
# Every flag of the target's (the --service and --url group), by dest
TARGET_DESTS = ("url", "metrics", "service_env", "service_args", "health", "port", "db", "db_url", "endpoint", "ids",
                "ids_file", "header", "script", "mix")
_CALL = (("endpoint", "--endpoint"), ("ids", "--ids"), ("ids_file", "--ids-file"), ("script", "--script"), _HEADER,
         ("mix", "--mix"))


def add(command: argparse.ArgumentParser, port_type) -> None:
    group = command.add_argument_group(
        "your own service", "Measure your Spring Boot service instead of vtlab's: --service JAR (vtlab starts it "
        "in both thread modes, one fresh JVM per row) or --url URL (a service already running, one mode), and "
        "--endpoint, --mix or --script for what to call.")
    group.add_argument("--service", type=Path, metavar="JAR", help="a Spring Boot 3.2+ executable jar")
    group.add_argument("--url", metavar="URL", help="a running service vtlab does not start (say its mode with "
                       "--modes platform or --modes virtual)")
    group.add_argument("--metrics", metavar="URL", help="with --url: its Prometheus endpoint, e.g. "
                       "http://127.0.0.1:8080/actuator/prometheus")
    group.add_argument("--service-env", action="append", metavar="NAME=VALUE",
                       help="an environment variable for the service (repeatable); {stub_url} in a value starts "
                            "vtlab's downstream stub (--stub-delay) and stands for its URL")
    group.add_argument("--service-args", metavar="ARGS", help="arguments after -jar JAR, as shell words")
    group.add_argument("--health", metavar="PATH", help="its health path (default /actuator/health; without one "
                       "the first 2xx on / counts)")
    group.add_argument("--port", type=port_type, help="the service's port (default: a free port per row, passed as "
                       "SERVER_PORT)")
    group.add_argument("--db", action="store_true", help="a fresh database in vtlab's PostgreSQL for every row, "
                       "passed as SPRING_DATASOURCE_URL/USERNAME/PASSWORD")
    group.add_argument("--db-url", metavar="JDBC_URL", help="your own database, passed as SPRING_DATASOURCE_URL "
                       "(credentials with --service-env)")
    group.add_argument("--endpoint", metavar="'METHOD /path/{id}'", help="what each iteration calls, e.g. "
                       "'GET /api/things/{id}'")
    group.add_argument("--ids", metavar="FIRST-LAST", help="the ids {id} is drawn from, e.g. 1-1000")
    group.add_argument("--ids-file", type=Path, metavar="FILE", help="the ids {id} is drawn from, one per line")
    group.add_argument("--mix", type=Path, metavar="FILE.yaml",
                       help="a request mix: named entries (method, path, weight, JSON body, headers, ids, the "
                            "statuses that count as success), one drawn by weight each iteration; each entry's "
                            "figures reported apart (docs/your-service.md; `vtlab mix --openapi` writes a first one)")
    group.add_argument("--header", action="append", metavar="'Name: value'",
                       help="with --endpoint or --mix: a header sent on every request, e.g. 'Authorization: Bearer "
                            "$TOKEN' ($NAME read from the environment); repeatable; only its name is ever written "
                            "down")
    group.add_argument("--script", type=Path, metavar="FILE.js", help="your own k6 script: vtlab runs its default "
                       "function inside its own phases and counts its requests as its own")


def add_versus(command: argparse.ArgumentParser) -> None:
    """--vs: the jar a --service jar is measured against, in interleaved blocks (vtlab run, vtlab compare)."""
    command.add_argument("--vs", type=Path, metavar="JAR",
                         help="with --service A.jar: another build of the same service (B.jar), measured against it "
                              "in one thread mode (--modes) on two warm JVMs up together, in interleaved blocks: "
                              "B ÷ A with a paired interval (docs/paired.md)")


def _given(args: argparse.Namespace, dest: str) -> bool:
    value = getattr(args, dest, None)
    return value not in (None, False, [], "")


def target(args: argparse.Namespace) -> userservice.Target | None:
    """The user's service the flags describe, or None for vtlab's own; ValueError names what is wrong."""
    jar, url, vs = getattr(args, "service", None), getattr(args, "url", None), getattr(args, "vs", None)
    if vs is not None and jar is None:
        raise ValueError(f"--vs {vs} needs --service JAR: the jar it is measured against, both started by vtlab")
    if jar is None and url is None:
        for dest, flag in (*_JAR_ONLY, *_CALL, ("metrics", "--metrics")):
            if _given(args, dest):
                raise ValueError(f"{flag} needs --service JAR or --url URL (it describes your own service)")
        if args.profile == "service":
            raise ValueError("--profile service needs --service JAR or --url URL")
        return None
    if jar is not None and url is not None:
        raise ValueError("--service and --url: give one (a jar vtlab starts, or a service already running)")
    for dest, flag in OWN_SERVICE_ONLY:
        if _given(args, dest):
            raise ValueError(f"{flag} sets a part of vtlab's own service and does not apply to yours; give your "
                             "service's own settings with --service-env NAME=VALUE")
    if args.modes and "webflux" in args.modes:
        raise ValueError("--modes webflux is vtlab's reactive twin; your service runs platform and/or virtual")
    if getattr(args, "keep", False):
        raise ValueError("--keep leaves vtlab's own PostgreSQL and stub up; your service's tiers stop with the run")
    if url is not None:
        for dest, flag in (*_JAR_ONLY, *_DB_DELAY, ("jdks", "--jdk"), ("java_home", "--java-home"),
                           ("jvm_opts", "--jvm-opts")):
            if _given(args, dest):
                raise ValueError(f"{flag} configures a service vtlab starts (--service JAR); with --url the service "
                                 "runs as it is")
        if not args.modes or len(args.modes) != 1:
            raise ValueError("--url: vtlab cannot flip a service it does not start; say which mode it runs with "
                             "--modes platform or --modes virtual")
        if getattr(args, "aot", None) == "on":
            raise ValueError("--aot on starts a service from its AOT cache; with --url the service runs as it is "
                             "(give its jar with --service)")
    elif _given(args, "metrics"):
        raise ValueError("--metrics is for --url; vtlab reads a --service jar's actuator itself")
    if args.db and args.db_url:
        raise ValueError("--db and --db-url: give one (vtlab's PostgreSQL, or your own database)")
    for dest, flag in _DB_DELAY:
        if _given(args, dest) and not args.db:
            raise ValueError(f"{flag} adds latency between your service and vtlab's PostgreSQL (through Toxiproxy): "
                             "it needs --db" + (", not --db-url (your database is as far away as it is)"
                                                if args.db_url else ""))
    boot = userservice.boot_version(jar) if jar else ""
    vs_boot = userservice.boot_version(vs, "--vs") if vs is not None else ""
    if jar is not None and getattr(args, "aot", None) == "on":
        userservice.check_aot(jar, boot)
    env = userservice.parse_env(args.service_env or [])
    return userservice.Target(
        call=_call(args), jar=jar.resolve() if jar else None, url=userservice.check_url(url) if url else None,
        metrics_url=userservice.check_url(args.metrics, "--metrics") if args.metrics else None, env=env,
        args=tuple(shlex.split(args.service_args or "")), health=_health(args.health), port=args.port,
        db="vtlab" if args.db else "url" if args.db_url else "none", db_url=args.db_url,
        boot_version=boot,
        uses_stub=any("{stub_url}" in value for _, value in env),
        actuator=userservice.has_actuator(jar) if jar else False, health_given=args.health is not None,
        vs=vs.resolve() if vs is not None else None, vs_boot_version=vs_boot,
        vs_actuator=userservice.has_actuator(vs) if vs is not None else True)


def _health(path: str | None) -> str:
    if path is None:
        return "/actuator/health"
    if not path.startswith("/"):
        raise ValueError(f"--health {path!r}: give a path starting with /, e.g. /actuator/health")
    return path


def _call(args: argparse.Namespace) -> userservice.Call:
    mix = getattr(args, "mix", None)
    if sum(1 for given in (args.endpoint, args.script, mix) if given) != 1:
        raise ValueError("say what to call: --endpoint 'GET /path/{id}' (with --ids or --ids-file), --mix FILE.yaml "
                         "or --script FILE.js — one of them")
    if mix is not None:
        for dest, flag in _CALL[1:3]:
            if _given(args, dest):
                raise ValueError(f"{flag} goes with --endpoint; a --mix gives each entry its ids (ids: or ids_file:)")
        read = requestmix.read(mix.resolve(), os.environ)
        return userservice.Call(mix=read.with_headers(headers.parse(args.header or [], os.environ)))
    if args.script:
        for dest, flag in (*_CALL[1:3], _HEADER):
            if _given(args, dest):
                raise ValueError(f"{flag} goes with --endpoint or --mix; a --script makes its own requests")
        script = args.script.resolve()
        if not script.is_file():
            raise ValueError(f"--script {args.script}: no such file")
        return userservice.Call(script=script)
    method, path = userservice.parse_endpoint(args.endpoint)
    if args.ids and args.ids_file:
        raise ValueError("--ids and --ids-file: give one")
    if "{id}" in path and not (args.ids or args.ids_file):
        raise ValueError(f"--endpoint {args.endpoint!r} has an {{id}}: give --ids FIRST-LAST or --ids-file FILE")
    ids_file = args.ids_file.resolve() if args.ids_file else None
    if ids_file and (not ids_file.is_file() or not ids_file.read_text().strip()):
        raise ValueError(f"--ids-file {args.ids_file}: no such file, or it holds no id")
    ids = userservice.parse_ids(args.ids) if args.ids else None
    return userservice.Call(mix=requestmix.endpoint(method, path, ids, ids_file,
                                                    headers.parse(args.header or [], os.environ)))


def check_script(k6: Path, call: userservice.Call, folder: Path) -> None:
    """k6 evaluates the script inside vtlab's phases once, before anything starts, with the environment a row gives
    it: a syntax error, a missing default function or an option k6 refuses is k6's own message, exit 2."""
    if call.script is None:
        return
    spec = load.LoadSpec("http://127.0.0.1:1", "closed", 1, 0, 1, 1, 2, 1, script=call.entry_script(folder),
                         script_env=tuple(call.k6_env().items()))
    # k6 inspect hides the environment from the script unless told, unlike k6 run: the rig's phases read it
    result = subprocess.run([str(k6), "inspect", "--include-system-env-vars", str(spec.script)], capture_output=True,
                            text=True, timeout=120,
                            env=load.env_for(spec, folder / "inspect-summary.json"))
    if result.returncode != 0:
        raise ValueError(f"--script {call.script}: k6 cannot run it: "
                         + (result.stderr or result.stdout).strip()[-1500:])


def startup_problem(target: userservice.Target) -> str | None:
    """What stops a run on the user's service before anything starts: a script k6 cannot run (a usage error,
    returned), an unreachable --url or a taken --port (the environment: userservice.TargetError, exit 3)."""
    if target.url:
        userservice.check_reachable(target.url)
    if target.port and procs.port_in_use(target.port, APP_HOST):
        raise userservice.TargetError(f"--port {target.port}: the port is taken on {APP_HOST} by another process; "
                                      "free it or leave --port out (vtlab picks a free one)")
    try:
        with tempfile.TemporaryDirectory(prefix="vtlab-script-") as folder:
            check_script(build.build_k6(), target.call, Path(folder))
    except ValueError as err:
        return str(err)
    return None


def measured(target: userservice.Target | None, keep: bool, core_map: dict[str, set[int]],
             doctor: list[dict[str, str]], k6_dashboard: bool, profiles: tuple[str, ...] = ()
             ) -> own.OwnService | user.UserService:
    """What `run` measures: the user's service when --service or --url named one, else vtlab's own."""
    if target is None:
        return own.OwnService(keep, core_map, doctor, k6_dashboard, profiles)
    return user.UserService(target, core_map, doctor, k6_dashboard, profiles)
