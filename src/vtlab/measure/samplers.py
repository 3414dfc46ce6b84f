"""Samplers that run beside the load: per-tier CPU and RSS from /proc, and the service's meters.

Samplers only record timestamped readings (a `series.windows.Series`); the row's measurement (measure.loop)
cuts them to the hold window afterwards with the window statistics of series.windows, so sampling never needs
to know the load's phases.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple
from pathlib import Path

from vtlab.rig import procs
from vtlab.series.windows import Series

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024

# Prometheus names of the meters the service exposes (Micrometer's naming of the Spring meters). A key
# lists alternatives — whichever pool the service runs (HikariCP, Agroal, R2DBC) fills the pool keys —
# and an alternative may require a label (`name{label="value"}`), e.g. the heap's memory pools only.
METERS: dict[str, tuple[str, ...]] = {
    "hikari_active": ("hikaricp_connections_active", "agroal_connections_active", "r2dbc_pool_acquired_connections"),
    "hikari_pending": ("hikaricp_connections_pending", "agroal_connections_pending", "r2dbc_pool_pending_connections"),
    "jvm_threads": ("jvm_threads_live_threads",),
    "virtual_threads": ("jvm_threads_virtual_live_threads",),  # Tomcat's own thread gauges read -1 under them
    # the server's open connections and its request threads' limit: Tomcat's, or Jetty's (Micrometer's Jetty binders)
    "tomcat_connections": ("tomcat_connections_current_connections", "jetty_connections_current_connections"),
    "requests_total": ("http_server_requests_seconds_count",),
    "requests_ok_total": ('http_server_requests_seconds_count{outcome="SUCCESS"}',),
    "gc_pauses": ("jvm_gc_pause_seconds_count",),
    "gc_pause_s": ("jvm_gc_pause_seconds_sum",),
    "heap_used_bytes": ('jvm_memory_used_bytes{area="heap"}',),
    # the heap's maximum as the JVM runs it (its pools' maxima summed: G1 leaves eden's and survivors' undefined, -1)
    "heap_max_bytes": ('jvm_memory_max_bytes{area="heap"}',),
    # the long-lived heap pool (the old generation) after each collection, and its maximum: what the row keeps
    # live against what it may (Micrometer's JvmGcMetrics, any Spring Boot service)
    "heap_live_bytes": ("jvm_gc_live_data_size_bytes",),
    "heap_old_max_bytes": ("jvm_gc_max_data_size_bytes",),
    # bytes allocated: vtlab's services count them exactly (HotSpot's per-thread counters, summed); any Spring Boot
    # service has Micrometer's count from GC notifications, which moves only at each young collection
    "alloc_bytes": ("jvm_allocated_bytes_total",),
    "gc_alloc_bytes": ("jvm_gc_memory_allocated_bytes_total",),
    # The pool's own exact accounting, where it keeps one (HikariCP's timers, Agroal's counters, the
    # reactive twin's TimedPool): counters whose growth over the hold gives borrows per second and, by
    # Little's law, the mean connections out and the mean waiters, however briefly each connection was held;
    # a 2 Hz sample of the gauges cannot. The twin times every wait under its outcome: its borrows are the
    # successful ones, its acquire seconds all of them (a wait that timed out was a waiter too).
    "pool_borrows": ("hikaricp_connections_acquire_seconds_count", "agroal_connections_acquire_total",
                     'r2dbc_pool_acquire_seconds_count{outcome="success"}'),
    "pool_acquire_s": ("hikaricp_connections_acquire_seconds_sum", "agroal_connections_blocking_seconds_total",
                       "r2dbc_pool_acquire_seconds_sum"),
    "pool_active_peak": ("agroal_connections_max_used",),  # Agroal's high-water mark (Hikari keeps none)
    # HikariCP records whole milliseconds; the twin nanoseconds
    "pool_usage_s": ("hikaricp_connections_usage_seconds_sum", "r2dbc_pool_usage_seconds_sum"),
    "pool_timeouts": ("hikaricp_connections_timeout_total", 'r2dbc_pool_acquire_seconds_count{outcome="timeout"}'),
    # The limits a user's service runs with, read from it rather than set by the row: its pool's size and
    # Tomcat's request threads (-1 under virtual threads: no limit).
    "pool_max": ("hikaricp_connections_max", "agroal_connections_max", "r2dbc_pool_max_allocated_size"),
    "tomcat_threads_config": ("tomcat_threads_config_max_threads", "jetty_threads_config_max"),
    # Tomcat's connection limit as the live service runs it (server.tomcat.max-connections; Micrometer's
    # TomcatMetrics, from the connector's MBean)
    "max_connections": ("tomcat_connections_config_max_connections",),
    # The downstream client's pool: connections allowed per route (-1: no limit), leased, and requests waiting for
    # one. vtlab's service reads them from whichever client it runs (vtlab.downstream.pool.*); a user's service
    # through Micrometer's Apache HttpClient 5 binder or Reactor Netty's own pool metrics, where it has them.
    "client_pool_max": ("vtlab_downstream_pool_max", "httpcomponents_httpclient_pool_route_max_default",
                        "reactor_netty_connection_provider_max_connections"),
    "client_leased": ("vtlab_downstream_pool_leased",
                      'httpcomponents_httpclient_pool_total_connections{state="leased"}',
                      "reactor_netty_connection_provider_active_connections"),
    "client_pending": ("vtlab_downstream_pool_pending", "httpcomponents_httpclient_pool_total_pending",
                       "reactor_netty_connection_provider_pending_connections"),
    # the process's open files and its limit as the JVM sees them (Micrometer's FileDescriptorMetrics): what a
    # service vtlab did not start (--url) shows of them, beside /proc's reading of one it did
    "files_open": ("process_files_open_files",),
    "files_max": ("process_files_max_files",),
    # the rig's own scrapes as vtlab's service counts them on the thread that writes each (its ScrapeCost): CPU
    # seconds, bytes allocated and scrapes, each moved once a scrape is written; a user's service has none
    "scrape_cpu_s": ("vtlab_scrape_cpu_seconds_total",),
    "scrape_bytes": ("vtlab_scrape_allocated_bytes_total",),
    "scrapes": ("vtlab_scrape_total",),
}


# --- /proc readers ---------------------------------------------------------------------------

class ProcStat(NamedTuple):
    ppid: int
    own: int      # utime + stime of the process (all its threads), in clock ticks
    reaped: int   # cutime + cstime: what its children that ended (and were waited for) used

    @property
    def total(self) -> int:
        return self.own + self.reaped


def parse_stat(text: str) -> ProcStat:
    """/proc/PID/stat's CPU fields; the command may contain spaces."""
    fields = text[text.rindex(")") + 2:].split()
    return ProcStat(int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]))


