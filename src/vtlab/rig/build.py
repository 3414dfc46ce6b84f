"""`vtlab setup`: build the jars, k6 and Toxiproxy, and initialise and seed the database; each step
skipped when already done."""

from __future__ import annotations

import concurrent.futures
import contextlib
import fcntl
import hashlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from vtlab.rig import postgres, prereqs, procs
from vtlab.core.settings import (AP_LOADER_ARTIFACT, AP_LOADER_JAR, APP_JAR, K6_BUILD, K6_VERSION, REACTIVE_JAR,
                                 SERVICES, SQL, STATE, STUB_JAR, TOOLS, TOXIPROXY_BUILD, TOXIPROXY_VERSION)

K6_BIN = TOOLS / "bin" / "k6"
K6_STAMP = TOOLS / "bin" / "k6.sources"  # the digest of the sources K6_BIN was built from
K6_LOCK = TOOLS / "bin" / "k6.lock"  # held while one vtlab builds k6: two builds writing one binary break it
LOCK_POLL_S = 0.2
TOXIPROXY_BIN = TOOLS / "bin" / "toxiproxy-server"


def _newest_source(root: Path) -> float:
    newest = 0.0
    for path in root.rglob("*"):
        if "target" in path.parts or not path.is_file():
            continue
        newest = max(newest, path.stat().st_mtime)
    return newest


JARS = (APP_JAR, STUB_JAR, REACTIVE_JAR)
BUILD_LOGS = STATE / "logs"
FAILED_TAIL_LINES = 40


def _logged(command: list[str], log: Path, **kwargs: object) -> None:
    """A build's command with its output in `log`, not on the terminal: a first Go build lists every module it
    downloads (85 lines of `go: downloading` before the rows, 2026-12-03) and Maven resets the terminal's colours even
    when quiet. Its process group is stopped with the run's (procs.stop_all: a build runs in a thread of tools(), and
    only the main thread hears a signal). On failure, the log's last lines go to stderr in one piece (two builds may
    fail at once) and the error is raised as subprocess.run raises it."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        build = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **kwargs)
    forget = procs.on_cleanup(lambda: procs.terminate(build, grace=5))
    try:
        returncode = build.wait()
    except BaseException:  # interrupted where no signal handler stops it (a test's Ctrl-C): not left running
        procs.terminate(build, grace=5)
        raise
    finally:
        forget()
    if returncode > 0:  # below 0: stopped by a signal, the run's stop already said why
        tail = log.read_text(errors="replace").splitlines()[-FAILED_TAIL_LINES:]
        print("\n".join([f"vtlab: {log.stem} failed (exit {returncode}); the last lines of {log}:", *tail]),
              file=sys.stderr, flush=True)
    if returncode != 0:
        raise subprocess.CalledProcessError(returncode, command)


def _say(line: str) -> None:
    """A build's line on the terminal in one write: print() writes its end apart, and the builds print from threads
    of their own (two lines ran into one on a first run, 2026-12-07)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _built(what: str, started: float) -> None:
    _say(f"vtlab: built {what} in {time.monotonic() - started:.0f} s")


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


# The jars' build, a short one: Maven's own JVM compiles with C1 alone (the C2 compiler's work pays off only in a long
# run) and the tests' sources are not compiled (`vtlab test` compiles them when it tests). From an empty Maven
# repository, interleaved on a 2-core AMD EPYC (2026-12-07): 13.8 and 13.6 s of user CPU against 24.2 and 26.2, 14.0
# and 15.9 s against 16.2 and 21.3 s; on a new machine's first run the k6 build beside it gets that CPU.
JAR_BUILD_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def jar_build_env() -> dict[str, str]:
    env = maven_env()
    return {**env, "MAVEN_OPTS": f"{env['MAVEN_OPTS']} {JAR_BUILD_JVM}"}


def build_jars(force: bool = False) -> bool:
    if jars_current() and not force:
        return False
    mvn = prereqs.find_maven()
    _say("vtlab: building the service jars with Maven (the first build downloads dependencies)…")
    started = time.monotonic()
    _logged([str(mvn), "-B", "-q", "-f", str(SERVICES / "pom.xml"), "-Dmaven.test.skip=true", "package"],
            BUILD_LOGS / "build-jars.log", env=jar_build_env())
    _built("the service jars", started)
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


# The Go compiler's own collector, given room (a user's GOGC stands): k6 compiled from a cold build cache in 64.7 and
# 63.6 s at 400 against 77.2 and 75.8 s at Go's 100, interleaved on a 2-core AMD EPYC (2026-12-07); the build is the
# longest step of a new machine's first run.
GO_BUILD_GOGC = "400"
# Without DWARF, a debugger's data no run reads (Go's own tracebacks and perf read the symbol table, which stays): k6
# compiled from a cold build cache in 60.4 and 60.1 s against 65.1 and 69.7 s with it, interleaved on a 2-core AMD
# EPYC, its binary 52 MB against 65 (2026-12-07).
GO_NO_DWARF = ("-gcflags=all=-dwarf=false", "-ldflags=-w")


def go_env() -> dict[str, str]:
    """A Go build's environment: static (no cgo), its compiler collecting less often (GO_BUILD_GOGC)."""
    return {"GOGC": GO_BUILD_GOGC, **os.environ, "CGO_ENABLED": "0"}


def build_k6() -> Path:
    found = find_k6()
    if found:
        return found
    go = prereqs.find_go()
    started = time.monotonic()

    def waiting() -> None:
        _say(f"vtlab: waiting for k6 {K6_VERSION}, which another vtlab is building (on a first run, the launcher's, "
             "begun beside its install)…")
    with _held(K6_LOCK, waiting):  # what another vtlab built meanwhile (rig.earlybuild) is used
        found = find_k6()
        if found:
            _say(f"vtlab: k6 {K6_VERSION} built, after a wait of {time.monotonic() - started:.0f} s")
            return found
        return _build_k6(go)


