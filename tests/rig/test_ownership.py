"""What a killed harness leaves behind is found by the next vtlab call, recognised by PID, start time and
command line, and stopped — and nothing else is."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vtlab.rig import ownership
from vtlab.core.settings import REPO

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


@pytest.fixture
def ledgers(tmp_path, monkeypatch):
    monkeypatch.setattr(ownership, "LEDGERS", tmp_path / "owned")
    return tmp_path


def harness(state: Path, body: str) -> str:
    """Run `body` as a vtlab harness that SIGKILLs itself at the end; returns what it printed."""
    script = ("import os, signal, subprocess, sys\n"
              "from vtlab.rig import ownership, procs\n" + body +
              "\nsys.stdout.flush()\nos.kill(os.getpid(), signal.SIGKILL)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30,
                            env={**os.environ, "VTLAB_STATE": str(state), "PYTHONPATH": str(REPO / "src")})
    assert result.returncode == -signal.SIGKILL, result.stderr
    return result.stdout


def alive(pid: int) -> bool:
    return ownership.Process.read(pid) is not None


def wait_until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_a_daemon_a_killed_harness_recorded_is_stopped_by_the_next_call(ledgers):
    # like PostgreSQL's postmaster: it left its parent, so no parent-death signal reaches it
    pid = int(harness(ledgers, f"p = subprocess.Popen({SLEEPER!r}, start_new_session=True, stdout=subprocess.DEVNULL, "
                               "stderr=subprocess.DEVNULL)\n"
                               "ownership.record('sleeper', p.pid)\nprint(p.pid)"))
    try:
        assert alive(pid)
        assert ownership.reap() == [f"sleeper (pid {pid})"]
        assert wait_until(lambda: not alive(pid))
        assert not list((ledgers / "owned").glob("*.json"))  # the dead harness's ledger is gone
        assert ownership.reap() == []
    finally:
        subprocess.run(["kill", "-9", str(pid)], capture_output=True)


def test_a_spawned_tier_dies_with_its_harness(ledgers, tmp_path):
    pid = int(harness(ledgers, f"p = procs.spawn({SLEEPER!r}, log=__import__('pathlib').Path({str(tmp_path)!r}) / "
                               "'sleeper.log')\nprint(p.pid)"))
    try:
        assert wait_until(lambda: not alive(pid)), "the parent-death signal did not stop the tier"
    finally:
        subprocess.run(["kill", "-9", str(pid)], capture_output=True)


def test_a_tier_spawned_as_the_signal_came_is_stopped_by_its_harness_even_if_it_ignores_sigterm(ledgers, tmp_path):
    # spawned and in the ledger, its stop not yet registered (procs.on_cleanup); it ignores SIGTERM, as a JVM whose
    # shutdown hook waits does: neither stop_all nor its parent-death signal ends it
    stubborn = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                      "print('up', flush=True); time.sleep(600)"]
    log = tmp_path / "stubborn.log"
    script = ("import os, signal, sys, time\nfrom pathlib import Path\nfrom vtlab.rig import ownership, procs\n"
              "ownership.STOP_GRACE_S = 1.0\nprocs.install_signal_handlers()\n"
              f"p = procs.spawn({stubborn!r}, log=Path({str(log)!r}))\nprint(p.pid, flush=True)\n"
              f"while 'up' not in Path({str(log)!r}).read_text():\n    time.sleep(0.05)\n"
              "os.kill(os.getpid(), signal.SIGTERM)\ntime.sleep(30)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "VTLAB_STATE": str(ledgers), "PYTHONPATH": str(REPO / "src")})
    pid = int(result.stdout.split()[0])
    try:
        assert result.returncode == 128 + signal.SIGTERM, result.stderr
        assert wait_until(lambda: not alive(pid), 5), "the harness left a tier that ignores SIGTERM running"
        assert not list((ledgers / "owned").glob("*.json"))
    finally:
        subprocess.run(["kill", "-9", str(pid)], capture_output=True)


def test_a_reused_pid_is_never_stopped(ledgers):
    stranger = subprocess.Popen(SLEEPER)
    try:
        me = ownership.Process.read(stranger.pid)
        assert me is not None
        # a dead harness once recorded a process with this PID that started at another time
        impostor = ownership.Process(stranger.pid, me.start_ticks - 1, me.cmdline)
        (ledgers / "owned").mkdir()
        (ledgers / "owned" / "999999999-1.json").write_text(json.dumps([
            {"name": "app", "process": impostor.__dict__, "group": False, "stop_signal": signal.SIGTERM}]))
        assert ownership.reap() == []
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()


def test_the_tiers_of_a_harness_that_still_runs_are_left_alone(ledgers):
    sleeper = subprocess.Popen(SLEEPER, start_new_session=True)
    try:
        ownership.record("sleeper", sleeper.pid)  # this test is the running harness
        assert ownership.reap() == []
        assert sleeper.poll() is None
        ownership.release(sleeper.pid)
        assert not list((ledgers / "owned").glob("*.json"))
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_tier_read_before_its_exec_finished_is_recorded_with_its_new_command_line(ledgers, monkeypatch):
    # Popen returns when the exec closes its pipe, before the kernel sets the new program's arguments: /proc shows an
    # empty command line for that moment (3 of 300 spawns, 2026-12-07), which would never match the tier again
    tier = ownership.Process(2**22 + 1, 123, "python -c sleep")  # above Linux's PID_MAX_LIMIT: no real process
    reads, read = iter([ownership.Process(tier.pid, tier.start_ticks, "")] * 3), ownership.Process.read
    monkeypatch.setattr(ownership.Process, "read", staticmethod(
        lambda pid: next(reads, tier) if pid == tier.pid else read(pid)))
    ownership.record("sleeper", tier.pid)
    ledger = json.loads((ledgers / "owned" / f"{os.getpid()}-{ownership._me().start_ticks}.json").read_text())
    assert [entry["process"] for entry in ledger] == [{"pid": tier.pid, "start_ticks": 123, "cmdline": tier.cmdline}]


def test_a_tier_whose_command_line_never_shows_is_recorded_as_read_once_the_wait_is_over(ledgers, monkeypatch):
    blank = ownership.Process(2**22 + 1, 123, "")
    read = ownership.Process.read
    monkeypatch.setattr(ownership.Process, "read", staticmethod(lambda pid: blank if pid == blank.pid else read(pid)))
    monkeypatch.setattr(ownership, "EXEC_WAIT_S", 0.05)
    ownership.record("kernel thread", blank.pid)  # returns: the wait is bounded
    [path] = (ledgers / "owned").glob("*.json")
    assert [entry["process"]["cmdline"] for entry in json.loads(path.read_text())] == [""]