def parse_host_stat(text: str) -> tuple[int, int]:
    """(busy, total) ticks of all CPUs from the first line of /proc/stat."""
    fields = [int(x) for x in text.splitlines()[0].split()[1:9]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def parse_host_steal(text: str) -> int:
    """Ticks the hypervisor gave this machine's CPUs to another guest (steal, the eighth field)."""
    return int(text.splitlines()[0].split()[8])


def parse_host_interrupts(text: str) -> int:
    """irq + softirq ticks of all CPUs: mostly loopback traffic between our own tiers, charged to no process."""
    fields = text.splitlines()[0].split()
    return int(fields[6]) + int(fields[7])


def parse_cpu_pressure(text: str) -> int | None:
    """The µs during which at least one runnable task waited for a CPU, since boot: the `some` line's total in
    /proc/pressure/cpu (the kernel's pressure stall information). None where there is no such line (PSI off, a
    kernel before 4.20: the file is then missing or empty)."""
    for line in text.splitlines():
        fields = dict(field.split("=", 1) for field in line.split()[1:] if "=" in field)
        if line.startswith("some ") and fields.get("total", "").isdigit():
            return int(fields["total"])
    return None


def parse_rss_kb(statm: str) -> int:
    return int(statm.split()[1]) * PAGE_KB


def parse_open_files_limit(limits: str) -> float:
    """The soft limit on open files from /proc/PID/limits ("unlimited": infinity)."""
    for line in limits.splitlines():
        if line.startswith("Max open files"):
            soft = line[len("Max open files"):].split()[0]
            return math.inf if soft == "unlimited" else float(soft)
    return math.nan


def parse_listen_overflows(netstat: str) -> int | None:
    """The kernel's count of connections dropped because a listening socket's accept queue was full
    (TcpExt ListenOverflows in /proc/net/netstat: a header line of names, then one of values)."""
    lines = [line.split() for line in netstat.splitlines() if line.startswith("TcpExt:")]
    if len(lines) < 2 or "ListenOverflows" not in lines[0]:
        return None
    return int(lines[1][lines[0].index("ListenOverflows")])


def process_table(proc: Path = Path("/proc")) -> dict[int, ProcStat]:
    """pid -> its parent and CPU ticks, for every readable process."""
    table: dict[int, ProcStat] = {}
    for entry in proc.iterdir():
        if entry.name.isdigit():
            try:
                table[int(entry.name)] = parse_stat((entry / "stat").read_text())
            except (OSError, ValueError, IndexError):
                continue  # exited between listing and reading
    return table


KERNEL_THREADS = 2  # kthreadd: the parent of every kernel thread


def others_ticks(table: Mapping[int, ProcStat], ours: Sequence[int]) -> int:
    """CPU ticks of every user-space process outside the trees rooted at `ours`: the neighbours. Kernel threads
    are left out: they work for every process, the tiers' loopback traffic and PostgreSQL's writes among it. So is
    what the kernel spent charged to no process: the rows' own work, never a neighbour's. (Read as the machine's
    busy time no tier used, a 30 req/s row showed 5–12% "neighbours" that were the hypervisor's steal, which
    host_steal now names apart.)"""
    mine = tree_pids(table, ours)
    return sum(stat.total for pid, stat in table.items()
               if pid not in mine and pid != KERNEL_THREADS and stat.ppid != KERNEL_THREADS)


def tree_pids(table: Mapping[int, ProcStat], roots: Sequence[int]) -> set[int]:
    """The processes of the trees rooted at `roots`."""
    children: dict[int, list[int]] = {}
    for pid, stat in table.items():
        children.setdefault(stat.ppid, []).append(pid)
    found: set[int] = set()
    stack = [root for root in roots if root in table]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(children.get(pid, []))
    return found


def tree_ticks(table: Mapping[int, ProcStat], root: int) -> int:
    """CPU ticks of `root` and all its descendants, those that ended during the window included: an ended
    child's ticks move into its parent's `reaped` the moment it is waited for (a PostgreSQL backend into
    the postmaster's), so the tree's total never drops when one of its processes exits."""
    children: dict[int, list[int]] = {}
    for pid, stat in table.items():
        children.setdefault(stat.ppid, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        if pid in table:
            total += table[pid].total
        stack.extend(children.get(pid, []))
    return total


# name, optional {labels} (quoted values may hold braces, e.g. uri="/api/x/{id}"), value
_SAMPLE_LINE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})?\s+(\S+)')


