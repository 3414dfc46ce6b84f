"""Where a profile's time (or bytes) goes, and how two profiles differ: collapsed stacks (async-profiler's
`frame;frame;… weight` lines, root first) read from a run's profiles/ folder, each stack put in one layer of the
service, and the layers or leaf frames of two profiles compared per request.

A profile gives shares, not totals: its samples say which share of the CPU went where. The totals come from the
counters (the service's CPU per request, its bytes allocated per request), so a layer's cost per request is its
share of the profile times the counter's figure; two modes compare in those units, never in shares of totals
that differ.
"""

from __future__ import annotations

import gzip
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

Stacks = dict[tuple[str, ...], float]  # root-first frames -> weight (CPU or wall samples, bytes, ns waited)

# async-profiler marks a frame's type with a suffix (_[j] JIT-compiled, _[i] inlined, _[k] kernel, _[0]
# interpreted, _[1] C1): the same method in two tiers is one frame here.
_TYPE_SUFFIX = re.compile(r"_\[[a-z0-9]+\]$")

# The layers of a request's path, each by substrings of its frames. A stack belongs to the layer of its innermost
# frame that names one (from the leaf up): the JDBC driver's socket write is network I/O, a String.format the
# service calls is the service's code. Tried in this order at each frame; the service's own code is vtlab's
# (dev.vtlab): a user's service's code falls under the framework or "other".
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("garbage collection", ("GCTaskThread", "WorkerThread::run", "ConcurrentGCThread", "PSScavenge", "PSPromotion",
                            "ParallelScavenge", "PSParallelCompact", "G1", "ZDriver", "ZGeneration", "ZBarrier",
                            "Shenandoah", "SerialHeap", "DefNewGeneration", "MarkSweep", "SafepointSynchronize")),
    ("JIT compiler", ("CompileBroker", "C2Compiler", "Compilation::")),
    ("the profiler itself", ("Profiler::", "libasyncProfiler")),
    ("virtual-thread scheduling (mount, unmount, ForkJoinPool)",
     ("jdk/internal/vm/Continuation", "java/lang/VirtualThread", "ForkJoinPool", "ForkJoinWorkerThread",
      "Continuation::", "Freeze", "Thaw")),
    ("park and unpark (futex)", ("futex", "Unsafe.park", "Unsafe.unpark", "LockSupport.park", "LockSupport.unpark",
                                 "pthread_cond", "PlatformEvent::", "Parker::")),
    ("thread pool (Tomcat's executor)", ("ThreadPoolExecutor", "TaskQueue", "LinkedBlockingQueue")),
    ("network I/O (kernel, NIO)", ("sun/nio/ch", "java/net/Socket", "tcp_", "sock_", "__sys_sendto",
                                   "__sys_recvfrom", "epoll", "inet_", "ip_output", "ip_rcv", "ip_finish",
                                   "ip_local", "net_rx_action", "__netif", "NioEndpoint", "NioChannel",
                                   "SocketDispatcher")),
    ("PostgreSQL JDBC driver", ("org/postgresql",)),
    ("HikariCP", ("com/zaxxer/hikari",)),
    ("JSON (Jackson)", ("com/fasterxml/jackson", "tools/jackson")),
    ("HTTP client (downstream call)", ("org/springframework/web/client", "org/springframework/http/client",
                                       "jdk/internal/net/http", "java/net/http", "org/apache/hc")),
    ("the service's own code", ("dev/vtlab",)),
    # the rig's own Prometheus scrapes land here (io/prometheus writes the text), beside the meters' own upkeep
    ("logging and metrics", ("io/micrometer", "io/prometheus", "ch/qos/logback", "org/slf4j")),
    ("Spring and Tomcat (request handling)", ("org/springframework", "org/apache/catalina", "org/apache/coyote",
                                              "org/apache/tomcat", "jakarta/servlet")),
)
OTHER = "other (JVM, JDK, libc)"


def parse(lines: Iterable[str]) -> Stacks:
    """Collapsed stacks: each line's frames (type suffixes dropped) and its weight, equal stacks summed."""
    stacks: Stacks = {}
    for line in lines:
        frames, _, weight = line.rstrip("\n").rpartition(" ")
        if not frames:
            continue
        try:
            value = float(weight)
        except ValueError:
            continue
        stack = tuple(_TYPE_SUFFIX.sub("", frame) for frame in frames.split(";"))
        stacks[stack] = stacks.get(stack, 0.0) + value
    return stacks


def read(path: Path) -> Stacks:
    """A .collapsed or .collapsed.gz file."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        return parse(handle)


def merge(profiles: Iterable[Stacks]) -> Stacks:
    """Several profiles as one (a scenario's repetitions)."""
    merged: Stacks = {}
    for stacks in profiles:
        for stack, weight in stacks.items():
            merged[stack] = merged.get(stack, 0.0) + weight
    return merged


def layer_of(stack: tuple[str, ...]) -> str:
    for frame in reversed(stack):
        for layer, patterns in LAYERS:
            if any(pattern in frame for pattern in patterns):
                return layer
    return OTHER


def shares(stacks: Stacks, key=layer_of) -> dict[str, float]:
    """Each key's share of the profile's weight (layer_of by default; leaf for the leaf frames)."""
    total = sum(stacks.values())
    if total <= 0:
        return {}
    result: dict[str, float] = {}
    for stack, weight in stacks.items():
        name = key(stack)
        result[name] = result.get(name, 0.0) + weight / total
    return result


def leaf(stack: tuple[str, ...]) -> str:
    return stack[-1] if stack else OTHER


@dataclass(frozen=True)
class Difference:
    """One layer or frame in two profiles, each per request (the profile's share times the counter's total)."""
    name: str
    a: float
    b: float

    @property
    def delta(self) -> float:
        return self.b - self.a


def differences(a: Mapping[str, float], a_per_request: float, b: Mapping[str, float], b_per_request: float,
                top: int | None = None) -> list[Difference]:
    """Every name in either profile's shares, costed per request in each, the largest differences first (ties
    by name); `top` keeps the first so many."""
    found = [Difference(name, a.get(name, 0.0) * a_per_request, b.get(name, 0.0) * b_per_request)
             for name in set(a) | set(b)]
    found.sort(key=lambda d: (-abs(d.delta), d.name))
    return found[:top] if top is not None else found


def main(argv: list[str]) -> int:
    """`python -m vtlab.explain.stacks A.collapsed.gz A_PER_REQUEST B.collapsed.gz B_PER_REQUEST`: the layers of
    two profiles (of any two rows, of any two runs) per request, the largest differences first."""
    if len(argv) != 4:
        print(main.__doc__, file=sys.stderr)
        return 2
    a, b = read(Path(argv[0])), read(Path(argv[2]))
    a_total, b_total = float(argv[1]), float(argv[3])
    print(f"| layer | A | B | B − A |\n|---|---|---|---|\n| all (the counters) | {a_total:.3f} | {b_total:.3f} | "
          f"{b_total - a_total:+.3f} |")
    for d in differences(shares(a), a_total, shares(b), b_total):
        print(f"| {d.name} | {d.a:.3f} | {d.b:.3f} | {d.delta:+.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
