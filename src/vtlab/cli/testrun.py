"""`vtlab test`: ruff over the harness and tests, the Java tests (a throwaway PostgreSQL, the real stub), pytest."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
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
    took: dict[str, float] = {}
    # Lint first: it takes a second and a mistake it finds would otherwise surface minutes later.
    lint_rc = _timed(took, "lint", lambda: subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests"],
                                                          cwd=REPO).returncode)
    java = prereqs.find_jdk()

    def build_all() -> int:  # once, for every test after it: the end-to-end runs find them built
        build.build_jars()
        build.build_k6()
        build.build_toxiproxy()
        return 0
    _timed(took, "build", build_all)
    java_rc = _timed(took, "Java tests", lambda: run_java_tests(java))
    results = Path(tempfile.mkdtemp(prefix="vtlab-pytest-"))
    python_rc = _timed(took, "Python tests", lambda: max(subprocess.run(
        [sys.executable, "-m", "pytest", f"--junitxml={results / f'junit-{n}.xml'}", *args], cwd=REPO).returncode
        for n, args in enumerate(pytest_passes(pytest_args))))
    print(slowest(sorted(results.glob("junit-*.xml")), SLOWEST))
    shutil.rmtree(results, ignore_errors=True)
    print(f"vtlab test: lint {_verdict(lint_rc, took['lint'])}, Java tests {_verdict(java_rc, took['Java tests'])}, "
          f"Python tests {_verdict(python_rc, took['Python tests'])} (build {took['build']:.0f} s; "
          f"{sum(took.values()) / 60:.1f} min in all)")
    return 0 if lint_rc == java_rc == python_rc == 0 else 1


# The whole suite as the README runs it: the units and the replays two at once (pytest-xdist), as they wait on
# subprocesses and sockets as much as they compute (4:05 one at a time, 2:26 two at once on 2 cores, 2026-12-02);
# then, one at a time on a machine nothing else of the suite loads, the tests that read its whole CPU (marker `alone`)
# and the live smoke.
PASSES = (["-n", "2", "-m", "not smoke and not alone"], ["-m", "smoke or alone"])


def pytest_passes(pytest_args: list[str]) -> list[list[str]]:
    """pytest's runs: the whole suite's passes, or a selection as given (-k, -m, --live), one test at a time."""
    return [list(args) for args in PASSES] if not pytest_args else [pytest_args]


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


def run_java_tests(java) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="vtlab-", dir="/tmp"))
    workdir.chmod(0o755)
    pg = postgres.Postgres(workdir / "pgdata", procs.free_port())
    try:
        pg.start()
        procs.on_cleanup(pg.stop)
        pg.seed(**TEST_SEED)
        # h2c on: the app's tests that call with DOWNSTREAM_HTTP=http2 get HTTP/2
        stub = services.start_stub(java, procs.free_port(), TEST_STUB_DELAY_MS, 0, workdir / "stub.log", None,
                                   http2=True)
        procs.on_cleanup(stub.stop)
        env = {**build.maven_env(), **pg.credentials().service_env(), "STUB_URL": stub.base_url,
               "STUB_DELAY_MS": str(TEST_STUB_DELAY_MS)}
        return subprocess.run([str(prereqs.find_maven()), "-B", "-f", str(SERVICES / "pom.xml"), "test"],
                              env=env).returncode
    finally:
        procs.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
