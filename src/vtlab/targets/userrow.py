"""The user's service for one row: a fresh JVM of their jar started healthy in the row's thread mode (or the
service at --url attached as it runs), its meters found, one request or script iteration before the load that must
succeed, and the check that the row runs the thread mode it names."""

from __future__ import annotations

import re
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any
from pathlib import Path

from vtlab.core import constants, dimensions
from vtlab.core.constants import PINNING_SETTINGS
from vtlab.core.settings import APP_HOST, LOAD, Java
from vtlab.measure import load, samplers, tiers
from vtlab.measure.target import RowRefused, Turn
from vtlab.rig import procs, runtimes, services
from vtlab.rig.services import Tier
from vtlab.series import store
from vtlab.targets import requestmix, userwrites
from vtlab.targets.userservice import Call, Target, TargetError

SERVICE_HEAP = "-Xmx1g"
HEALTH_TIMEOUT_S = 180      # a user's service may migrate a schema before it answers
LOG_LINES = 15              # of a service that never became healthy: enough for its exception
WRONG_HEALTH_S = 30         # a service answering its health path with an error this long will not turn healthy
PREFLIGHT_BODY_CHARS = 400
THREAD_MODE_SETTINGS = LOAD / "threadmode.jfc"
# The actuator endpoints the rig reads, and no other: health to know the service is up, prometheus for its meters,
# and metrics for them where the service has no Prometheus registry.
ACTUATOR_EXPOSED = "health,prometheus,metrics"


def service_env(target: Target, virtual: bool, port: int, management_port: int, db_env: dict[str, str],
                stub_url: str | None) -> dict[str, str]:
    """What the service gets, as Spring Boot reads its properties from the environment: the thread mode, the
    port, its actuator on a port of its own on loopback with only what the rig reads, the database, and last the
    user's own settings (they win, except that a changed thread mode is caught by the mode check)."""
    ours = {
        "SPRING_THREADS_VIRTUAL_ENABLED": str(virtual).lower(),
        "SERVER_ADDRESS": APP_HOST, "SERVER_PORT": str(port),
        # the actuator on a port of its own: the rig's scrapes never queue behind the load
        "MANAGEMENT_SERVER_PORT": str(management_port), "MANAGEMENT_SERVER_ADDRESS": APP_HOST,
        "MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE": ACTUATOR_EXPOSED,
        "MANAGEMENT_ENDPOINTS_WEB_BASE_PATH": "/actuator",
        # Tomcat's thread and connection meters come from its MBeans, which Boot leaves off by default
        "SERVER_TOMCAT_MBEANREGISTRY_ENABLED": "true",
        **db_env,
    }
    user = {name: value.replace("{stub_url}", stub_url or "") for name, value in target.env}
    return {**ours, **user}


def options(jvm_opts: tuple[str, ...]) -> list[str]:
    """The service's JVM options that are the same on every start of a row's command line (an AOT cache is valid
    only for the options it was trained with: vtlab.rig.aot)."""
    return [SERVICE_HEAP, *jvm_opts, f"-XX:StartFlightRecording:settings={PINNING_SETTINGS}"]


def start(target: Target, java: Java, virtual: bool, db_env: dict[str, str], stub_url: str | None, log: Path,
          jfr: Path, cpus: set[int] | None, jvm_opts: tuple[str, ...] = (), jar: Path | None = None,
          aot_flags: tuple[str, ...] = ()) -> Tier:
    """A fresh JVM of the user's jar for one row, healthy; TargetError with its log's tail when it never is.
    `jar`: the jar extracted for its AOT cache, and `aot_flags` the cache's options (targets/useraot.py)."""
    assert target.jar is not None
    port = target.port or procs.free_port(APP_HOST)
    if procs.port_in_use(port, APP_HOST):
        raise TargetError(f"--port {port}: the port is taken on {APP_HOST} by another process; free it or leave --port "
                          "out (vtlab picks a free one)")
    management_port = procs.free_port(APP_HOST)
    env = {**_inherited(), **service_env(target, virtual, port, management_port, db_env, stub_url)}
    argv = [str(java.java), SERVICE_HEAP, *jvm_opts, *aot_flags,
            f"-XX:StartFlightRecording=filename={jfr},settings={PINNING_SETTINGS},dumponexit=true",
            f"-XX:FlightRecorderOptions=repository={jfr.parent / 'repository'}",
            "-jar", str(jar or target.jar), *target.args]
    proc = procs.spawn(argv, env=env, log=log, cpus=cpus, name="service")
    tier = Tier("service", proc, log, f"http://{APP_HOST}:{port}", f"http://{APP_HOST}:{management_port}")
    try:
        _wait_healthy(tier, target)
    except BaseException:
        tier.stop()
        raise
    return tier


