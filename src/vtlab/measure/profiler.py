"""Profiles of a row's service with async-profiler (ap-loader's jar from Maven Central): attached to the running
JVM for the hold only, one recording of every kind asked for, each kind then kept as a self-contained flame graph
and as collapsed stacks (`profiles/<row>-<kind>.html`, `.collapsed.gz`) that the analysis reads.

The warm-up is never profiled: the drive loop ticks the profile once a second and it starts when the planned hold
starts (less k6's start-up slack) and stops when it ends; `profile_s` says how long it ran. One JVM takes one
profiling session at a time, so the kinds share one recording (a JFR file) and jfrconv splits it by kind.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

# Each kind's asprof option and what it records. The intervals are async-profiler's own defaults except the
# lock threshold: every contention of 10 us or more, not only the long ones, or a lock convoy of short waits
# would not show; and wall at 20 ms, so a 60 s hold gives each thread 3,000 samples.
KINDS: dict[str, tuple[str, str]] = {
    "cpu": ("cpu", "10ms"),       # on-CPU time: perf_events where the kernel allows it, else a timer (engine)
    "alloc": ("alloc", "512k"),   # bytes allocated, sampled every 512 KiB of TLAB
    "lock": ("lock", "10us"),     # time threads waited to enter a contended monitor or ReentrantLock
    "wall": ("wall", "20ms"),     # every platform thread, running or waiting: where the waiting goes
}
# What each kind's collapsed stacks count (jfrconv --total): samples where a sample has no value of its own.
UNITS = {"cpu": "samples of 10 ms", "alloc": "bytes", "lock": "ns waited", "wall": "samples of 20 ms"}


def parse_kinds(text: str) -> tuple[str, ...]:
    """`cpu,alloc` -> ("cpu", "alloc"), in KINDS' order; ValueError naming the accepted kinds."""
    asked = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [kind for kind in asked if kind not in KINDS]
    if not asked or unknown:
        raise ValueError(f"unknown profile kind {', '.join(unknown) or repr(text)}; accepted: {', '.join(KINDS)}")
    return tuple(kind for kind in KINDS if kind in asked)


def asprof_options(kinds: tuple[str, ...]) -> list[str]:
    """One session recording every kind: the first as the event, the others beside it."""
    first, *others = kinds
    event, interval = KINDS[first]
    options = ["-e", event, "-i" if first in ("cpu", "wall") else f"--{first}", interval]
    for kind in others:
        options += [f"--{KINDS[kind][0]}", KINDS[kind][1]]
    return options


@dataclass(frozen=True)
class Tool:
    """async-profiler as ap-loader brings it, run by a JDK's `java`; `jfr` reads the recording's settings."""
    java: Path
    jar: Path
    extract_to: Path  # where ap-loader unpacks asprof and the agent (inside the project, not the user's home)
    jfr: Path
    kinds: tuple[str, ...]

    def command(self, *args: str) -> list[str]:
        return [str(self.java), f"-Dap_loader_extraction_dir={self.extract_to}", "-jar", str(self.jar), *args]


@dataclass
class RowProfile:
    """One row's profile: started at the hold's start and stopped at its end (tick), kept by close()."""
    tool: Tool
    pid: int
    folder: Path
    slug: str
    start_s: float   # the hold on the drive loop's clock (seconds since k6 started)
    stop_s: float
    started_at: float | None = None
    stopped_at: float | None = None
    problem: str = ""
    kept: set[str] = field(default_factory=set)  # the kinds whose flame graph and stacks were written

    @property
    def recording(self) -> Path:
        return self.folder / f"{self.slug}.jfr"

    def tick(self, elapsed_s: float) -> None:
        if self.problem:
            return
        if self.started_at is None and self.start_s <= elapsed_s < self.stop_s:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.recording.unlink(missing_ok=True)
            if self._asprof("start", *asprof_options(self.tool.kinds), "-f", str(self.recording)):
                self.started_at = elapsed_s
        elif self.started_at is not None and self.stopped_at is None and elapsed_s >= self.stop_s:
            self.stop(elapsed_s)

    def stop(self, elapsed_s: float) -> None:
        """Stop a running session (the hold ended, or the row did early); the JVM writes the recording."""
        if self.started_at is not None and self.stopped_at is None:
            self.stopped_at = elapsed_s
            self._asprof("stop", "-f", str(self.recording))

    def close(self) -> dict[str, object]:
        """Each kind's flame graph and collapsed stacks from the recording; the row's profile cells."""
        if not self.problem and self.started_at is not None and self.recording.exists():
            for kind in self.tool.kinds:
                self._convert(kind)
        # the kinds the JVM was profiled for, kept or not: the row's CPU carries their cost either way
        return {"profiles": ",".join(self.tool.kinds) if self.started_at is not None else "",
                "profile_s": round(self.stopped_at - self.started_at, 1)
                if self.started_at is not None and self.stopped_at is not None else "",
                "profile_cpu_engine": engine(self.tool.jfr, self.recording) if "cpu" in self.kept else "",
                "profile_problem": self.problem}

    def _asprof(self, action: str, *args: str) -> bool:
        try:
            result = subprocess.run(self.tool.command("profiler", action, *args, str(self.pid)),
                                    capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as err:  # a profile lost, never the row
            self.problem = f"asprof {action}: {err}"
            return False
        if result.returncode != 0:
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            self.problem = f"asprof {action}: " + (said[-1] if said else f"exit {result.returncode}")
        return result.returncode == 0

    def _convert(self, kind: str) -> None:
        base = self.folder / f"{self.slug}-{kind}"
        collapsed, html = base.with_suffix(".collapsed"), base.with_suffix(".html")
        title = f"{self.slug}: {kind} ({UNITS[kind]})"
        for output, path in (("collapsed", collapsed), ("html", html)):
            try:
                result = subprocess.run(self.tool.command("converter", f"--{kind}", "--total", "--title", title,
                                                          "-o", output, str(self.recording), str(path)),
                                        capture_output=True, text=True, timeout=300)
            except (OSError, subprocess.TimeoutExpired) as err:
                self.problem = f"jfrconv --{kind}: {err}"
                return
            if result.returncode != 0 or not path.exists():
                self.problem = f"jfrconv --{kind}: exit {result.returncode}"
                return
        # an empty profile is kept too: nothing of its kind happened (no lock contended for 10 us or more)
        with collapsed.open("rb") as source, gzip.open(f"{collapsed}.gz", "wb") as target:
            shutil.copyfileobj(source, target)
        collapsed.unlink()
        self.kept.add(kind)


def engine(jfr_tool: Path, recording: Path) -> str:
    """How the CPU was sampled, as the recording says: perf_events when the kernel allowed it, else ctimer or
    itimer (kernel.perf_event_paranoid above 1 for a user without CAP_PERFMON); "" when unreadable."""
    try:
        result = subprocess.run([str(jfr_tool), "print", "--json", "--events", "jdk.ActiveSetting", str(recording)],
                                capture_output=True, text=True, timeout=120)
        events = json.loads(result.stdout).get("recording", {}).get("events", []) if result.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return ""
    for event in events:
        values = event.get("values", {})
        if values.get("name") == "engine":
            return str(values.get("value", ""))
    return ""