def _build_k6(go: Path) -> Path:
    _say(f"vtlab: building k6 {K6_VERSION} with vtlab's series output from the official Go module (a few "
         "minutes, once)…")
    K6_BIN.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    _logged([str(go), "build", "-trimpath", *GO_NO_DWARF, "-o", str(K6_BIN), "./k6"], BUILD_LOGS / "build-k6.log",
            cwd=K6_BUILD, env=go_env())
    K6_STAMP.write_text(_k6_sources_digest())
    _built(f"k6 {K6_VERSION}", started)
    return K6_BIN


def build_toxiproxy() -> Path:
    """Our pinned build only: the latency toxic's jitter semantics are read from this version's source
    (see vtlab.rig.netdelay), so a different toxiproxy-server on PATH is not good enough."""
    if TOXIPROXY_BIN.exists():
        return TOXIPROXY_BIN
    go = prereqs.find_go()
    _say(f"vtlab: building Toxiproxy {TOXIPROXY_VERSION} from its official Go module (under a minute, once)…")
    TOXIPROXY_BIN.parent.mkdir(parents=True, exist_ok=True)
    # The release Makefile stamps the version the same way; without it /version answers "git".
    version_flag = f"-X github.com/Shopify/toxiproxy/v2.Version={TOXIPROXY_VERSION}"
    _logged([str(go), "build", "-trimpath", "-ldflags", version_flag, "-o", str(TOXIPROXY_BIN),
             "github.com/Shopify/toxiproxy/v2/cmd/server"], BUILD_LOGS / "build-toxiproxy.log",
            cwd=TOXIPROXY_BUILD, env=go_env())
    return TOXIPROXY_BIN


def fetch_profiler() -> Path:
    """async-profiler's loader jar from Maven Central, once: only a run that asks for profiles needs it."""
    if AP_LOADER_JAR.exists():
        return AP_LOADER_JAR
    mvn = prereqs.find_maven()
    _say(f"vtlab: fetching async-profiler ({AP_LOADER_ARTIFACT}) from Maven Central…")
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
        _say("vtlab: seeding 100,000 customers and 1,000,000 orders…")
        seconds = pg.seed()
        _say(f"vtlab: seeded in {seconds:.1f} s")
        return seconds
    return None


def tools(toxiproxy: bool = True) -> dict[str, float]:
    """The service jars and k6 built at once, then Toxiproxy where asked (both Go builds share one module cache);
    each step's seconds, 0 where it was built already. On a new machine each mostly waits on its downloads (Maven
    Central, the Go module proxy): one after the other, they and the seed took ~80 s before the first row
    (2026-12-03). A missing Maven or Go is said before anything starts."""
    _builders(toxiproxy)
    return _build(toxiproxy)


def _build(toxiproxy: bool) -> dict[str, float]:
    """tools() once its builders were found."""
    had_k6, had_toxiproxy = find_k6() is not None, TOXIPROXY_BIN.exists()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="vtlab-build") as builds:
        jars, k6 = builds.submit(_timed, build_jars), builds.submit(_timed, build_k6)
        jars_s, k6_s = jars.result(), k6.result()  # the jars' failure first, as before; each prints its own lines
    timings = {"jars_s": jars_s, "k6_s": 0.0 if had_k6 else k6_s}
    started = time.monotonic()
    if toxiproxy:
        build_toxiproxy()
    timings["toxiproxy_s"] = 0.0 if had_toxiproxy or not toxiproxy else time.monotonic() - started
    return timings


def setup(pg: postgres.Postgres, reseed: bool = False, pg_cpus: set[int] | None = None,
          toxiproxy: bool = True) -> dict[str, float]:
    """Everything `vtlab run` needs; returns step timings in seconds (0 when skipped). The database is initialised
    and seeded while the tools build: neither waits on the other. `toxiproxy`: built here too (`vtlab setup`); a run
    builds it when a row needs it (targets.local)."""
    prereqs.find_jdk()
    _builders(toxiproxy)  # said before the seed starts
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="vtlab-seed") as seeding:
        database = seeding.submit(prepare_database, pg, reseed, pg_cpus)
        timings = _build(toxiproxy)
        timings["seed_s"] = database.result() or 0.0  # its failure is raised here, as it was before
    return timings


def _builders(toxiproxy: bool) -> None:
    """Maven and Go where a build is still to be made: a missing one is said (prereqs.MissingPrerequisite) before
    anything starts."""
    if not jars_current():
        prereqs.find_maven()
    if find_k6() is None or (toxiproxy and not TOXIPROXY_BIN.exists()):
        prereqs.find_go()


@contextlib.contextmanager
def _held(path: Path, waiting: Callable[[], None] | None) -> Iterator[None]:
    """An exclusive lock on `path`, waited for while another process holds it (`waiting` called as the wait begins).
    The wait is polled, not blocking, so that a run stopping meanwhile (procs.stop_all) ends it: a thread of tools()
    blocked in flock would keep the stopping run waiting for the other build."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stopping = threading.Event()
    forget = procs.on_cleanup(stopping.set)
    try:
        with path.open("a") as lock:
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if waiting:
                        waiting()
                        waiting = None
                    if stopping.wait(LOCK_POLL_S):
                        raise RuntimeError(f"stopped while waiting for another build to release {path}") from None
            yield  # the lock goes with the file's closing
    finally:
        forget()


def _timed(step: Callable[[], object]) -> float:
    """How long `step` took; 0 where it had nothing to do (it returned False)."""
    started = time.monotonic()
    return 0.0 if step() is False else time.monotonic() - started