def _inherited() -> dict[str, str]:
    """The caller's environment without its Spring Boot settings (SPRING_*, SERVER_*, MANAGEMENT_*) or vtlab's
    own service's: the service gets only what the flags say."""
    return {name: value for name, value in services.java_env({}).items()
            if not name.startswith(("SPRING_", "SERVER_", "MANAGEMENT_"))}


def attach(target: Target) -> Tier:
    """The service behind --url: no process of vtlab's, its meters at --metrics when given."""
    assert target.url is not None
    return Tier("service", None, None, target.url, target.metrics_url or "")


def meters(tier: Tier, target: Target) -> tuple[Callable[[], dict[str, float] | None] | None, str]:
    """How to read the service's meters, and from where: its Prometheus endpoint, else the actuator's metrics
    endpoint (a jar vtlab starts: its actuator; a --url: --metrics, either kind). (None, "") when neither answers:
    every meter is then not available."""
    if target.started_by_vtlab:
        candidates = [tier.management_url + "/actuator/prometheus", tier.management_url + "/actuator/metrics"]
    else:
        candidates = [target.metrics_url] if target.metrics_url else []
    for url in candidates:
        try:
            if procs.http_get(url, timeout=5)[0] != 200:
                continue
        except OSError:
            continue
        if url.rstrip("/").endswith("/actuator/metrics"):
            return samplers.actuator_reader(url.rstrip("/")), url
        return samplers.meters_reader(url), url
    return None, ""


def _wait_healthy(tier: Tier, target: Target) -> None:
    """Poll until the service answers 2xx on its health path: on the management port vtlab gave its actuator (or
    on its own port, for a --health of the service's own); a jar without the actuator and without --health counts
    as up on its first 2xx on /. Health only says the service is up: its meters are always read from the
    management port (meters()). A service that answers, but not 2xx, for WRONG_HEALTH_S is refused at once,
    naming what it answered."""
    candidates = [tier.management_url + target.health, tier.base_url + target.health]
    if not target.actuator and not target.health_given:
        candidates = [tier.base_url + target.health, tier.base_url + "/"]
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    answered: dict[str, int] = {}   # the last status of each candidate that answered at all
    answering_since: float | None = None
    while time.monotonic() < deadline:
        if tier.proc.poll() is not None:
            raise TargetError(_never_healthy(tier, procs.ended(tier.proc.returncode) + " before it became healthy"))
        for url in candidates:
            try:
                status = procs.http_get(url, timeout=2)[0]
            except OSError:
                continue
            if 200 <= status < 300:
                return
            answered[url] = status
        if answered and answering_since is None:
            answering_since = time.monotonic()
        if answering_since is not None and time.monotonic() - answering_since > WRONG_HEALTH_S:
            break
        time.sleep(0.5)
    statuses = "; ".join(f"{url} answered {status}" for url, status in answered.items())
    raise TargetError(_never_healthy(tier, "did not become healthy: " + (
        f"{statuses} for {WRONG_HEALTH_S} s (give its health path with --health)" if answered
        else f"nothing answered {' nor '.join(candidates)} within {HEALTH_TIMEOUT_S} s")))


def _never_healthy(tier: Tier, how: str) -> str:
    log = procs.tail(tier.log, LOG_LINES)
    taken = re.search(r"Port (\d+) was already in use|Address already in use", log)
    hint = (f"\nvtlab: a port it binds is taken ({taken.group(0)}): free it, or set the service's own port setting "
            "that names it" if taken else "")
    return f"your service {how}; the last lines of {tier.log}:\n{log}{hint}"


