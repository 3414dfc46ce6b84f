"""The libraries of a user's jar that decide whether its blocking pins a virtual thread's carrier on JDK 21–23: the
JDBC drivers, the connection pool and the HTTP client a Spring Boot service carries in BOOT-INF/lib, each with the
first version whose own release notes say it replaced `synchronized` around its I/O (docs/your-service.md cites them).
JDK 24 and later let a virtual thread park holding a monitor (JEP 491), so there none of them pins for that reason."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    artifact: str                 # the jar's file name before its version
    what: str                     # the library in words
    packages: tuple[str, ...]     # its classes' packages: a pinned frame in one of them is the library's
    friendly_from: str            # the first version that replaced its synchronized around I/O; "": none has
    source: str                   # where its project says so


_PGJDBC = "pgjdbc 42.6.0's release notes (2023-03-17: synchronized replaced with ReentrantLock, PR #2635)"
_CONNECTOR_J = "Connector/J 9.0.0's release notes (2024-07-01: synchronized blocks replaced with ReentrantLocks)"
KNOWN = (
    Known("postgresql", "PostgreSQL's JDBC driver", ("org.postgresql.",), "42.6.0", _PGJDBC),
    Known("mysql-connector-j", "MySQL Connector/J", ("com.mysql.",), "9.0.0", _CONNECTOR_J),
    Known("mysql-connector-java", "MySQL Connector/J", ("com.mysql.",), "9.0.0", _CONNECTOR_J),
    Known("mariadb-java-client", "MariaDB Connector/J", ("org.mariadb.",), "3.3.0",
          "MariaDB Connector/J 3.3.0's changelog (2023-11-08: CONJ-1115, virtual-thread friendly)"),
    Known("HikariCP", "HikariCP", ("com.zaxxer.hikari.",), "",
          "HikariCP's pull requests #2027 and #2055 (replacing its synchronized), closed unmerged"),
    Known("httpclient5", "Apache HttpClient 5", ("org.apache.hc.client5.",), "5.4",
          "HttpClient 5.4's release series (HTTPCLIENT-2290, fixed in 5.4-alpha1: its synchronized replaced by locks)"),
)
BY_ARTIFACT = {known.artifact: known for known in KNOWN}

# BOOT-INF/lib/<artifact>-<version>.jar; a version begins with a digit (spring-boot-3.5.7.jar, postgresql-42.7.8.jar)
_LIB = re.compile(r"^BOOT-INF/lib/(?P<artifact>.+?)-(?P<version>\d[^/]*)\.jar$")


def in_jar(names: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(artifact, version) of every KNOWN library among a jar's entry names, in KNOWN's order."""
    found = {}
    for name in names:
        match = _LIB.match(name)
        if match and match["artifact"] in BY_ARTIFACT:
            found[match["artifact"]] = match["version"]
    return tuple((known.artifact, found[known.artifact]) for known in KNOWN if known.artifact in found)


def version_key(version: str) -> tuple[int, ...]:
    """A version's leading numbers for comparing, trailing zeros aside ("9.0" = "9.0.0" < "42.6.0" < "42.10.1"); what
    follows them (a qualifier such as "-alpha1" or ".jre7") is not compared."""
    leading = re.match(r"\d+(?:\.\d+)*", version)
    numbers = [int(part) for part in leading.group(0).split(".")] if leading else []
    while numbers and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)
