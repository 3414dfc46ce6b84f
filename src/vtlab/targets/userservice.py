"""The user's own service as the tier under test.

`--service PATH.jar`: any Spring Boot 3.2+ executable jar, one fresh JVM per row, flipped between the thread
modes the way Boot reads it from the environment (SPRING_THREADS_VIRTUAL_ENABLED), with vtlab's JFR pinning
capture, its port and actuator on 127.0.0.1 (or VTLAB_APP_HOST), and the database vtlab provides.
`--url URL`: a service vtlab does not start, called as it is. Either way `--endpoint` or `--script` says what
to call. Nothing here knows vtlab's own service: no endpoint, meter or setting of it is assumed.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vtlab.measure import load, samplers
from vtlab.rig import procs, runtimes, services
from vtlab.core import constants
from vtlab.series import store
from vtlab.core.constants import PINNING_SETTINGS
from vtlab.rig.services import Tier
from vtlab.core.settings import APP_HOST, LOAD, Java

MIN_BOOT = (3, 2)           # spring.threads.virtual.enabled arrived in Spring Boot 3.2
HEALTH_TIMEOUT_S = 180      # a user's service may migrate a schema before it answers
LOG_LINES = 15              # of a service that never became healthy: enough for its exception
WRONG_HEALTH_S = 30         # a service answering its health path with an error this long will not turn healthy
PREFLIGHT_BODY_CHARS = 400
METHODS = ("GET", "HEAD", "DELETE", "POST", "PUT", "PATCH", "OPTIONS")
ENDPOINT_SCRIPT = LOAD / "endpoint.js"
WRAPPER_SCRIPT = LOAD / "custom.js"
THREAD_MODE_SETTINGS = LOAD / "threadmode.jfc"
# The actuator endpoints the rig reads, and no other: health to know the service is up, prometheus for its meters,
# and metrics for them where the service has no Prometheus registry.
ACTUATOR_EXPOSED = "health,prometheus,metrics"


class TargetError(RuntimeError):
    """The user's service or script cannot be measured as given: the message says why; exit 3."""


@dataclass(frozen=True)
class Call:
    """What each iteration calls: an endpoint with ids, or the user's own k6 script."""
    method: str = ""
    path: str = ""              # with {id} where an id goes
    ids: tuple[int, int] = (1, 1)
    ids_file: Path | None = None
    script: Path | None = None

    def describe(self) -> str:
        if self.script:
            return f"k6 script {self.script}"
        ids = f"ids from {self.ids_file}" if self.ids_file else f"ids {self.ids[0]}-{self.ids[1]}"
        return f"{self.method} {self.path}" + (f" ({ids})" if "{id}" in self.path else "")

    def k6_env(self) -> dict[str, str]:
        if self.script:
            return {}
        env = {"ENDPOINT_METHOD": self.method, "ENDPOINT_PATH": self.path, "IDS_FROM": str(self.ids[0]),
               "IDS_TO": str(self.ids[1])}
        return {**env, "IDS_FILE": str(self.ids_file)} if self.ids_file else env

    def entry_script(self, folder: Path) -> Path:
        """k6's entry point: the user's script (or endpoint.js) inside vtlab's phases, written into `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        entry = folder / "entry.js"
        user, wrapper = json.dumps(str(self.script or ENDPOINT_SCRIPT)), json.dumps(str(WRAPPER_SCRIPT))
        entry.write_text(
            "// Written by vtlab: the script below inside vtlab's phases (load/custom.js).\n"
            f"import * as user from {user};\nimport {{ wrap }} from {wrapper};\n\n"
            "const run = wrap(user);\nexport const options = run.options;\n"
            "export function setup() { return run.setup(); }\n"
            "export default function (data) { run.iteration(data); }\n"
            "export function teardown(data) { run.teardown(data); }\n"
            "export const handleSummary = run.handleSummary;\n")
        return entry


@dataclass(frozen=True)
class Target:
    """The service under test when it is the user's: a jar vtlab starts, or a URL it only calls."""
    call: Call
    jar: Path | None = None
    url: str | None = None
    metrics_url: str | None = None           # --url: its Prometheus or actuator metrics endpoint, if given
    env: tuple[tuple[str, str], ...] = ()    # --service-env, in order; {stub_url} stands for vtlab's stub
    args: tuple[str, ...] = ()
    health: str = "/actuator/health"
    port: int | None = None                  # None: a free port per row
    db: str = "none"                         # none | vtlab (a fresh database per row) | url (--db-url)
    db_url: str | None = None
    boot_version: str = ""
    uses_stub: bool = False      # a --service-env names {stub_url}: vtlab's stub runs beside it
    actuator: bool = True        # the jar carries Spring Boot's actuator (BOOT-INF/lib)
    health_given: bool = False   # --health was given: its path is the only sign of health

    @property
    def started_by_vtlab(self) -> bool:
        return self.jar is not None

    def describe(self) -> dict[str, object]:
        """What metadata records: never a value of the user's environment (it may hold secrets), only names."""
        return {"jar": str(self.jar) if self.jar else "", "url": without_secrets(self.url),
                "metrics_url": without_secrets(self.metrics_url), "call": self.call.describe(),
                "env_names": [name for name, _ in self.env],
                "args": [arg.split("=", 1)[0] + ("=…" if "=" in arg else "") for arg in self.args],
                "health": self.health, "db": self.db, "spring_boot_version": self.boot_version}


