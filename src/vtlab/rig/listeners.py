"""Which process listens on a TCP port of this machine, read from /proc: a user's database on loopback is a tier
whose CPU the row measures, not a neighbour's (the sampler follows the listener's process tree: PostgreSQL's
backends are its postmaster's children)."""

from __future__ import annotations

import os
from pathlib import Path

from vtlab.rig import ownership

LISTEN = "0A"  # the kernel's TCP_LISTEN in /proc/net/tcp's st column
PROC = Path("/proc")


def listening_inodes(table: str, port: int) -> set[int]:
    """The socket inodes listening on `port` in one /proc/net/tcp or tcp6 table."""
    found = set()
    for line in table.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 10 or fields[3] != LISTEN:
            continue
        local_port = int(fields[1].rsplit(":", 1)[1], 16)
        if local_port == port:
            found.add(int(fields[9]))
    return found


def listening_pid(port: int) -> int | None:
    """The oldest process holding a socket that listens on `port` (a forked server's children share its socket:
    the parent started first), or None: nothing listens, or its process is not ours to read."""
    inodes = set()
    for name in ("tcp", "tcp6"):
        try:
            inodes |= listening_inodes((PROC / "net" / name).read_text(), port)
        except OSError:
            continue
    if not inodes:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    holders = []
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            if any(os.readlink(link.path) in wanted for link in os.scandir(f"{entry.path}/fd")):
                holders.append(int(entry.name))
        except OSError:
            continue  # gone, or not ours to read
    return min(holders, default=None, key=_start_ticks)


def _start_ticks(pid: int) -> float:
    process = ownership.Process.read(pid)  # None: gone, or a zombie
    return process.start_ticks if process else float("inf")
