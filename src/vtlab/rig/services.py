"""The two JVM tiers: the downstream stub and the service under test."""

from __future__ import annotations

import json
import math
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from vtlab.rig import procs
from vtlab.core.constants import PINNING_SETTINGS
from vtlab.core.settings import APP_HOST, APP_JAR, REACTIVE_JAR, STUB_HOST, STUB_JAR, Java

HEALTH_TIMEOUT_S = 120    # a cold JVM on 2 shared cores can take a while


def java_env(extra: dict[str, str]) -> dict[str, str]:
    # The service reads only what we pass: drop a caller's VT_ENABLED etc. from the environment.
    ours = {"VT_ENABLED", "DB_POOL_MAX", "HIKARI_MAX_POOL", "CONN_MODE", "PATH_MODE", "TOMCAT_MAX_THREADS",
            "STUB_DELAY_MS", "STUB_JITTER_MS", "SERVER_PORT", "SERVER_ADDRESS", "MANAGEMENT_PORT",
            "OFFLOAD_EXECUTOR", "OFFLOAD_POOL", "FANOUT_MODE", "POOL_IMPL", "CONTEXT_MODE", "CONTEXT_KB",
            "TOMCAT_MAX_CONNECTIONS", "TOMCAT_ACCEPT_COUNT", "DOWNSTREAM_HTTP", "SERVER_HTTP2_ENABLED", "HTTP_CLIENT",
            "CLIENT_POOL", "SERVER"}
    base = {key: value for key, value in os.environ.items() if key not in ours}
    return {**base, **extra}


@dataclass
class Tier:
    name: str
    proc: subprocess.Popen | None   # None: a service vtlab does not run (--url)
    log: Path | None
    base_url: str
    management_url: str  # where /actuator lives: the app's own port, a port of its own, or "" (none)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def stop(self) -> None:
        if self.proc is not None:
            procs.terminate(self.proc)


# The stub's JVM, locally and in a cluster's pods alike (k8smanifests); the service's heap is sized per row
# (service_heap_mb). The stub allocates little and shares the machine with the service: the serial collector (no
# concurrent threads) and one event loop (every connection's timers and writes on one thread, none woken for
# another) cost 0.037 and 0.038 ms of CPU a request at the hero point against 0.044 and 0.045 with G1 and a loop
# per CPU (2026-11-26, 2 reps each, one sitting). One loop is far from a wall: it answered 21,438 req/s with 38% of
# its one CPU (`vtlab bench-stub --seconds 15`, no delay).
STUB_JVM_OPTS = ("-Xmx512m", "-XX:+UseSerialGC", "-Dreactor.netty.ioWorkerCount=1")
# What each request waiting in vtlab's service holds in its heap, and what the heap holds at rest: the memory probe's
# fit here (2026-11-26: `./vtlab run --modes platform,virtual --conc 500,1500,3000 --stub-delay 4000 --tomcat-threads
# 3000 --memory-probe on`), 143.4 KB [131.3–155.4] a request on virtual threads, 144.8 KB [134.7–154.9] on platform
# threads (Tomcat's and the HTTP client's buffers: byte[] and char[] are three quarters of it), ~34 MB at rest. At
# 10,000 users that is ~1.5 GB live: the 1 GB heap every row had ran out (OutOfMemoryError in the ramp).
HEAP_KB_PER_WAITING_REQUEST = 150
HEAP_BASE_MB = 64
# The live set at most this share of the heap: the rest is the collector's young generation and headroom, so it
# collects now and then rather than most of the time.
HEAP_LIVE_SHARE = 0.4
SERVICE_HEAP_MIN_MB = 1024  # what every row had before: rows up to ~2,350 users keep it


def live_heap_mb(users: int) -> float:
    """The heap vtlab's service keeps live with `users` requests waiting in it."""
    return HEAP_BASE_MB + users * HEAP_KB_PER_WAITING_REQUEST / 1024


def service_heap_mb(users: int) -> int:
    """The service's heap for a row of `users` (in 256 MB steps): its live set at most HEAP_LIVE_SHARE of it."""
    return max(SERVICE_HEAP_MIN_MB, math.ceil(live_heap_mb(users) / HEAP_LIVE_SHARE / 256) * 256)


def start_stub(java: Java, port: int, delay_ms: int, jitter_ms: int, log: Path,
               cpus: set[int] | None, detached: bool = False, http2: bool = False) -> Tier:
    """The stub; `http2`: it also speaks h2c (an HTTP/1.1 client offering the upgrade gets HTTP/2). Only for a run whose
    service asks for it (--downstream-http http2): a user's service on the JDK's client offers the upgrade by default,
    and would otherwise move to HTTP/2 without anyone asking."""
    env = java_env({"SERVER_ADDRESS": STUB_HOST, "SERVER_PORT": str(port),
                     "STUB_DELAY_MS": str(delay_ms), "STUB_JITTER_MS": str(jitter_ms),
                     "SERVER_HTTP2_ENABLED": str(http2).lower()})
    argv = [str(java.java), *STUB_JVM_OPTS, "-jar", str(STUB_JAR)]
    return _start("stub", STUB_HOST, argv, env, port, log, cpus, "/actuator/health", detached=detached)


