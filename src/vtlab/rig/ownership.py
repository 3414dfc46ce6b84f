"""A ledger of the processes vtlab started, kept on disk so that it outlives vtlab itself.

A harness killed with SIGKILL (or by the OOM killer, or with its terminal) cannot stop its tiers. The
tiers it spawned get a parent-death signal and stop on their own; a daemon such as PostgreSQL's
postmaster, which leaves its parent by design, cannot. So every tier is written down as it starts —
its PID, its start time and its command line, under the harness's own identity — and crossed off when
it stops. The next vtlab call reads the ledgers of harnesses that no longer run and stops what they
left, after checking that each process is still the one recorded (PID, start time and command line:
a PID alone may have been reused, a name says nothing about who started it).
"""

from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from vtlab.core.settings import STATE

LEDGERS = STATE / "owned"
STOP_GRACE_S = 15.0
EXEC_WAIT_S = 2.0  # how long a just-spawned process may take to show its new command line


@dataclass(frozen=True)
class Process:
    """One process as /proc knows it: enough to recognise it again later."""
    pid: int
    start_ticks: int   # /proc/PID/stat field 22: start time after boot, in clock ticks
    cmdline: str

    @staticmethod
    def read(pid: int) -> Process | None:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return None
        # the command name (field 2) may hold spaces and parentheses: count fields after its last ')'
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] == "Z":
            return None  # a zombie has finished; only its exit status is left to collect
        return Process(pid, int(fields[19]), cmdline.replace(b"\0", b" ").decode(errors="replace").strip())


@dataclass(frozen=True)
class Entry:
    name: str          # the tier, for the report line
    process: Process
    group: bool        # started in a session of its own: stop the whole process group
    stop_signal: int   # PostgreSQL's postmaster: SIGINT, its fast shutdown


def _ledger(owner: Process) -> Path:
    return LEDGERS / f"{owner.pid}-{owner.start_ticks}.json"


def _me() -> Process:
    me = Process.read(os.getpid())
    assert me is not None
    return me


def record(name: str, pid: int | None, group: bool = True, stop_signal: int = signal.SIGTERM) -> None:
    """Write a just-started tier into this harness's ledger (a no-op if it already exited)."""
    process = _after_exec(pid) if pid else None
    if process is None:
        return
    entries = _read(_ledger(_me()))
    entries = [e for e in entries if e.process.pid != pid] + [Entry(name, process, group, stop_signal)]
    _write(_ledger(_me()), entries)


def _after_exec(pid: int) -> Process | None:
    """The process once its exec has finished. Popen returns when the exec closes its pipe, before the kernel sets
    the new program's arguments: read then, /proc/PID/cmdline is empty (3 of 300 spawns here, 2026-12-07), and a
    ledger holding that empty line never recognises the tier again (the CI of baa434b: a daemon left unreaped)."""
    deadline = time.monotonic() + EXEC_WAIT_S
    process = Process.read(pid)
    while process is not None and not process.cmdline and time.monotonic() < deadline:
        time.sleep(0.005)
        process = Process.read(pid)
    return process


def release(pid: int | None) -> None:
    """Cross a tier off: it was stopped, or it is handed over to the user (`--keep`, `vtlab db start`)."""
    path = _ledger(_me())
    entries = _read(path)
    kept = [e for e in entries if e.process.pid != pid]
    if len(kept) != len(entries):
        _write(path, kept)


def reap() -> list[str]:
    """Stop what harnesses that no longer run left behind; returns one description per stopped process."""
    stopped = []
    for path in sorted(LEDGERS.glob("*.json")) if LEDGERS.is_dir() else []:
        if _living_owner(path) is not None:
            continue  # its harness still runs: its tiers are in use
        for entry in reversed(_read(path)):  # the service before the tiers it depends on
            if Process.read(entry.process.pid) == entry.process:
                _stop(entry)
                stopped.append(f"{entry.name} (pid {entry.process.pid})")
        path.unlink(missing_ok=True)
    return stopped


def stop_mine() -> None:
    """Stop what this harness's own ledger still holds, the last started first: on SIGINT or SIGTERM, a tier spawned as
    the signal came is in the ledger before its stop is registered (procs.on_cleanup), and its parent-death signal
    alone does not stop a JVM whose shutdown hook waits (seen 2026-12-02: a service JVM signalled as it started stayed
    up, SIGTERM caught, until SIGKILL)."""
    path = _ledger(_me())
    for entry in reversed(_read(path)):
        if Process.read(entry.process.pid) == entry.process:
            _stop(entry)
    path.unlink(missing_ok=True)


def running_harnesses() -> list[tuple[int, list[str]]]:
    """Other vtlab processes that are alive and own tiers: (their pid, the tiers' names)."""
    me = _me()
    running = []
    for path in sorted(LEDGERS.glob("*.json")) if LEDGERS.is_dir() else []:
        owner = _living_owner(path)
        if owner is not None and owner != me:
            running.append((owner.pid, [entry.name for entry in _read(path)]))
    return running


def _living_owner(ledger: Path) -> Process | None:
    """The harness a ledger is named for, if that very process (PID and start time) still runs."""
    owner_pid, _, owner_ticks = ledger.stem.partition("-")
    owner = Process.read(int(owner_pid)) if owner_pid.isdigit() else None
    return owner if owner is not None and str(owner.start_ticks) == owner_ticks else None


def _stop(entry: Entry) -> None:
    def send(sig: int) -> None:
        try:
            if entry.group:
                os.killpg(entry.process.pid, sig)
            else:
                os.kill(entry.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    send(entry.stop_signal)
    deadline = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < deadline and Process.read(entry.process.pid) == entry.process:
        time.sleep(0.1)
    send(signal.SIGKILL)


def _read(path: Path) -> list[Entry]:
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return [Entry(e["name"], Process(**e["process"]), e["group"], e["stop_signal"]) for e in raw]


def _write(path: Path, entries: list[Entry]) -> None:
    if not entries:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps([asdict(e) for e in entries]))
    temporary.replace(path)  # atomic: a harness killed mid-write leaves the previous ledger whole