def without_secrets(url: str | None) -> str:
    """A URL as metadata and messages may show it: no user:password@, no query string."""
    if not url:
        return ""
    parsed = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parsed.scheme, parsed.hostname + (f":{parsed.port}" if parsed.port else ""),
                                    parsed.path, "", ""))


def has_actuator(jar: Path) -> bool:
    with zipfile.ZipFile(jar) as archive:
        return any(name.startswith("BOOT-INF/lib/spring-boot-actuator-") for name in archive.namelist())


def boot_version(jar: Path) -> str:
    """The Spring Boot version an executable jar was built with; TargetError when it is not one."""
    if not jar.is_file():
        raise ValueError(f"--service {jar}: no such file")
    try:
        with zipfile.ZipFile(jar) as archive:
            manifest = archive.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (zipfile.BadZipFile, KeyError, OSError):
        raise ValueError(f"--service {jar}: not a jar (no META-INF/MANIFEST.MF)") from None
    found = re.search(r"^Spring-Boot-Version:\s*(\S+)", manifest.replace("\r\n ", "").replace("\n ", ""), re.M)
    if not found or "Start-Class:" not in manifest:
        raise ValueError(f"--service {jar}: not a Spring Boot executable jar (its manifest names no "
                         "Spring-Boot-Version and Start-Class; build it with the Spring Boot Maven or Gradle plugin)")
    version = found.group(1)
    numbers = tuple(int(part) for part in re.findall(r"\d+", version)[:2])
    if numbers < MIN_BOOT:
        raise ValueError(f"--service {jar}: Spring Boot {version}; flipping to virtual threads needs 3.2 or newer "
                         "(spring.threads.virtual.enabled)")
    return version


def parse_endpoint(text: str) -> tuple[str, str]:
    parts = text.split(None, 1)
    if len(parts) != 2 or parts[0].upper() not in METHODS or not parts[1].startswith("/"):
        raise ValueError(f"--endpoint {text!r}: give a method and a path, e.g. 'GET /api/things/{{id}}' "
                         f"(methods: {', '.join(METHODS)})")
    return parts[0].upper(), parts[1]


def parse_ids(text: str) -> tuple[int, int]:
    found = re.fullmatch(r"(\d+)-(\d+)", text.strip())
    if not found or int(found.group(1)) > int(found.group(2)):
        raise ValueError(f"--ids {text!r}: give a range FIRST-LAST of whole numbers, e.g. 1-1000")
    return int(found.group(1)), int(found.group(2))


