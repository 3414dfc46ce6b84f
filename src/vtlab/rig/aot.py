"""JDK 25's ahead-of-time cache for a service JVM (JEP 483, 514, 515): the classes a training run loaded and
linked, and its methods' profiles, mapped at start instead of loaded, linked and profiled again. A fresh JVM per
row starts in half the time (vtlab's service: 3.3 s -> 1.5 s here) and its JIT begins from the training's
profiles.

The cache needs the classes on a plain class path, which a Spring Boot jar's nested jars are not: the jar is
extracted once (Spring Boot's `-Djarmode=tools extract`) and the extracted jar runs, with and without a cache
alike. A cache is valid only for the JVM that wrote it — the runtime, the class path, and options such as JFR's
module — so it is keyed by all of them and trained with the row's own command line. Whether the JVM used it is
read from its own log (-Xlog:aot), never assumed.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path

from vtlab.core.settings import TOOLS, Java

AOT_DIR = TOOLS / "aot"
# -XX:AOTMode=auto (the default): a cache the JVM cannot use is skipped with a message, never a failed start
USED = "used"
OFF = "off"


def extracted(java: Java, jar: Path) -> Path:
    """The jar extracted for a class path of plain jars (once per build of it): the extracted jar's path."""
    folder = AOT_DIR / f"{jar.stem}-{_digest(jar.read_bytes())[:16]}"
    target = folder / jar.name
    if not target.exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(java.java), "-Djarmode=tools", "-jar", str(jar), "extract", "--force",
                        "--destination", str(folder)], check=True, capture_output=True, text=True)
    return target


@dataclass(frozen=True)
class Cache:
    """The AOT cache of one service command line: where it is, and the log that says whether the JVM used it."""
    path: Path

    @property
    def trained(self) -> bool:
        return self.path.exists()

    @property
    def training(self) -> Path:
        """Where the training JVM writes it: renamed to `path` only once it exited cleanly and wrote it whole."""
        return self.path.with_name(self.path.stem + ".training.aot")

    def training_flags(self) -> list[str]:
        """The JVM writes the cache when it exits (a clean stop: SIGTERM)."""
        return [f"-XX:AOTCacheOutput={self.training}"]

    def flags(self, log: Path) -> list[str]:
        return [f"-XX:AOTCache={self.path}", f"-Xlog:aot=info:file={log}"]


def cache_for(java: Java, jar: Path, options: list[str], thread_mode: str, workload: str) -> Cache:
    """The cache of a command line: its runtime, its extracted jar, its options (the JFR settings among them) and
    what the training ran — the thread mode and the workload whose methods it profiled."""
    release = java.home / "release"  # the runtime's exact version and build
    key = "\0".join([str(java.home), release.read_text() if release.exists() else "", str(jar),
                     _digest(jar.read_bytes()), *options, thread_mode, workload])
    return Cache(AOT_DIR / f"{jar.stem}-{thread_mode}-{workload}-{_digest(key.encode())[:16]}.aot")


def outcome(log: Path) -> str:
    """What the JVM's -Xlog:aot said: USED, or the first error that made it drop (part of) the cache."""
    if not log.exists():
        return "no AOT log"
    lines = log.read_text(errors="replace").splitlines()
    errors = [line.split("]", 3)[-1].strip() for line in lines if "[error]" in line]
    if errors:
        return "not used: " + errors[0]
    return USED if any("Opened AOT cache" in line for line in lines) else "not used: never opened"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