@dataclass(frozen=True)
class AppConfig:
    virtual: bool
    pool: int
    conn_mode: str
    path_mode: str
    tomcat_max_threads: int
    offload_executor: str = "platform"
    offload_pool: int = 50
    fanout: str = "sequential"
    pool_impl: str = "hikari"
    context: str = "none"
    context_kb: int = 64
    reactive: bool = False  # the WebFlux + R2DBC twin instead of the blocking app
    # StructuredTaskScope is a preview API in JDK 25: the fan-out rows run with preview on, both
    # strategies, so a sequential and a structured row differ in the strategy only.
    preview: bool = False
    # Tomcat's connector: connections held at once and the kernel's queue beyond them (connection_limits)
    max_connections: int = 8192
    accept_count: int = 100
    heap_mb: int = SERVICE_HEAP_MIN_MB  # service_heap_mb: --jvm-opts=-Xmx… after it still wins
    downstream_http: str = "http1"  # presets.DOWNSTREAM_HTTP (the blocking app; the twin's client is its own)
    http_client: str = "jdk"  # presets.HTTP_CLIENTS
    client_pool: int = 0  # the pooled client's connections per route; 0: its own default
    server: str = "tomcat"  # presets.SERVERS

    @property
    def thread_mode(self) -> str:
        return "webflux" if self.reactive else "virtual" if self.virtual else "platform"

    def env(self) -> dict[str, str]:
        if self.reactive:
            return {"DB_POOL_MAX": str(self.pool)}
        return {"VT_ENABLED": str(self.virtual).lower(), "DB_POOL_MAX": str(self.pool),
                "CONN_MODE": self.conn_mode, "PATH_MODE": self.path_mode,
                "TOMCAT_MAX_THREADS": str(self.tomcat_max_threads), "OFFLOAD_EXECUTOR": self.offload_executor,
                "OFFLOAD_POOL": str(self.offload_pool), "FANOUT_MODE": self.fanout, "POOL_IMPL": self.pool_impl,
                "CONTEXT_MODE": self.context, "CONTEXT_KB": str(self.context_kb),
                "TOMCAT_MAX_CONNECTIONS": str(self.max_connections), "TOMCAT_ACCEPT_COUNT": str(self.accept_count),
                "DOWNSTREAM_HTTP": self.downstream_http, "HTTP_CLIENT": self.http_client,
                "CLIENT_POOL": str(self.client_pool), "SERVER": self.server}

    def jvm_flags(self) -> list[str]:
        """The options the row's configuration gives the JVM: its heap, the preview API for the fan-out."""
        return [f"-Xmx{self.heap_mb}m", *(["--enable-preview"] if self.preview else [])]


# Spring Boot's own connector limits, kept for every row up to them; beyond, sized to the row's users.
BOOT_MAX_CONNECTIONS, BOOT_ACCEPT_COUNT = 8192, 100
# Connections beyond the users: k6 opens a new one after a failed request while the kernel still holds the
# old one, and the rig's own requests (runtime-info) use the same connector.
CONNECTION_HEADROOM = 1024


def connection_limits(users: int) -> tuple[int, int]:
    """(max connections, accept count) for a row of `users`: every user's connection held at once, so a row
    measures the threads behind them, never Spring Boot's default of 8,192; and a queue that takes every user
    connecting at once (the kernel caps it at net.core.somaxconn, recorded beside)."""
    return max(BOOT_MAX_CONNECTIONS, users + CONNECTION_HEADROOM), max(BOOT_ACCEPT_COUNT, users)


def app_jar(config: AppConfig) -> Path:
    return REACTIVE_JAR if config.reactive else APP_JAR


def app_options(config: AppConfig, jvm_opts: tuple[str, ...]) -> list[str]:
    """The service's JVM options that are the same on every start of a row's command line (an AOT cache is
    valid only for the options it was trained with: vtlab.rig.aot)."""
    return [*config.jvm_flags(), *jvm_opts, f"-XX:StartFlightRecording:settings={PINNING_SETTINGS}"]


def start_app(java: Java, port: int, config: AppConfig, db_env: dict[str, str], stub_url: str,
              log: Path, jfr: Path, cpus: set[int] | None, jvm_opts: tuple[str, ...] = (),
              jar: Path | None = None, aot_flags: tuple[str, ...] = ()) -> Tier:
    """The service for a row. `jar`: another build of it (the AOT cache's extracted one) and `aot_flags` the
    cache's options (vtlab.rig.aot)."""
    # Actuator on a port of its own: a saturated request pool would otherwise queue the rig's
    # scrapes behind the load, and the samples would go missing exactly on the rows that matter.
    management_port = procs.free_port(APP_HOST)
    env = java_env({**db_env, **config.env(), "STUB_URL": stub_url, "SERVER_ADDRESS": APP_HOST,
                     "SERVER_PORT": str(port), "MANAGEMENT_PORT": str(management_port)})
    argv = [str(java.java), *config.jvm_flags(), *jvm_opts, *aot_flags,
            f"-XX:StartFlightRecording=filename={jfr},settings={PINNING_SETTINGS},dumponexit=true",
            # JFR's chunks beside the recording, not in /tmp: a killed service leaves them in the run folder
            f"-XX:FlightRecorderOptions=repository={jfr.parent / 'repository'}",
            "-jar", str(jar or app_jar(config))]
    return _start("service", APP_HOST, argv, env, port, log, cpus, "/actuator/health", management_port)


