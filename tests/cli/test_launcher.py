"""The launcher (./vtlab): which first calls begin k6's build beside the install (vtlab.rig.earlybuild)."""

import shutil
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def clone(tmp_path):
    """The launcher beside a venv whose python only notes what it was asked, and an earlybuild that notes the pid it
    was given."""
    shutil.copy(REPO / "vtlab", tmp_path / "vtlab")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    rig = tmp_path / "src" / "vtlab" / "rig"
    rig.mkdir(parents=True)
    (tmp_path / "src" / "vtlab" / "__init__.py").write_text("")
    (rig / "__init__.py").write_text("")
    (rig / "earlybuild.py").write_text(f"import sys\nopen({str(tmp_path / 'early')!r}, 'w').write(sys.argv[1])\n")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'asked'}\n")
    python.chmod(0o755)
    return tmp_path


# How long an early build's note is looked for: where one is expected, until it comes (a CI's units beside the Java
# tests, the 2 cores full, took longer than half a second, 2026-12-07); where none is, a second after the launcher ended
# (a begun one writes its note within ~0.1 s of an idle machine's time).
EXPECTED_S, UNEXPECTED_S = 20.0, 1.0


def _launch(clone: Path, *args: str, expected: bool) -> tuple[str, bool]:
    """What the venv's python was asked, and whether an early build began (its note, written in the background)."""
    launched = subprocess.run([str(clone / "vtlab"), *args], capture_output=True, text=True, timeout=30)
    assert launched.returncode == 0, launched.stderr
    deadline = time.monotonic() + (EXPECTED_S if expected else UNEXPECTED_S)
    while not (clone / "early").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return (clone / "asked").read_text(), (clone / "early").exists()


@pytest.mark.parametrize("command", ["run", "setup", "test", "capacity", "calibrate"])
def test_a_first_call_that_builds_k6_begins_it_beside_the_install(clone, command):
    asked, early = _launch(clone, command, "--profile", "quick", expected=True)
    assert early and "--no-compile" in asked.splitlines()[0]
    assert asked.splitlines()[-1] == f"-m vtlab {command} --profile quick"


@pytest.mark.parametrize("args", [("report", "results/x"), ("run", "--help"), ("test", "-h"), ("runs",),
                                  ("run", "--dry-run")])
def test_a_call_that_builds_nothing_or_asks_for_help_begins_no_build(clone, args):
    asked, early = _launch(clone, *args, expected=False)
    assert not early and "pip install" in asked


def test_an_install_says_so_before_it_begins(clone):
    said = subprocess.run([str(clone / "vtlab"), "test"], capture_output=True, text=True, timeout=30).stderr
    assert said == "vtlab: installing vtlab's Python packages and the tests' into .venv/ (once)…\n"
    (clone / ".venv" / ".installed-test").touch()
    assert subprocess.run([str(clone / "vtlab"), "run"], capture_output=True, text=True, timeout=30).stderr == ""


def test_an_installed_venv_begins_no_build(clone):
    (clone / ".venv" / ".installed").touch()
    asked, early = _launch(clone, "run", expected=False)
    assert not early and asked == "-m vtlab run\n"
