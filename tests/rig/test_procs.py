import os
import subprocess
import sys
import time

import pytest

from vtlab.rig import procs


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purposes
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().split(") ")[1][0] != "Z"


def spawn_tree(tmp_path):
    """A parent that starts a grandchild and ignores SIGTERM only in the grandchild."""
    script = ("import subprocess, sys, time\n"
              "child = subprocess.Popen([sys.executable, '-c', "
              "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
              "print(flush=True); time.sleep(600)'])\n"
              "print(child.pid, flush=True)\n"
              "time.sleep(600)\n")
    proc = procs.spawn([sys.executable, "-c", script], log=tmp_path / "tree.log")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        text = (tmp_path / "tree.log").read_text().split()
        if text:
            return proc, int(text[0])
        time.sleep(0.05)
    raise AssertionError("tree did not start")


def test_stop_all_kills_the_whole_process_group_even_a_child_ignoring_sigterm(tmp_path):
    proc, grandchild = spawn_tree(tmp_path)
    procs.on_cleanup(lambda: procs.terminate(proc, grace=1))
    assert alive(proc.pid) and alive(grandchild)
    procs.stop_all()
    time.sleep(0.2)
    assert not alive(proc.pid)
    assert not alive(grandchild)


def test_a_tier_that_dies_during_start_fails_fast_with_its_log(tmp_path):
    log = tmp_path / "dying.log"
    proc = procs.spawn([sys.executable, "-c", "print('boom: bad VT_ENABLED'); raise SystemExit(1)"], log=log)
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="boom: bad VT_ENABLED"):
        procs.wait_http_ok(f"http://127.0.0.1:{procs.free_port()}/health", proc, 30, log)
    assert time.monotonic() - started < 10


def test_cleanup_continues_after_a_failing_step(tmp_path, capsys):
    proc, _ = spawn_tree(tmp_path)
    procs.on_cleanup(lambda: procs.terminate(proc, grace=1))
    procs.on_cleanup(lambda: (_ for _ in ()).throw(RuntimeError("stop failed")))
    procs.stop_all()
    assert "stop failed" in capsys.readouterr().out
    assert proc.poll() is not None


def test_forget_unregisters():
    calls = []
    forget = procs.on_cleanup(lambda: calls.append(1))
    forget()
    procs.stop_all()
    assert calls == []


def test_free_port_is_free_and_loopback_only():
    port = procs.free_port()
    assert not procs.port_in_use(port)


def test_unprivileged_wrapping():
    argv = procs.as_unprivileged(["initdb", "-D", "x"])
    if os.geteuid() == 0:
        assert argv[:4] == ["runuser", "-u", "postgres", "--"]
    else:
        assert argv == ["initdb", "-D", "x"]
    assert subprocess.run(procs.as_unprivileged(["true"]), check=False).returncode == 0
