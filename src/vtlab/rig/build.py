"""`vtlab setup`: build the jars, k6 and Toxiproxy, and initialise and seed the database; each step
skipped when already done."""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
import subprocess
import time
from pathlib import Path

from vtlab.rig import postgres, prereqs
from vtlab.core.settings import (AP_LOADER_ARTIFACT, AP_LOADER_JAR, APP_JAR, K6_BUILD, K6_VERSION, REACTIVE_JAR,
                                 SERVICES, SQL, STATE, STUB_JAR, TOOLS, TOXIPROXY_BUILD, TOXIPROXY_VERSION)

K6_BIN = TOOLS / "bin" / "k6"
K6_STAMP = TOOLS / "bin" / "k6.sources"  # the digest of the sources K6_BIN was built from
TOXIPROXY_BIN = TOOLS / "bin" / "toxiproxy-server"


def _newest_source(root: Path) -> float:
    newest = 0.0
    for path in root.rglob("*"):
        if "target" in path.parts or not path.is_file():
            continue
        newest = max(newest, path.stat().st_mtime)
    return newest


JARS = (APP_JAR, STUB_JAR, REACTIVE_JAR)


def jars_current() -> bool:
    if not all(jar.exists() for jar in JARS):
        return False
    return min(jar.stat().st_mtime for jar in JARS) >= _newest_source(SERVICES)


def maven_env() -> dict[str, str]:
    java = prereqs.find_jdk()
    # Maven's own Guava calls sun.misc.Unsafe, which JDK 25 warns about on every build.
    opts = (os.environ.get("MAVEN_OPTS", "") + " --sun-misc-unsafe-memory-access=allow").strip()
    return {**os.environ, "JAVA_HOME": str(java.home), "PATH": f"{java.home / 'bin'}:{os.environ['PATH']}",
            "MAVEN_OPTS": opts}


def build_jars(force: bool = False) -> bool:
    if jars_current() and not force:
        return False
    mvn = prereqs.find_maven()
    print("vtlab: building the service jars with Maven (the first build downloads dependencies)…",
          flush=True)
    subprocess.run([str(mvn), "-B", "-q", "-f", str(SERVICES / "pom.xml"), "-DskipTests", "package"],
                   env=maven_env(), check=True)
    # Maven leaves an unchanged module's jar as it was; stamp all of them, or every run rebuilds.
    for jar in JARS:
        os.utime(jar)
    return True


def find_k6() -> Path | None:
    """Our build, when it is built from today's sources. Only ours: it carries vtlab's series output
    (load/k6build/series), which a k6 on PATH does not."""
    if K6_BIN.exists() and K6_STAMP.exists() and K6_STAMP.read_text() == _k6_sources_digest():
        return K6_BIN
    return None


def _k6_sources_digest() -> str:
    """What the build is made of: the pinned module versions and vtlab's own Go files."""
    digest = hashlib.sha256()
    for path in sorted(K6_BUILD.rglob("*")):
        if path.is_file() and (path.suffix == ".go" or path.name in ("go.mod", "go.sum")):
            digest.update(str(path.relative_to(K6_BUILD)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def build_k6() -> Path:
    found = find_k6()
    if found:
        return found
    go = prereqs.find_go()
    print(f"vtlab: building k6 {K6_VERSION} with vtlab's series output from the official Go module (a few "
          "minutes, once)…", flush=True)
    K6_BIN.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(go), "build", "-trimpath", "-o", str(K6_BIN), "./k6"],
                   cwd=K6_BUILD, check=True, env={**os.environ, "CGO_ENABLED": "0"})
    K6_STAMP.write_text(_k6_sources_digest())
    return K6_BIN


