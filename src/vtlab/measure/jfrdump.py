"""A window of a running JVM's JFR recording, copied to a file of its own: a staircase's step (targets.own) is one
row of a JVM that goes on after it, so the row's events are dumped from the live recording (`jcmd JFR.dump`) rather
than written when the JVM exits."""

from __future__ import annotations

import datetime as dt
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

TIMEOUT_S = 60

T = TypeVar("T")


def instant(unix_s: float) -> str:
    """A moment as JFR.dump's begin and end read it (java.time.Instant::parse)."""
    return dt.datetime.fromtimestamp(unix_s, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dump(jcmds: Sequence[Path], pid: int | None, begin_unix: float, end_unix: float, into: Path) -> bool:
    """The recording's chunks from begin to end (Unix s) into `into`, by the first of `jcmds` there is; False
    (and no file) when none could (the row's JFR figures then read as missing, never as none)."""
    into.unlink(missing_ok=True)
    tool = next((path for path in jcmds if path.exists()), None)
    if tool is None or pid is None:
        return False
    try:
        subprocess.run([str(tool), str(pid), "JFR.dump", f"filename={into}", f"begin={instant(begin_unix)}",
                        f"end={instant(end_unix)}"], capture_output=True, text=True, timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return into.exists()


def recorded(drive: Callable[[], T], jcmds: Sequence[Path], pid: int | None, into: Path,
             stepped: bool) -> tuple[T, tuple[float, float]]:
    """Runs a row's load (`drive`) and returns what it gave with the row's window (Unix s); where the row is a step
    of a JVM that goes on after it (`stepped`), that window of the JVM's recording is dumped into `into`."""
    begin = time.time()
    result = drive()
    window = (begin, time.time())
    if stepped:
        dump(jcmds, pid, window[0], window[1], into)
    return result, window
