"""Start, watch and stop the processes vtlab owns, so that none outlives a run.

Every long-lived child starts in its own session (process group) and is registered here;
`stop_all` runs at exit, on SIGINT/SIGTERM, and after any failure.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

from vtlab.rig import ownership

_owned: list[Callable[[], None]] = []


def on_cleanup(stop: Callable[[], None]) -> Callable[[], None]:
    """Register a stop function; returns a callable that unregisters it."""
    _owned.append(stop)

    def forget() -> None:
        if stop in _owned:
            _owned.remove(stop)

    return forget


def stop_all() -> None:
    while _owned:
        stop = _owned.pop()
        try:
            stop()
        except Exception as exc:  # cleanup must go on for the other tiers
            print(f"vtlab: cleanup step failed: {exc}")


def install_signal_handlers() -> None:
    def handler(signum: int, _frame: object) -> None:
        stop_all()
        ownership.stop_mine()  # what was spawned but not yet registered to stop
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def as_unprivileged(argv: Sequence[str], user: str = "postgres") -> list[str]:
    """PostgreSQL refuses to run as root: drop to `user` when we are root."""
    if os.geteuid() != 0:
        return list(argv)
    return ["runuser", "-u", user, "--", *argv]


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_libc = ctypes.CDLL(None, use_errno=True)


def spawn(argv: Sequence[str], *, env: dict[str, str] | None = None, log: Path,
          cpus: set[int] | None = None, cwd: Path | None = None, name: str | None = None,
          detached: bool = False) -> subprocess.Popen:
    """Start a tier in a session of its own, written into the ownership ledger. It gets SIGTERM when the
    harness dies, however it dies (the kernel's parent-death signal: call this from the main thread, the
    signal follows the thread that forked) — unless `detached`: a tier the user keeps (`--keep`)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    out = open(log, "ab")
    parent = os.getpid()

    def preexec() -> None:
        if not detached:
            stop_with_parent(parent)
        if cpus:
            os.sched_setaffinity(0, cpus)

    try:
        proc = subprocess.Popen(list(argv), env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=preexec, cwd=cwd)
    finally:
        out.close()
    if not detached:
        ownership.record(name or Path(argv[0]).name, proc.pid)
    return proc


def stop_with_parent(parent: int) -> None:
    """This process SIGTERMed when `parent` (its parent's pid) dies, however it dies: the kernel's parent-death signal,
    sent when the thread that forked this one ends (an exec in the parent is no end). Sent now if the parent died
    before the ask."""
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def terminate(proc: subprocess.Popen, grace: float = 20.0) -> None:
    """SIGTERM the whole process group, then SIGKILL whatever is left after `grace` seconds."""
    if proc.poll() is not None:
        _kill_group(proc.pid, signal.SIGKILL)
        ownership.release(proc.pid)
        return
    _kill_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    _kill_group(proc.pid, signal.SIGKILL)
    ownership.release(proc.pid)


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on `host` now: the address the tier will bind, which may not be 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def http_get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def http_post_json(url: str, body: dict, timeout: float = 5.0) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


class TierDied(RuntimeError):
    """A tier ended when it should have been serving: which one, how, and the last lines of its log."""

    LOG_LINES = 8  # enough for a stack trace's head or a shutdown message

    def __init__(self, tier: str, how: str, log: Path | None):
        self.tier, self.how = tier, how
        self.log_tail = tail(log, self.LOG_LINES) if log else ""
        super().__init__(f"the {tier} {how}" + (f"; last lines of {log}:\n{self.log_tail}" if log else ""))


def ended(returncode: int) -> str:
    """How a process ended, in words: its exit code, or the signal that killed it."""
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


def wait_http_ok(url: str, proc: subprocess.Popen, timeout: float, log: Path, tier: str = "process") -> None:
    """Poll `url` until it answers 200; fail early, with the log's tail, if the process died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise TierDied(tier, ended(proc.returncode) + f" before {url} answered", log)
        try:
            if http_get(url, timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{url} did not answer 200 within {timeout:.0f} s; see {log}")


def lines_naming(path: Path, text: str, start: int = 0) -> int:
    """How many lines of a log from byte `start` on contain `text`; 0 without the log."""
    try:
        with open(path, errors="replace") as handle:
            handle.seek(start)
            return sum(1 for line in handle if text in line)
    except OSError:
        return 0


def tail(path: Path, lines: int = 25) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