def _start(name: str, host: str, argv: list[str], env: dict[str, str], port: int, log: Path,
           cpus: set[int] | None, health: str, management_port: int | None = None, detached: bool = False) -> Tier:
    if procs.port_in_use(port, host):
        raise RuntimeError(f"port {port} on {host} is already taken; cannot start the {name}")
    proc = procs.spawn(argv, env=env, log=log, cpus=cpus, name=name, detached=detached)
    base_url = f"http://{host}:{port}"
    tier = Tier(name, proc, log, base_url, f"http://{host}:{management_port}" if management_port else base_url)
    try:
        procs.wait_http_ok(tier.management_url + health, proc, HEALTH_TIMEOUT_S, log, name)
    except BaseException:
        tier.stop()
        raise
    return tier


def runtime_info(app: Tier) -> dict:
    status, body = procs.http_get(app.base_url + "/api/runtime-info", timeout=10)
    if status != 200:
        raise RuntimeError(f"/api/runtime-info answered {status}")
    return json.loads(body)


def switch_conn_mode(app: Tier, mode: str) -> None:
    """Requests from now on run with connection mode `mode` (the service's rig-only /actuator/connmode): between two
    steps of one JVM's staircase, none in flight."""
    status, body = procs.http_post_json(app.management_url + "/actuator/connmode", {"mode": mode}, timeout=10)
    if status != 200:
        raise RuntimeError(f"/actuator/connmode refused {mode!r}: {status} {body[:200]!r}")


def check_effective(info: dict, config: AppConfig) -> list[str]:
    """Differences between what the row asked for and what the live service reports."""
    expected = {
        "threadMode": config.thread_mode,
        "connMode": config.conn_mode,
        "pathMode": config.path_mode,
    }
    problems = [f"{key}: asked {value}, service runs {info.get(key)}"
                for key, value in expected.items() if info.get(key) != value]
    pool = info.get("pool", {}).get("maximumPoolSize")
    if pool != config.pool:
        problems.append(f"pool: asked {config.pool}, service runs {pool}")
    if config.reactive:
        return problems
    implementation = {"hikari": "HikariCP", "agroal": "Agroal"}[config.pool_impl]
    if info.get("pool", {}).get("implementation") != implementation:
        problems.append(f"pool implementation: asked {implementation}, service runs "
                        f"{info.get('pool', {}).get('implementation')}")
    if info.get("downstream", {}).get("httpVersion") != config.downstream_http:
        problems.append(f"downstream HTTP: asked {config.downstream_http}, service runs "
                        f"{info.get('downstream', {}).get('httpVersion')}")
    downstream = info.get("downstream", {})
    if downstream.get("httpClient", "jdk") != config.http_client:  # a build before the choice ran the JDK's
        problems.append(f"downstream client: asked {config.http_client}, service runs {downstream.get('httpClient')}")
    elif config.client_pool and downstream.get("pool", {}).get("maxPerRoute") != config.client_pool:
        problems.append(f"downstream client pool: asked {config.client_pool} connections per route, service runs "
                        f"{downstream.get('pool', {}).get('maxPerRoute')}")
    if info.get("fanOutMode") != config.fanout:
        problems.append(f"fan-out: asked {config.fanout}, service runs {info.get('fanOutMode')}")
    context = info.get("context", {})
    if context.get("mode") != config.context or (config.context != "none"
                                                 and context.get("kilobytes") != config.context_kb):
        problems.append(f"context: asked {config.context} {config.context_kb} KB, service runs "
                        f"{context.get('mode')} {context.get('kilobytes')} KB")
    offload = info.get("offload", {})
    if offload.get("executor") != config.offload_executor:
        problems.append(f"offload executor: asked {config.offload_executor}, service runs {offload.get('executor')}")
    elif config.offload_executor == "platform" and offload.get("poolSize") != config.offload_pool:
        problems.append(f"offload pool: asked {config.offload_pool}, service runs {offload.get('poolSize')}")
    # The connector's limits are not compared: --jvm-opts=-Dserver.tomcat.max-connections=… may set them on purpose
    # (Spring Boot's default at 10,000 users), and the row records what the service ran with (csvrow).
    server = info.get("server", {"name": "tomcat", **info.get("tomcat", {})})  # a build before the server's record
    if server.get("name") != config.server:
        problems.append(f"server: asked {config.server}, service runs {server.get('name')}")
    threads = server.get("maxThreads")
    # Under virtual threads Tomcat hands requests to an unbounded executor: its limit reads -1.
    if not config.virtual and threads != config.tomcat_max_threads:
        problems.append(f"{config.server} max threads: asked {config.tomcat_max_threads}, service runs {threads}")
    return problems