# Settings vtlab gives the service itself, each for a reason a --service-env would defeat: (name, use instead).
OWNED_SETTINGS = {"SPRING_THREADS_VIRTUAL_ENABLED": "--modes", "SERVER_PORT": "--port",
                  "SERVER_ADDRESS": "nothing: it binds to 127.0.0.1 (or VTLAB_APP_HOST)",
                  "MANAGEMENT_SERVER_PORT": "nothing: vtlab picks it",
                  "MANAGEMENT_SERVER_ADDRESS": "nothing: it binds to 127.0.0.1 (or VTLAB_APP_HOST)",
                  "MANAGEMENT_ENDPOINTS_WEB_BASE_PATH": "nothing: vtlab reads /actuator"}


def parse_env(items: list[str]) -> tuple[tuple[str, str], ...]:
    pairs = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
            raise ValueError(f"--service-env {item!r}: give NAME=VALUE, e.g. SPRING_PROFILES_ACTIVE=postgres")
        if name.upper() in OWNED_SETTINGS:
            raise ValueError(f"--service-env {name}: vtlab sets it for every row; use {OWNED_SETTINGS[name.upper()]}")
        pairs.append((name, value))
    return tuple(pairs)


def check_url(url: str, flag: str = "--url") -> str:
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(f"{flag} {url!r}: give an http(s) URL, e.g. http://127.0.0.1:8080")
    return url.rstrip("/")


def check_reachable(url: str, flag: str = "--url") -> None:
    """An unreachable --url stops the run before anything starts (exit 3)."""
    try:
        procs.http_get(url, timeout=5)
    except OSError as err:
        raise TargetError(f"{flag} {url} cannot be reached ({getattr(err, 'reason', err)}); start the service "
                          "or give its address") from None


# --- a row's service ------------------------------------------------------------------------------

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


def start(target: Target, java: Java, virtual: bool, db_env: dict[str, str], stub_url: str | None, log: Path,
          jfr: Path, cpus: set[int] | None, jvm_opts: tuple[str, ...] = ()) -> Tier:
    """A fresh JVM of the user's jar for one row, healthy; TargetError with its log's tail when it never is."""
    assert target.jar is not None
    port = target.port or procs.free_port(APP_HOST)
    if procs.port_in_use(port, APP_HOST):
        raise TargetError(f"--port {port}: the port is taken on {APP_HOST} by another process; free it or leave --port "
                          "out (vtlab picks a free one)")
    management_port = procs.free_port(APP_HOST)
    env = {**_inherited(), **service_env(target, virtual, port, management_port, db_env, stub_url)}
    argv = [str(java.java), "-Xmx1g", *jvm_opts,
            f"-XX:StartFlightRecording=filename={jfr},settings={PINNING_SETTINGS},dumponexit=true",
            f"-XX:FlightRecorderOptions=repository={jfr.parent / 'repository'}",
            "-jar", str(target.jar), *target.args]
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
    """One request before the row's load: a 404 or a 500 stops the run with the response shown."""
    if call.script:
        return  # the script's own first iteration is its preflight (script_preflight runs it)
    first = str(call.ids[0])
    if call.ids_file:
        first = next((line.strip() for line in call.ids_file.read_text().splitlines() if line.strip()), first)
    url = tier.base_url + call.path.replace("{id}", urllib.parse.quote(first))
    request = urllib.request.Request(url, method=call.method)
    try:
        with urllib.request.urlopen(request, timeout=60):
            return
    except urllib.error.HTTPError as err:
        body = err.read()[:PREFLIGHT_BODY_CHARS].decode("utf-8", "replace")
        raise TargetError(f"preflight: {call.method} {url} answered {err.code}; the row was not started. "
                          f"The response:\n{body}") from None
    except OSError as err:
        raise TargetError(f"preflight: {call.method} {url} failed ({getattr(err, 'reason', err)})") from None


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