def parse_prometheus(text: str, wanted: Mapping[str, tuple[str, ...]] = METERS) -> dict[str, float]:
    """Sum each wanted meter over its label sets (e.g. all pools, all status codes)."""
    by_name: dict[str, list[tuple[str, str]]] = {}
    for key, alternatives in wanted.items():
        for spec in alternatives:
            name, _, label = spec.partition("{")
            by_name.setdefault(name, []).append((key, label.rstrip("}")))
    values: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        match = _SAMPLE_LINE.match(line)
        if not match or match.group(1) not in by_name:
            continue
        labels = match.group(2) or ""
        if match.group(1) == METERS["requests_total"][0] and 'uri="/actuator' in labels:
            continue  # our own scrapes are not load
        for key, label in by_name[match.group(1)]:
            if label and label not in labels:
                continue
            try:
                value = float(match.group(3))
            except ValueError:
                continue
            if not math.isnan(value):  # a gauge the service cannot read (NaN) is not measured, never summed in
                values[key] = values.get(key, 0.0) + value
    return values


# --- samplers --------------------------------------------------------------------------------

class Sampler(threading.Thread):
    def __init__(self, interval_s: float, read: Callable[[], dict[str, float] | None]):
        super().__init__(daemon=True)
        self.interval_s = interval_s
        self.read = read
        self.series = Series()
        self._stop_event = threading.Event()

    def run(self) -> None:
        next_at = time.monotonic()
        while not self._stop_event.is_set():
            now = time.monotonic()
            try:
                reading = self.read()
            except Exception:  # a failed read is a missing sample, counted later, not a crash
                reading = None
            if reading is not None:
                self.series.points.append((now, reading))
            next_at += self.interval_s
            self._stop_event.wait(max(0.0, next_at - time.monotonic()))

    def stop(self) -> Series:
        self._stop_event.set()
        self.join(timeout=10)
        return self.series