def build_toxiproxy() -> Path:
    """Our pinned build only: the latency toxic's jitter semantics are read from this version's source
    (see vtlab.rig.netdelay), so a different toxiproxy-server on PATH is not good enough."""
    if TOXIPROXY_BIN.exists():
        return TOXIPROXY_BIN
    go = prereqs.find_go()
    print(f"vtlab: building Toxiproxy {TOXIPROXY_VERSION} from its official Go module (under a minute, once)…",
          flush=True)
    TOXIPROXY_BIN.parent.mkdir(parents=True, exist_ok=True)
    # The release Makefile stamps the version the same way; without it /version answers "git".
    version_flag = f"-X github.com/Shopify/toxiproxy/v2.Version={TOXIPROXY_VERSION}"
    subprocess.run([str(go), "build", "-trimpath", "-ldflags", version_flag, "-o", str(TOXIPROXY_BIN),
                    "github.com/Shopify/toxiproxy/v2/cmd/server"],
                   cwd=TOXIPROXY_BUILD, check=True, env={**os.environ, "CGO_ENABLED": "0"})
    return TOXIPROXY_BIN


def fetch_profiler() -> Path:
    """async-profiler's loader jar from Maven Central, once: only a run that asks for profiles needs it."""
    if AP_LOADER_JAR.exists():
        return AP_LOADER_JAR
    mvn = prereqs.find_maven()
    print(f"vtlab: fetching async-profiler ({AP_LOADER_ARTIFACT}) from Maven Central…", flush=True)
    fetched = subprocess.run([str(mvn), "-B", "-q", "dependency:copy", f"-Dartifact={AP_LOADER_ARTIFACT}",
                              f"-DoutputDirectory={AP_LOADER_JAR.parent}"], env=maven_env())
    if fetched.returncode != 0 or not AP_LOADER_JAR.exists():
        raise prereqs.MissingPrerequisite(f"--profiles needs {AP_LOADER_ARTIFACT}, which Maven could not fetch from "
                                          "Maven Central (see its output above): check the network or Maven's proxy")
    return AP_LOADER_JAR


def prepare_database(pg: postgres.Postgres, reseed: bool = False, cpus: set[int] | None = None
                     ) -> float | None:
    """Start (if needed) and seed (if needed); returns the seed time when it seeded."""
    pg.start(cpus=cpus)
    postgres.write_env_file(pg.credentials(), STATE / "db.env")
    pg.psql_file(SQL / "schema.sql")  # idempotent: also brings an older cluster's schema up to date
    pg.discard_written_orders()       # a write row cut short leaves its rows behind
    if reseed or not pg.seeded():
        print("vtlab: seeding 100,000 customers and 1,000,000 orders…", flush=True)
        seconds = pg.seed()
        print(f"vtlab: seeded in {seconds:.1f} s", flush=True)
        return seconds
    return None


def setup(pg: postgres.Postgres, reseed: bool = False, pg_cpus: set[int] | None = None,
          toxiproxy: bool = True) -> dict[str, float]:
    """Everything `vtlab run` needs; returns step timings in seconds (0 when skipped). The database is initialised
    and seeded while the jars and k6 build: the two do not wait on each other (a fresh clone's setup took ~30 s of
    builds and ~20 s of seeding one after the other). `toxiproxy`: built here too (`vtlab setup`); a run builds it
    when a row needs it (targets.local)."""
    prereqs.find_jdk()
    timings: dict[str, float] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="vtlab-seed") as seeding:
        database = seeding.submit(prepare_database, pg, reseed, pg_cpus)
        started = time.monotonic()
        timings["jars_s"] = time.monotonic() - started if build_jars() else 0.0
        started = time.monotonic()
        had_k6 = find_k6() is not None
        build_k6()
        timings["k6_s"] = 0.0 if had_k6 else time.monotonic() - started
        started = time.monotonic()
        had_toxiproxy = TOXIPROXY_BIN.exists()
        if toxiproxy:
            build_toxiproxy()
        timings["toxiproxy_s"] = 0.0 if had_toxiproxy or not toxiproxy else time.monotonic() - started
        timings["seed_s"] = database.result() or 0.0  # its failure is raised here, as it was before
    return timings