def preflight(tier: Tier, call: Call) -> None:
    """One request of each entry of the mix before the row's load, each of which must succeed (a write lands once):
    a 404 or a 500 stops the run with the response shown."""
    if call.script:
        return  # the script's own first iteration is its preflight (script_preflight runs it)
    assert call.mix is not None
    for entry in call.mix.entries:
        _preflight_entry(tier, entry, call.mix.source is not None)


def _preflight_entry(tier: Tier, entry: requestmix.Entry, named: bool) -> None:
    first = entry.first_id()
    url = tier.base_url + requestmix.fill(entry.path, first, 0, in_path=True)
    body = requestmix.fill(entry.body, first, 0, in_path=False).encode() if entry.body is not None else None
    request = urllib.request.Request(url, data=body, method=entry.method, headers=requestmix.request_headers(entry))
    said = f"{entry.name!r} ({entry.method} {url})" if named else f"{entry.method} {url}"
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, answer = response.status, b""
            if entry.succeeded(status):
                return
            answer = response.read(PREFLIGHT_BODY_CHARS)
    except urllib.error.HTTPError as err:
        status, answer = err.code, err.read()[:PREFLIGHT_BODY_CHARS]
        if entry.succeeded(status):
            return
    except OSError as err:
        raise TargetError(f"preflight: {said} failed ({getattr(err, 'reason', err)})") from None
    except ValueError:  # the request could not be made: a header's value never said (it may be a secret)
        raise TargetError(f"preflight: {said} could not be sent: a header's value is not one a request may "
                          "carry") from None
    raise TargetError(f"preflight: {said} answered {status}; the row was not started. The response:\n"
                      + answer.decode("utf-8", "replace"))


def writes_before(pg: Any, call: Call, database: str) -> dict[str, int] | None:
    """A mix's count queries (userwrites) in the JVM's own database in vtlab's PostgreSQL (`pg`, a rig.postgres
    Postgres; --db: `database`), before a row's load or a paired point's; None where nothing is counted (no
    `count:`, or no database of vtlab's)."""
    asked = userwrites.queries(call.mix)
    if not asked or not database or pg is None:
        return None
    return userwrites.count(pg, database, asked)


def writes_after(pg: Any, call: Call, database: str, before: dict[str, int] | None,
                 requests: list[store.Request]) -> dict[str, object]:
    """The write check's CSV columns once the load is over: the count queries again against the successful requests
    of the k6 run (`requests`); none where nothing was counted before."""
    if before is None or call.mix is None:
        return {}
    return userwrites.columns(call.mix, before, userwrites.count(pg, database, tuple(before)), requests)


def requests_of(series: Path) -> list[store.Request]:
    """Every request of a k6 run's series (a paired point's arm's whole run)."""
    return store.read_k6(series).requests


