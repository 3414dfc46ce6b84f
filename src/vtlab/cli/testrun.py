"""`vtlab test`: ruff over the harness and tests, the Java tests (a throwaway PostgreSQL, the real stub), pytest."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from vtlab.rig import build, postgres, prereqs, procs, services
from vtlab.core.settings import REPO, SERVICES

TEST_STUB_DELAY_MS = 200
TEST_SEED = {"customers": 1_000, "orders": 10_000}


def add(sub) -> None:
    test = sub.add_parser("test", help="run every test (Java and Python) against real tiers")
    test.add_argument("pytest_args", nargs="*", help="extra arguments for pytest")
    test.set_defaults(func=cmd_test)


def cmd_test(args: argparse.Namespace) -> int:
    procs.install_signal_handlers()
    try:
        return run_all(args.pytest_args)
    finally:
        procs.stop_all()


def run_all(pytest_args: list[str]) -> int:
    # Lint first: it takes a second and a mistake it finds would otherwise surface minutes later.
    lint_rc = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests"], cwd=REPO).returncode
    java = prereqs.find_jdk()
    build.build_jars()
    build.build_k6()
    build.build_toxiproxy()
    java_rc = run_java_tests(java)
    python_rc = subprocess.run([sys.executable, "-m", "pytest", *pytest_args], cwd=REPO).returncode
    print(f"vtlab test: lint {_verdict(lint_rc)}, Java tests {_verdict(java_rc)}, Python tests {_verdict(python_rc)}")
    return 0 if lint_rc == java_rc == python_rc == 0 else 1


def _verdict(returncode: int) -> str:
    return "passed" if returncode == 0 else "FAILED"


def run_java_tests(java) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="vtlab-", dir="/tmp"))
    workdir.chmod(0o755)
    pg = postgres.Postgres(workdir / "pgdata", procs.free_port())
    try:
        pg.start()
        procs.on_cleanup(pg.stop)
        pg.seed(**TEST_SEED)
        stub = services.start_stub(java, procs.free_port(), TEST_STUB_DELAY_MS, 0, workdir / "stub.log", None)
        procs.on_cleanup(stub.stop)
        env = {**build.maven_env(), **pg.credentials().service_env(), "STUB_URL": stub.base_url,
               "STUB_DELAY_MS": str(TEST_STUB_DELAY_MS)}
        return subprocess.run([str(prereqs.find_maven()), "-B", "-f", str(SERVICES / "pom.xml"), "test"],
                              env=env).returncode
    finally:
        procs.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
