"""The launcher's early k6 build (vtlab.rig.earlybuild) never outlives the command it was begun for."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has ended; its parent has not reaped it
    except FileNotFoundError:
        return True


def _wait_for(path: Path, seconds: float = 20) -> str:
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.05)
    return path.read_text().strip()


@pytest.fixture
def new_clone(tmp_path):
    """vtlab's sources in a folder of their own (settings.REPO follows them): no k6 built there; a `go` on PATH that
    writes its pid and waits, as a long build does."""
    shutil.copytree(REPO / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "load" / "k6build").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    go = bin_dir / "go"
    go.write_text(f"#!/bin/sh\necho $$ > {tmp_path / 'go.pid'}\nexec sleep 300\n")
    go.chmod(0o755)
    return tmp_path


@pytest.mark.parametrize("ending", ["killed", "exits"])
def test_the_early_build_stops_with_the_command_however_it_ends(new_clone, ending):
    # the launcher's shape: the early build begun in the background, then the command in the same process (exec)
    command = subprocess.Popen(
        [sys.executable, "-c", "import os, subprocess, sys, time\n"
         "early = subprocess.Popen([sys.executable, '-S', '-m', 'vtlab.rig.earlybuild', str(os.getpid())])\n"
         f"open({str(new_clone / 'early.pid')!r}, 'w').write(str(early.pid))\n"
         "sys.stdin.read()\nsys.exit(2)\n"],  # a command that ends at once: a wrong flag's exit 2
        stdin=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(new_clone / "src"),
                                    "PATH": f"{new_clone / 'bin'}:{os.environ['PATH']}"})
    early, go = int(_wait_for(new_clone / "early.pid")), int(_wait_for(new_clone / "go.pid"))
    try:
        if ending == "killed":
            command.kill()  # SIGKILL: nothing of the command's own runs
        else:
            command.stdin.close()
        command.wait(timeout=10)
        deadline = time.monotonic() + 10
        while not (_gone(early) and _gone(go)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(early) and _gone(go)
    finally:
        for pid in (early, go):
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
