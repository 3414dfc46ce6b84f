"""What differs between two runs' environments, told before any number: a comparison across machines, JDKs or JVM
options measures those too."""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from vtlab.results.record import RunRecord

# (what, where in the record) in the order a reader weighs them: the machine first
FACTS = (
    ("host CPU", lambda r: r.host.get("cpu_model")),
    ("host CPUs", lambda r: r.cpu_count or r.host.get("cpu_count")),
    ("CPUs available", lambda r: r.cpus_available),
    ("memory GiB", lambda r: r.host.get("memory_gib")),
    ("kernel", lambda r: r.host.get("kernel")),
    ("core map", lambda r: r.core_map),
    ("service JDK", lambda r: _service(r).get("jdkVersion")),
    ("Spring Boot", lambda r: _service(r).get("springBootVersion")),
    ("JDBC pool", lambda r: " ".join(str(v) for v in (_pool(r).get("implementation"), _pool(r).get("version")) if v)),
    ("JVM options", lambda r: " | ".join(shlex.join(options) for options in r.plan.jvm_opts) if r.plan else ""),
    ("k6", lambda r: r.versions.get("k6")),
    ("rig JDK", lambda r: r.versions.get("java")),
    ("vtlab commit", lambda r: r.versions.get("vtlab_commit")),
)
MACHINE = ("host CPU", "host CPUs", "CPUs available", "memory GiB", "kernel")


def _service(run: RunRecord) -> Mapping[str, object]:
    return run.service or {}


def _pool(run: RunRecord) -> Mapping[str, object]:
    pool = _service(run).get("pool")
    return pool if isinstance(pool, Mapping) else {}


def differences(base: RunRecord, new: RunRecord) -> list[tuple[str, str, str]]:
    """(fact, base's, new's) for every recorded fact the two runs do not share; a fact one run lacks is '-'."""
    found = []
    for name, read in FACTS:
        a, b = _text(read(base)), _text(read(new))
        if a != b:
            found.append((name, a, b))
    return found


def headline(base: RunRecord, new: RunRecord) -> str:
    """The comparison's first line: whether the runs share a machine, and what else differs."""
    found = differences(base, new)
    machine = [name for name, _, _ in found if name in MACHINE]
    others = [name for name, _, _ in found if name not in MACHINE]
    if machine:
        head = f"ACROSS MACHINES ({', '.join(machine)} differ): every change below includes the machine's"
    else:
        head = "Same machine"
    return head + (f"; also different: {', '.join(others)}" if others else "; same environment")


def _text(value: object) -> str:
    return "-" if value in (None, "", 0) else str(value)
