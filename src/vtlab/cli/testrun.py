"""`vtlab test`: ruff over the harness and tests, the Java tests (a throwaway PostgreSQL, the real stub), pytest."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

from vtlab.cli import flags
from vtlab.rig import build, postgres, prereqs, procs, services
from vtlab.core.settings import REPO, SERVICES

TEST_STUB_DELAY_MS = 200
TEST_SEED = {"customers": 1_000, "orders": 10_000}
SLOWEST = 10  # the tests whose times are printed at the end


def add(sub) -> None:
    test = sub.add_parser("test", help="the tests: lint, Java, the units, the replays of recorded runs and a live "
                                       "smoke sized by this machine (~15 min); --live adds every live proof (~1 h)")
    test.add_argument("--live", action="store_true",
                      help="also run every live proof on the real tiers (tests/e2e/: each verdict class measured)")
    test.add_argument("--record", action="store_true",
                      help="with --live: keep each passing live proof's run folder under tests/recorded/, which the "
                           "replays read")
    test.add_argument("pytest_args", nargs="*",
                      help="the rest goes to pytest as given, e.g. -k tiny or -m 'not smoke'")
    test.set_defaults(func=cmd_test)


def cmd_test(args: argparse.Namespace) -> int:
    # everything after `test` reaches pytest as given (main forwards it), --live and --record too: the suite's
    # conftest reads them; they are declared above for --help, and checked here so a wrong pair exits 2 at once
    pytest_args = [*(["--live"] if args.live else []), *(["--record"] if args.record else []), *args.pytest_args]
    if "--record" in pytest_args and "--live" not in pytest_args:
        return flags.usage_error("--record keeps what the live proofs measured: give --live with it "
                                 "(./vtlab test --live --record)")
    procs.install_signal_handlers()
    try:
        return run_all(pytest_args)
    finally:
        procs.stop_all()


def run_all(pytest_args: list[str]) -> int:
    began, took = time.monotonic(), {}
    # Lint first: it takes a second and a mistake it finds would otherwise surface minutes later.
    lint_rc = _timed(took, "lint", lambda: subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests"],
                                                          cwd=REPO).returncode)
    java = prereqs.find_jdk()

    def build_all() -> int:  # once, for every test after it: the end-to-end runs find them built
        build.tools()
        return 0
    _timed(took, "build", build_all)
    results = Path(tempfile.mkdtemp(prefix="vtlab-pytest-"))
    beside, java_tests, python_rcs, took["Python tests"] = java_beside(pytest_args), JavaTests.start(java), [], 0.0
    for n, args in enumerate(pytest_passes(pytest_args)):
        if n != beside:
            java_tests.wait()  # nothing of the Java tests beside a pass that reads the whole machine
        started = time.monotonic()
        python_rcs.append(subprocess.run([sys.executable, "-m", "pytest", f"--junitxml={results / f'junit-{n}.xml'}",
                                          *args], cwd=REPO).returncode)
        took["Python tests"] += time.monotonic() - started
    java_rc, took["Java tests"], python_rc = java_tests.wait(), java_tests.took, max(python_rcs)
    print(slowest(sorted(results.glob("junit-*.xml")), SLOWEST))
    shutil.rmtree(results, ignore_errors=True)
    print(f"vtlab test: lint {_verdict(lint_rc, took['lint'])}, Java tests {_verdict(java_rc, took['Java tests'])}"
          f"{' beside the units' if beside is not None else ''}, "
          f"Python tests {_verdict(python_rc, took['Python tests'])} "
          f"(build {took['build']:.0f} s; {(time.monotonic() - began) / 60:.1f} min in all)")
    return 0 if lint_rc == java_rc == python_rc == 0 else 1


# The whole suite as the README runs it: the units and the replays two at once (pytest-xdist), as they wait on
# subprocesses and sockets as much as they compute (4:05 one at a time, 2:26 two at once on 2 cores, 2026-12-02), and
# the Java tests beside them for the same reason: both done in 279, 333 and 316 s, against the units' 212 s alone and
# the Java tests' 145-171 s alone after them, in one sitting on 2 cores (2026-12-02); then, one at a time on a
# machine nothing else of the suite loads, the tests that read its whole CPU (marker `alone`) and the live smoke.
PASSES = (["-n", "2", "-m", "not smoke and not alone"], ["-m", "smoke or alone"])
JAVA_BESIDE = 0  # the pass of PASSES the Java tests run beside
KEPT_LOG = build.BUILD_LOGS / "java-tests.log"  # a failed Maven run's output, kept past its throwaway folder


def pytest_passes(pytest_args: list[str]) -> list[list[str]]:
    """pytest's runs: the whole suite's passes, or a selection as given (-k, -m, --live), one test at a time."""
    return [list(args) for args in PASSES] if not pytest_args else [pytest_args]


def java_beside(pytest_args: list[str]) -> int | None:
    """The pytest pass the Java tests run beside: the whole suite's units; before a selection as given (a live proof
    reads the whole machine), None."""
    return None if pytest_args else JAVA_BESIDE


def _timed(took: dict[str, float], name: str, step) -> int:
    started = time.monotonic()
    try:
        return step()
    finally:
        took[name] = time.monotonic() - started


def _verdict(returncode: int, seconds: float) -> str:
    return f"{'passed' if returncode == 0 else 'FAILED'} ({seconds:.0f} s)"


def slowest(junit_xmls: list[Path], count: int) -> str:
    """The `count` slowest tests of pytest's runs, from their JUnit XML (each test's setup, call and teardown)."""
    if not junit_xmls:
        return "vtlab test: pytest wrote no results"
    cases = [(float(case.get("time") or 0), f"{case.get('classname')}::{case.get('name')}")
             for junit_xml in junit_xmls for case in ElementTree.parse(junit_xml).iter("testcase")]
    lines = [f"{seconds:8.1f} s  {name}" for seconds, name in sorted(cases, reverse=True)[:count]]
    return f"vtlab test: the {len(lines)} slowest of {len(cases)} tests\n" + "\n".join(lines)


class JavaTests:
    """The Java tests under way: Maven's `test` over the services' reactor against a throwaway PostgreSQL and the real
    stub, its output in a log (beside pytest's, the two would interleave), told when it ends."""

    def __init__(self, workdir: Path, maven: subprocess.Popen, stops: list[Callable[[], None]], started: float):
        self.workdir, self.maven, self.stops = workdir, maven, stops
        self.started, self.took, self.returncode = started, float("nan"), None
        self._ended = threading.Thread(target=self._time_its_end, name="vtlab-java-tests", daemon=True)
        self._ended.start()

    @classmethod
    def start(cls, java) -> JavaTests:
        """Started from the main thread: each tier's parent-death signal follows the thread that forked it."""
        started = time.monotonic()
        workdir = Path(tempfile.mkdtemp(prefix="vtlab-", dir="/tmp"))
        workdir.chmod(0o755)
        stops: list[Callable[[], None]] = []  # its own tiers, stopped by wait() (by procs.stop_all on a signal)
        _own(stops, lambda: shutil.rmtree(workdir, ignore_errors=True))  # the last to go: the database's folder
        try:
            pg = postgres.Postgres(workdir / "pgdata", procs.free_port())
            pg.start()
            _own(stops, pg.stop)
            pg.seed(**TEST_SEED)
            # h2c on: the app's tests that call with DOWNSTREAM_HTTP=http2 get HTTP/2
            stub = services.start_stub(java, procs.free_port(), TEST_STUB_DELAY_MS, 0, workdir / "stub.log", None,
                                       http2=True)
            _own(stops, stub.stop)
            env = {**build.maven_env(), **pg.credentials().service_env(), "STUB_URL": stub.base_url,
                   "STUB_DELAY_MS": str(TEST_STUB_DELAY_MS)}
            # -T 2: the reactor's modules tested two at once (their Spring contexts start on a core each): 145.0 and
            # 145.6 s against 170.9 and 160.3 s one module at a time, interleaved in one sitting on 2 cores (2026-12-02)
            maven = procs.spawn([str(prereqs.find_maven()), "-B", "-T", "2", "-f", str(SERVICES / "pom.xml"), "test"],
                                env=env, log=workdir / "maven.log", name="mvn")
            _own(stops, lambda: procs.terminate(maven))
        except BaseException:
            _stop(stops)
            raise
        print(f"vtlab test: the Java tests started (Maven's output in {workdir / 'maven.log'})", flush=True)
        return cls(workdir, maven, stops, started)

    def _time_its_end(self) -> None:
        self.maven.wait()
        self.took = time.monotonic() - self.started

    def wait(self) -> int:
        """Maven's exit code once it ended, its summary printed, its tiers stopped and its folder removed; where it
        failed, its whole log kept as KEPT_LOG."""
        if self.returncode is None:
            self._ended.join()
            self.returncode = self.maven.returncode
            log = self.workdir / "maven.log"
            summary = maven_summary(log.read_text(errors="replace"), self.returncode == 0)
            if self.returncode != 0:
                KEPT_LOG.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(log, KEPT_LOG)
                summary += f"\nvtlab test: Maven's whole output: {KEPT_LOG}"
            _stop(self.stops)
            print(summary, flush=True)
        return self.returncode


def _own(stops: list[Callable[[], None]], stop: Callable[[], None]) -> None:
    """`stop` kept in `stops` and registered for a signal's procs.stop_all, which it leaves once it has run."""
    forget = procs.on_cleanup(stop)

    def stop_now() -> None:
        forget()
        stop()
    stops.append(stop_now)


def _stop(stops: list[Callable[[], None]]) -> None:
    for stop in reversed(stops):
        try:
            stop()
        except Exception as exc:  # the other tiers still stop
            print(f"vtlab: cleanup step failed: {exc}")
    stops.clear()


def maven_summary(log: str, passed: bool) -> str:
    """What the terminal shows of Maven's run: its test counts and reactor summary where it passed; where it failed,
    its errors and the last lines of its log."""
    lines = log.splitlines()
    if passed:  # each module's totals (its per-class lines carry their time) and the reactor's summary
        told = [line for line in lines if ("Tests run:" in line and "Time elapsed" not in line) or "SUCCESS [" in line]
        return "\n".join(["vtlab test: the Java tests", *told])
    errors = [line for line in lines if line.startswith("[ERROR]")]
    return "\n".join(["vtlab test: the Java tests FAILED; Maven's errors, then its last lines:", *errors[:200],
                      "...", *lines[-120:]])
