"""The JIT's own progress, read from HotSpot's performance counters: the memory-mapped file every HotSpot JVM
keeps at /tmp/hsperfdata_<user>/<pid> (unless started with -XX:-UsePerfData), the one `jcmd PerfCounter.print`
and jstat read. Reading the file attaches nothing to the JVM and costs it nothing, so it serves vtlab's service
and a user's jar alike, every second of a warm-up.

What the warm-up reads (measure.settle): `java.ci.totalTime`, the time the compiler threads spent compiling so
far, in ticks of `sun.os.hrt.frequency` a second, and `sun.ci.totalCompiles`, the methods compiled so far. The
layout read here is HotSpot's perfMemory.hpp (a prologue, then entries of a header, a name and a value)."""

from __future__ import annotations

import getpass
import struct
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"\xca\xfe\xc0\xc0"  # the prologue's first four bytes, in this order whatever the byte order
PROLOGUE = 32                 # magic, byte order, versions, accessible, used, overflow, time stamp, entries
ENTRY_HEADER = 20             # length, name offset, vector length, type, flags, units, variability, data offset
LONG = ord("J")               # a jlong counter (or a vector of them)
BYTE = ord("B")               # a byte vector: a string counter

COMPILE_TIME = "java.ci.totalTime"
COMPILES = "sun.ci.totalCompiles"
TICKS_PER_S = "sun.os.hrt.frequency"


def path_of(pid: int, user: str | None = None, tmp: Path = Path("/tmp")) -> Path:
    """Where the JVM `pid`, run by `user` (this process's own by default), keeps its counters."""
    return tmp / f"hsperfdata_{user or getpass.getuser()}" / str(pid)


def parse(data: bytes) -> dict[str, int | str]:
    """Every scalar counter of a perfdata file: jlongs as ints, byte vectors as strings. ValueError when the
    bytes are not a perfdata file (or are cut short)."""
    if len(data) < PROLOGUE or data[:4] != MAGIC:
        raise ValueError("not a HotSpot perfdata file")
    order = "<" if data[4] == 1 else ">"
    entry_offset, entries = struct.unpack_from(order + "ii", data, 24)
    counters: dict[str, int | str] = {}
    at = entry_offset
    for _ in range(entries):
        if at + ENTRY_HEADER > len(data):
            raise ValueError("perfdata cut short")
        length, name_offset, vector_length, kind, _flags, _units, _variability, data_offset = struct.unpack_from(
            order + "iiibbbbi", data, at)
        if length <= 0:
            raise ValueError("perfdata entry of no length")
        name_start = at + name_offset
        name = data[name_start:data.index(b"\0", name_start)].decode("ascii", "replace")
        value_at = at + data_offset
        if kind == LONG and vector_length == 0:
            counters[name] = struct.unpack_from(order + "q", data, value_at)[0]
        elif kind == BYTE and vector_length > 0:
            raw = data[value_at:value_at + vector_length]
            counters[name] = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
        at += length
    return counters


@dataclass(frozen=True)
class Compilation:
    """The JIT's progress so far: seconds its compiler threads spent compiling (summed over them) and methods
    compiled."""
    seconds: float
    compiles: int


def compilation(path: Path) -> Compilation | None:
    """The JIT's progress as the JVM's counters say it now; None when the file is missing, unreadable or lacks the
    counters (a JVM without perf data, or one not HotSpot)."""
    try:
        counters = parse(path.read_bytes())
    except (OSError, ValueError, struct.error):
        return None
    ticks, per_s, compiles = (counters.get(name) for name in (COMPILE_TIME, TICKS_PER_S, COMPILES))
    if not isinstance(ticks, int) or not isinstance(per_s, int) or per_s <= 0 or not isinstance(compiles, int):
        return None
    return Compilation(ticks / per_s, compiles)