def cpu_reader(tiers: Callable[[], Mapping[str, int | tuple[int, ...] | None]], rss_of: str = "app"
               ) -> Callable[[], dict[str, float]]:
    """Cumulative CPU ticks per tier's process tree (or trees: a tier of several processes, like k6's runners),
    plus the RSS of one tier's root."""
    limits: dict[int, float] = {}

    def read() -> dict[str, float]:
        table = process_table()
        host = Path("/proc/stat").read_text()
        busy, total = parse_host_stat(host)
        reading: dict[str, float] = {"host_busy": busy, "host_total": total, "host_irq": parse_host_interrupts(host),
                                     "host_steal": parse_host_steal(host)}
        if os.getpid() in table:  # the harness itself (samplers, scrapes): ours, but not a tier's
            # with the helpers it ran and waited for (the profiler's launcher attaching at the hold's start, jcmd):
            # the rig's own cost, never a neighbour's. A tier is reaped only once it ended, after the hold.
            reading["harness_ticks"] = table[os.getpid()].total
        roots = [os.getpid()]
        for name, pid in tiers().items():
            if pid:
                ones = pid if isinstance(pid, tuple) else (pid,)
                reading[f"{name}_ticks"] = sum(tree_ticks(table, one) for one in ones)
                roots.extend(ones)
        reading["others_ticks"] = others_ticks(table, roots)
        # host-wide too: on shared cores a request's latency queues for a CPU well before the host reads full
        pressure = parse_cpu_pressure(_read("/proc/pressure/cpu"))
        if pressure is not None:
            reading["cpu_pressure_us"] = pressure
        overflows = parse_listen_overflows(_read("/proc/net/netstat"))
        if overflows is not None:  # host-wide, but on loopback only the tiers listen for the load
            reading["listen_overflows"] = overflows
        pid = tiers().get(rss_of)
        if pid:
            try:
                reading["rss_kb"] = parse_rss_kb(Path(f"/proc/{pid}/statm").read_text())
                # the service's sockets, files and pipes against its limit: each user holds a connection in, and
                # each downstream call one out, for the whole of the request
                reading["open_files"] = len(os.listdir(f"/proc/{pid}/fd"))
                if pid not in limits:  # set when the process started: read once
                    limits[pid] = parse_open_files_limit(Path(f"/proc/{pid}/limits").read_text())
                reading["open_files_limit"] = limits[pid]
            except OSError:
                pass
        return reading
    return read


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def meters_reader(url: str) -> Callable[[], dict[str, float] | None]:
    def read() -> dict[str, float] | None:
        status, body = procs.http_get(url, timeout=2)
        return parse_prometheus(body.decode()) if status == 200 else None
    return read


# The same meters through the actuator's own metrics endpoint (/actuator/metrics/{name}), for a service with the
# actuator but no Prometheus registry: (metric, statistic, tag). The request counter is left out: there it also
# counts the rig's own requests to this endpoint, ~30 a second, and no tag filter can take them out.
ACTUATOR_METERS: dict[str, tuple[str, str, str]] = {
    "hikari_active": ("hikaricp.connections.active", "VALUE", ""),
    "hikari_pending": ("hikaricp.connections.pending", "VALUE", ""),
    "jvm_threads": ("jvm.threads.live", "VALUE", ""),
    "virtual_threads": ("jvm.threads.virtual.live", "VALUE", ""),
    "tomcat_connections": ("tomcat.connections.current", "VALUE", ""),
    "gc_pauses": ("jvm.gc.pause", "COUNT", ""),
    "gc_pause_s": ("jvm.gc.pause", "TOTAL_TIME", ""),
    "heap_used_bytes": ("jvm.memory.used", "VALUE", "area:heap"),
    "heap_live_bytes": ("jvm.gc.live.data.size", "VALUE", ""),
    "heap_old_max_bytes": ("jvm.gc.max.data.size", "VALUE", ""),
    "alloc_bytes": ("jvm.allocated", "COUNT", ""),
    "gc_alloc_bytes": ("jvm.gc.memory.allocated", "COUNT", ""),
    "pool_borrows": ("hikaricp.connections.acquire", "COUNT", ""),
    "pool_acquire_s": ("hikaricp.connections.acquire", "TOTAL_TIME", ""),
    "pool_usage_s": ("hikaricp.connections.usage", "TOTAL_TIME", ""),
    "pool_timeouts": ("hikaricp.connections.timeout", "COUNT", ""),
    "pool_max": ("hikaricp.connections.max", "VALUE", ""),
    "tomcat_threads_config": ("tomcat.threads.config.max", "VALUE", ""),
    "max_connections": ("tomcat.connections.config.max", "VALUE", ""),
    "files_open": ("process.files.open", "VALUE", ""),
    "files_max": ("process.files.max", "VALUE", ""),
}


def actuator_reader(metrics_url: str) -> Callable[[], dict[str, float] | None]:
    """Meters read one by one from the actuator's metrics endpoint (`…/actuator/metrics`); a meter the service
    does not have (404) is left out of the reading, never filled in."""
    parsed = urllib.parse.urlsplit(metrics_url)

    def read() -> dict[str, float] | None:
        values: dict[str, float] = {}
        # one keep-alive connection for the whole reading: 14 new connections twice a second would cost the
        # service more than the meters are worth
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=2)
        try:
            for key, (name, statistic, tag) in ACTUATOR_METERS.items():
                connection.request("GET", f"{parsed.path}/{name}" + (f"?tag={tag}" if tag else ""))
                response = connection.getresponse()
                body = response.read()
                if response.status != 200:
                    continue
                found = [m["value"] for m in json.loads(body).get("measurements", [])
                         if m.get("statistic") == statistic]
                if found:
                    values[key] = float(found[0])
        finally:
            connection.close()
        return values or None
    return read