def script_preflight(k6: Path, spec: load.LoadSpec, folder: Path) -> None:
    """One iteration of the user's script by one user before the row's load: every request it makes must
    succeed. k6's --vus/--iterations replace the script's scenarios: no phases, nothing counted."""
    folder.mkdir(parents=True, exist_ok=True)
    kept, log = folder / "preflight.k6.csv.gz", folder / "preflight.log"
    kept.unlink(missing_ok=True)
    argv = [str(k6), "run", "--quiet", "--no-color", "--address", "127.0.0.1:0", "--vus", "1", "--iterations", "1",
            "--out", f"vtlab={kept}", str(spec.script)]
    try:
        result = subprocess.run(argv, env=load.env_for(spec, folder / "preflight-summary.json"), capture_output=True,
                                text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise TargetError("preflight: the script's first iteration did not end within 120 s") from None
    log.write_text(result.stdout + result.stderr)
    if result.returncode not in (0, constants.CURRENT.k6_thresholds_exit) or not kept.exists():
        raise TargetError(f"preflight: k6 could not run the script (exit {result.returncode}): "
                          + (result.stderr or result.stdout).strip()[-1500:])
    requests = store.read_k6(kept, 0.0).requests
    failed = [r.status for r in requests if not r.ok]
    if not requests or failed:
        raise TargetError("preflight: the script's first iteration " + (
            f"made {len(requests)} request(s) and {len(failed)} failed (status {', '.join(failed)}; 0: no response)"
            if requests else "made no HTTP request") + f"; the row was not started. k6's output: {log}")


def virtual_threads_started(java: Java, pid: int, request: Callable[[], None], folder: Path) -> int:
    """How many virtual threads the service started while `request()` ran, from a short JFR recording of
    jdk.VirtualThreadStart alone (load/threadmode.jfc)."""
    jcmd = str(java.home / "bin" / "jcmd")
    folder.mkdir(parents=True, exist_ok=True)
    recording = folder / f"threadmode-{pid}.jfr"
    name = f"vtlab-threadmode-{pid}"
    _tool([jcmd, str(pid), "JFR.start", f"name={name}", f"settings={THREAD_MODE_SETTINGS}"])
    try:
        request()
    finally:
        _tool([jcmd, str(pid), "JFR.stop", f"name={name}", f"filename={recording}"])
    found = re.search(r"^\s*jdk\.VirtualThreadStart\s+(\d+)", _tool([str(java.jfr), "summary", str(recording)]), re.M)
    return int(found.group(1)) if found else 0


def _tool(argv: list[str]) -> str:
    """A JDK tool's output; TargetError (the environment: exit 3) when it is missing, fails or hangs."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as err:
        raise TargetError(f"{Path(argv[0]).name} could not check the service's thread mode ({err}); the runtime "
                          "needs jcmd and jfr (a JDK, not a JRE)") from None


def check_mode(virtual: bool, started: int, tomcat_threads: float | None) -> None:
    """Whether the row runs the mode it asked for. Tomcat's own thread limit decides where the service exposes it
    (-1: its virtual-thread executor; a positive size: its platform pool — whatever virtual threads the service
    starts for its own work); otherwise the virtual threads the preflight request started."""
    if tomcat_threads is not None and tomcat_threads != 0:
        if virtual == (tomcat_threads < 0):
            return
        raise TargetError(f"the service was started with SPRING_THREADS_VIRTUAL_ENABLED={str(virtual).lower()} but "
                          f"Tomcat reports {tomcat_threads:g} max threads (-1 under virtual threads): its own "
                          "configuration sets spring.threads.virtual.enabled, so this row would not measure the mode "
                          "it names")
    if virtual and started == 0:
        raise TargetError("the service was started with SPRING_THREADS_VIRTUAL_ENABLED=true but served the preflight "
                          "request without starting a virtual thread: is it Spring MVC on Tomcat or Jetty, and does "
                          "its own configuration set spring.threads.virtual.enabled?")
    if not virtual and started > 0:
        raise TargetError(f"the service was started with SPRING_THREADS_VIRTUAL_ENABLED=false but started {started} "
                          "virtual thread(s) serving the preflight request, and exposes no Tomcat thread meter to tell "
                          "its request threads from its own executors: this row would not be known to measure "
                          "platform threads")


def runtime_facts(target: Target, java: Java, cpus: set[int] | None) -> dict:
    """The runtime-info vtlab's own service reports about itself, as far as it is known from outside."""
    return {"jdkVersion": runtimes.version(java.home), "springBootVersion": target.boot_version,
            "availableProcessors": len(cpus) if cpus else "", "pool": {}}


def refused(run_dir: Path, turn: Turn, err: TargetError) -> RowRefused:
    """A later row (or paired point, by its first block) the service would not start or answer for: a refusal that
    fails it, the run going on (the run's first row raises its own error, which stops the run: the jar, its settings
    or the call are wrong, not the moment)."""
    log = run_dir / "logs" / f"app-{dimensions.slug(turn.row)}.log"
    return RowRefused(tiers.SERVICE, str(err).splitlines()[0], log if log.exists() else None, err)
