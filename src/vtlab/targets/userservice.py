"""The user's own service as the tier under test: what the flags say it is (a Target), checked.

`--service PATH.jar`: any Spring Boot 3.2+ executable jar, one fresh JVM per row, flipped between the thread
modes the way Boot reads it from the environment (SPRING_THREADS_VIRTUAL_ENABLED), with vtlab's JFR pinning
capture, its port and actuator on 127.0.0.1 (or VTLAB_APP_HOST), and the database vtlab provides.
`--url URL`: a service vtlab does not start, called as it is. Either way `--mix` (requestmix.py), `--endpoint`
(a mix of one entry) or `--script` says what to call. Nothing here knows vtlab's own service: no endpoint, meter or
setting of it is assumed. A row's service is started or attached in userrow.py; the loop's target for it is user.py.
"""

from __future__ import annotations

import json
import re
import urllib.parse
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

from vtlab.core import libraries
from vtlab.core.settings import LOAD
from vtlab.rig import procs
from vtlab.targets import requestmix
from vtlab.targets.requestmix import Mix

MIN_BOOT = (3, 2)           # spring.threads.virtual.enabled arrived in Spring Boot 3.2
MIN_BOOT_AOT = (3, 3)       # a jar's classes on a plain class path (an AOT cache needs them): -Djarmode=tools, 3.3
METHODS = requestmix.METHODS
WRAPPER_SCRIPT = LOAD / "custom.js"


class TargetError(RuntimeError):
    """The user's service or script cannot be measured as given: the message says why; exit 3."""


@dataclass(frozen=True)
class Call:
    """What each iteration calls: a request mix (--mix, or --endpoint's one entry), or the user's own k6 script."""
    mix: Mix | None = None
    script: Path | None = None

    def describe(self) -> str:
        if self.script:
            return f"k6 script {self.script}"
        assert self.mix is not None
        return self.mix.describe()

    def k6_env(self) -> dict[str, str]:
        return self.mix.k6_env() if self.mix else {}

    def entry_script(self, folder: Path) -> Path:
        """k6's entry point: the user's script (or a mix's, load/mix.js) inside vtlab's phases, written in `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        entry = folder / "entry.js"
        user, wrapper = json.dumps(str(self.script or requestmix.SCRIPT)), json.dumps(str(WRAPPER_SCRIPT))
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
    vs: Path | None = None       # --vs: the jar measured against `jar` (before/after), arm b of a paired plan
    vs_boot_version: str = ""    # ... and what its manifest and BOOT-INF/lib say of it, as `jar`'s above
    vs_actuator: bool = True

    def arm_b(self) -> Target:
        """A before/after's arm b: the --vs jar, with its own Spring Boot version and actuator."""
        return replace(self, jar=self.vs, boot_version=self.vs_boot_version, actuator=self.vs_actuator)

    @property
    def started_by_vtlab(self) -> bool:
        return self.jar is not None

    def describe(self) -> dict[str, object]:
        """What metadata records: never a value of the user's environment (it may hold secrets), only names."""
        return {"jar": str(self.jar) if self.jar else "", **({"vs": str(self.vs)} if self.vs else {}),
                "url": without_secrets(self.url),
                "metrics_url": without_secrets(self.metrics_url), "call": self.call.describe(),
                "env_names": [name for name, _ in self.env],
                "args": [arg.split("=", 1)[0] + ("=…" if "=" in arg else "") for arg in self.args],
                "health": self.health, "db": self.db, "spring_boot_version": self.boot_version,
                "libraries": [list(found) for found in jar_libraries(self.jar)] if self.jar else [],
                **({"vs_libraries": [list(found) for found in jar_libraries(self.vs)]} if self.vs else {})}

    def local_database_port(self) -> int | None:
        """The port of the --db-url database when it runs on this machine (a loopback host): a tier the rows
        measure. None for a remote one, or a URL without a port whose database has no known default."""
        if self.db != "url" or not self.db_url:
            return None
        return loopback_port(self.db_url)


# The default ports of the JDBC URLs' databases, for a --db-url that names none.
JDBC_DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306, "mariadb": 3306, "sqlserver": 1433, "oracle": 1521}


def loopback_port(jdbc_url: str) -> int | None:
    """The port of a jdbc:KIND://HOST[:PORT]/… URL whose host is this machine's loopback, else None."""
    url = jdbc_url.removeprefix("jdbc:")
    try:
        parsed = urllib.parse.urlsplit(url)
        host, port = parsed.hostname, parsed.port
    except ValueError:
        return None
    if host not in ("localhost", "::1") and not (host or "").startswith("127."):
        return None
    return port or JDBC_DEFAULT_PORTS.get(parsed.scheme)


def without_secrets(url: str | None) -> str:
    """A URL as metadata and messages may show it: no user:password@, no query string."""
    if not url:
        return ""
    parsed = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parsed.scheme, parsed.hostname + (f":{parsed.port}" if parsed.port else ""),
                                    parsed.path, "", ""))


def jar_libraries(jar: Path) -> tuple[tuple[str, str], ...]:
    """The JDBC drivers, pool and HTTP client the jar carries in BOOT-INF/lib (core.libraries); none where it cannot be
    read as a zip (a plain jar's classes path is the user's to name)."""
    try:
        with zipfile.ZipFile(jar) as archive:
            return libraries.in_jar(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return ()


def has_actuator(jar: Path) -> bool:
    with zipfile.ZipFile(jar) as archive:
        return any(name.startswith("BOOT-INF/lib/spring-boot-actuator-") for name in archive.namelist())


def check_aot(jar: Path, version: str) -> None:
    """--aot on: the jar must extract to a plain class path the way vtlab.rig.aot does it (Boot's jarmode tools)."""
    if _numbers(version) < MIN_BOOT_AOT:
        raise ValueError(f"--aot on: {jar} is Spring Boot {version}; its AOT cache needs the jar extracted to a plain "
                         "class path with Spring Boot's jarmode tools (3.3 or newer); leave --aot off")


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2])


def boot_version(jar: Path, flag: str = "--service") -> str:
    """The Spring Boot version an executable jar was built with; ValueError naming `flag` when it is not one."""
    if not jar.is_file():
        raise ValueError(f"{flag} {jar}: no such file")
    try:
        with zipfile.ZipFile(jar) as archive:
            manifest = archive.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (zipfile.BadZipFile, KeyError, OSError):
        raise ValueError(f"{flag} {jar}: not a jar (no META-INF/MANIFEST.MF)") from None
    found = re.search(r"^Spring-Boot-Version:\s*(\S+)", manifest.replace("\r\n ", "").replace("\n ", ""), re.M)
    if not found or "Start-Class:" not in manifest:
        raise ValueError(f"{flag} {jar}: not a Spring Boot executable jar (its manifest names no "
                         "Spring-Boot-Version and Start-Class; build it with the Spring Boot Maven or Gradle plugin)")
    version = found.group(1)
    if _numbers(version) < MIN_BOOT:
        raise ValueError(f"{flag} {jar}: Spring Boot {version}; flipping to virtual threads needs 3.2 or newer "
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


def jar_names(a: Path, b: Path) -> tuple[str, str]:
    """How a before/after's two jars are told apart: their file names, or, where those are one (two builds of
    app-0.0.1-SNAPSHOT.jar), their paths."""
    return (a.name, b.name) if a.name != b.name else (str(a), str(b))


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
