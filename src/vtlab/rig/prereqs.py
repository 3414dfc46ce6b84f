"""Find the toolchains vtlab needs, or say exactly what to install."""

from __future__ import annotations

import glob
import os
import re
import shutil
from pathlib import Path

from vtlab.core.settings import PG_BIN_CANDIDATES, Java

MIN_JDK = 25


class MissingPrerequisite(RuntimeError):
    """A toolchain is missing; the message says what to install."""


def _jdk_major(home: Path) -> int | None:
    release = home / "release"
    if not (home / "bin" / "java").exists() or not release.exists():
        return None
    match = re.search(r'^JAVA_VERSION="(\d+)', release.read_text(errors="replace"), re.M)
    return int(match.group(1)) if match else None


def find_jdk() -> Java:
    """A JDK >= 25: VTLAB_JAVA_HOME, then JAVA_HOME, then the usual install folders."""
    candidates = [os.environ.get("VTLAB_JAVA_HOME"), os.environ.get("JAVA_HOME")]
    for pattern in ("/usr/lib/jvm/*", "/opt/java/*", "/opt/*jdk*", "~/.sdkman/candidates/java/*",
                    "/Library/Java/JavaVirtualMachines/*/Contents/Home"):
        candidates += sorted(glob.glob(os.path.expanduser(pattern)), reverse=True)
    on_path = shutil.which("java")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent.parent))
    for candidate in candidates:
        if candidate and (_jdk_major(Path(candidate)) or 0) >= MIN_JDK:
            return Java(Path(candidate))
    raise MissingPrerequisite(
        f"vtlab needs a JDK {MIN_JDK} or newer and found none (looked at VTLAB_JAVA_HOME, JAVA_HOME, "
        "/usr/lib/jvm, /opt, ~/.sdkman). Install one, e.g. Eclipse Temurin 25 "
        "(apt: temurin-25-jdk from the Adoptium repository, or `sdk install java 25-tem`), "
        "then set JAVA_HOME to it.")


def find_pg_bin() -> Path:
    """PostgreSQL server binaries (initdb, pg_ctl, postgres)."""
    candidates = [os.environ.get("VTLAB_PG_BIN")] + [str(p) for p in PG_BIN_CANDIDATES]
    pg_config = shutil.which("pg_config")
    if pg_config:
        candidates.append(str(Path(pg_config).resolve().parent))
    for candidate in candidates:
        if candidate and all((Path(candidate) / tool).exists() for tool in ("initdb", "pg_ctl", "postgres")):
            return Path(candidate)
    raise MissingPrerequisite(
        "vtlab needs the PostgreSQL server binaries (initdb, pg_ctl, postgres; version 15 or newer) "
        "and found none. Install them (Debian/Ubuntu: `apt-get install postgresql`; macOS: "
        "`brew install postgresql@17`) or point VTLAB_PG_BIN at their bin folder. "
        "vtlab runs its own instance; it never touches a system cluster.")


def find_psql(pg_bin: Path) -> Path:
    psql = pg_bin / "psql"
    if psql.exists():
        return psql
    found = shutil.which("psql")
    if found:
        return Path(found)
    raise MissingPrerequisite("vtlab needs psql (Debian/Ubuntu: `apt-get install postgresql-client`).")


def find_go() -> Path:
    for candidate in (shutil.which("go"), "/usr/local/go/bin/go", "/usr/lib/go/bin/go"):
        if candidate and Path(candidate).exists():
            return Path(candidate)
    raise MissingPrerequisite(
        "vtlab builds k6 and Toxiproxy from their official Go modules and needs Go 1.24 or newer "
        "(https://go.dev/doc/install, or `apt-get install golang`); a k6 v1+ already on PATH spares "
        "only the k6 build.")


def find_maven() -> Path:
    mvn = shutil.which("mvn")
    if mvn:
        return Path(mvn)
    raise MissingPrerequisite("vtlab builds its services with Maven 3.8+ (`apt-get install maven`).")
