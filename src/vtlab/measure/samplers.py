"""Samplers that run beside the load: per-tier CPU and RSS from /proc, and the service's meters.

Samplers only record timestamped readings; the row's measurement (matrix) cuts them to the hold window
afterwards, so sampling never needs to know the load's phases.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import subprocess
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple
from pathlib import Path

from vtlab.rig import procs

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024

# Prometheus names of the meters the service exposes (Micrometer's naming of the Spring meters). A key
# lists alternatives — whichever pool the service runs (HikariCP, Agroal, R2DBC) fills the pool keys —
# and an alternative may require a label (`name{label="value"}`), e.g. the heap's memory pools only.
METERS: dict[str, tuple[str, ...]] = {
    "hikari_active": ("hikaricp_connections_active", "agroal_connections_active", "r2dbc_pool_acquired_connections"),
    "hikari_pending": ("hikaricp_connections_pending", "agroal_connections_pending", "r2dbc_pool_pending_connections"),
    "jvm_threads": ("jvm_threads_live_threads",),
    "virtual_threads": ("jvm_threads_virtual_live_threads",),  # Tomcat's own thread gauges read -1 under them
    "tomcat_connections": ("tomcat_connections_current_connections",),
    "requests_total": ("http_server_requests_seconds_count",),
    "requests_ok_total": ('http_server_requests_seconds_count{outcome="SUCCESS"}',),
    "gc_pauses": ("jvm_gc_pause_seconds_count",),
    "gc_pause_s": ("jvm_gc_pause_seconds_sum",),
    "heap_used_bytes": ('jvm_memory_used_bytes{area="heap"}',),
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
    "tomcat_threads_config": ("tomcat_threads_config_max_threads",),
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


def parse_host_interrupts(text: str) -> int:
    """irq + softirq ticks of all CPUs: mostly loopback traffic between our own tiers, charged to no process."""
    fields = text.splitlines()[0].split()
    return int(fields[6]) + int(fields[7])


def parse_rss_kb(statm: str) -> int:
    return int(statm.split()[1]) * PAGE_KB


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
                values[key] = values.get(key, 0.0) + float(match.group(3))
            except ValueError:
                continue
    return values


# --- samplers --------------------------------------------------------------------------------

@dataclass
class Series:
    """Timestamped readings: (monotonic seconds, {name: value})."""
    points: list[tuple[float, dict[str, float]]] = field(default_factory=list)

    def window(self, start: float, end: float) -> list[tuple[float, dict[str, float]]]:
        return [(t, v) for t, v in self.points if start <= t <= end]


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
    def read() -> dict[str, float]:
        table = process_table()
        host = Path("/proc/stat").read_text()
        busy, total = parse_host_stat(host)
        reading: dict[str, float] = {"host_busy": busy, "host_total": total, "host_irq": parse_host_interrupts(host)}
        if os.getpid() in table:  # the harness itself (samplers, scrapes): ours, but not a tier's
            reading["harness_ticks"] = table[os.getpid()].own  # its reaped children are tiers
        for name, pid in tiers().items():
            if pid:
                reading[f"{name}_ticks"] = sum(tree_ticks(table, one) for one in (pid if isinstance(pid, tuple)
                                                                                   else (pid,)))
        pid = tiers().get(rss_of)
        if pid:
            try:
                reading["rss_kb"] = parse_rss_kb(Path(f"/proc/{pid}/statm").read_text())
            except OSError:
                pass
        return reading
    return read


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
    "pool_borrows": ("hikaricp.connections.acquire", "COUNT", ""),
    "pool_acquire_s": ("hikaricp.connections.acquire", "TOTAL_TIME", ""),
    "pool_usage_s": ("hikaricp.connections.usage", "TOTAL_TIME", ""),
    "pool_timeouts": ("hikaricp.connections.timeout", "COUNT", ""),
    "pool_max": ("hikaricp.connections.max", "VALUE", ""),
    "tomcat_threads_config": ("tomcat.threads.config.max", "VALUE", ""),
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


# --- reduction to one row --------------------------------------------------------------------

def cpu_percent(series: Series, tier: str, start: float, end: float) -> tuple[float, float]:
    """(mean, max) CPU of one tier over the window, in % of one core (200% = two cores busy)."""
    points = [(t, v[f"{tier}_ticks"]) for t, v in series.window(start, end) if f"{tier}_ticks" in v]
    if len(points) < 2:
        return float("nan"), float("nan")
    mean = (points[-1][1] - points[0][1]) / CLOCK_TICKS / (points[-1][0] - points[0][0]) * 100
    peaks = [(b[1] - a[1]) / CLOCK_TICKS / (b[0] - a[0]) * 100
             for a, b in zip(points, points[1:], strict=False) if b[0] > a[0]]
    # Instantaneous peaks over 0.25 s are tick-quantised; smooth over 1 s windows.
    step = max(1, len(peaks) // max(1, int(points[-1][0] - points[0][0])))
    smoothed = [sum(peaks[i:i + step]) / len(peaks[i:i + step]) for i in range(0, len(peaks), step)]
    return mean, max(smoothed)


def host_percent(series: Series, start: float, end: float) -> float:
    """Mean busy share of the whole machine over the window (100% = every CPU busy)."""
    points = [v for _, v in series.window(start, end) if "host_total" in v]
    if len(points) < 2 or points[-1]["host_total"] == points[0]["host_total"]:
        return float("nan")
    return ((points[-1]["host_busy"] - points[0]["host_busy"])
            / (points[-1]["host_total"] - points[0]["host_total"]) * 100)


def foreign_percent(series: Series, tiers: Sequence[str], start: float, end: float) -> float:
    """Busy share of the whole machine (100% = every CPU) over the window that none of vtlab's tiers, nor
    the harness, used: other processes on a shared machine, and the hypervisor's steal. Interrupt time
    is left out: it is mostly the loopback traffic between our own tiers, charged to no process."""
    keys = ["host_busy", "host_total", "host_irq", "harness_ticks", *(f"{tier}_ticks" for tier in tiers)]
    points = [v for _, v in series.window(start, end) if all(key in v for key in keys)]
    if len(points) < 2 or points[-1]["host_total"] == points[0]["host_total"]:
        return float("nan")
    first, last = points[0], points[-1]
    ours = sum(last[key] - first[key] for key in keys[3:]) + last["host_irq"] - first["host_irq"]
    # The machine counts ticks per CPU and processes per thread, so the two differ by a tick's
    # rounding per thread: a few ticks below zero are our own rounding, not a negative neighbour.
    return max(0.0, (last["host_busy"] - first["host_busy"] - ours) / (last["host_total"] - first["host_total"]) * 100)


def maximum(series: Series, key: str, start: float, end: float) -> float:
    values = [v[key] for _, v in series.window(start, end) if key in v]
    return max(values) if values else float("nan")


def increase(series: Series, key: str, start: float, end: float) -> float:
    """How much a counter grew over the window (e.g. GC pauses during the hold)."""
    values = [v[key] for _, v in series.window(start, end) if key in v]
    return values[-1] - values[0] if len(values) >= 2 else float("nan")


def rate_over(series: Series, key: str, start: float, end: float) -> float:
    """A counter's growth per second between the first and the last reading inside the window."""
    points = [(t, v[key]) for t, v in series.window(start, end) if key in v]
    if len(points) < 2 or points[-1][0] <= points[0][0]:
        return float("nan")
    return (points[-1][1] - points[0][1]) / (points[-1][0] - points[0][0])


# Student's t, two-sided 95%, by degrees of freedom: a constant table, not a dependency on scipy.
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 19: 2.093, 24: 2.064, 29: 2.045}
BATCHES = 10  # enough degrees of freedom for a usable t; each batch of a 30 s hold still spans 3 s


def t_975(df: int) -> float:
    """The table's value for `df`, or for the nearest smaller df listed (a slightly wider interval)."""
    if df < 1:
        return math.nan
    return T_975[max(k for k in T_975 if k <= df)]


def batch_means(series: Series, key: str, start: float, end: float, batches: int = BATCHES) -> tuple[float, float]:
    """A counter's mean rate over the window and the 95% half-width of that mean, by batch means: the
    window cut into `batches` equal spans, the rate in each taken as one observation. Batches of
    seconds are nearly independent where single samples are not (a GC pause spans two of them)."""
    points = [(t, v[key]) for t, v in series.window(start, end) if key in v]
    batches = min(batches, (len(points) - 1) // 2)  # a short hold: fewer batches of two intervals each
    if batches < 3 or points[-1][0] <= points[0][0]:
        return math.nan, math.nan
    edges = [points[round(i * (len(points) - 1) / batches)] for i in range(batches + 1)]
    rates = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(edges, edges[1:], strict=False) if b[0] > a[0]]
    mean = (points[-1][1] - points[0][1]) / (points[-1][0] - points[0][0])
    if len(rates) < 2:
        return mean, math.nan
    spread = math.sqrt(sum((r - sum(rates) / len(rates)) ** 2 for r in rates) / (len(rates) - 1))
    return mean, t_975(len(rates) - 1) * spread / math.sqrt(len(rates))


def trend(values: Sequence[float], batches: int = BATCHES) -> tuple[float, float]:
    """How far a per-second series drifted over its whole length, as a share of its mean, and the 95%
    half-width of that drift: the least-squares slope through its batch means (seconds next to each other
    are not independent; batches of them nearly are), times the length. (nan, nan) when too short."""
    batches = min(batches, len(values) // 2)
    mean = sum(values) / len(values) if values else 0.0
    if batches < 4 or mean <= 0:
        return math.nan, math.nan
    edges = [round(i * len(values) / batches) for i in range(batches + 1)]
    points = [((a + b) / 2, sum(values[a:b]) / (b - a)) for a, b in zip(edges, edges[1:], strict=False)]
    mean_t = sum(t for t, _ in points) / len(points)
    mean_v = sum(v for _, v in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    slope = sum((t - mean_t) * (v - mean_v) for t, v in points) / spread
    residual = sum((v - mean_v - slope * (t - mean_t)) ** 2 for t, v in points) / (len(points) - 2)
    half_width = t_975(len(points) - 2) * math.sqrt(residual / spread)
    return slope * len(values) / mean, half_width * len(values) / mean


def share_positive(series: Series, key: str, start: float, end: float) -> float:
    """Share of the window's readings in which `key` was above zero (e.g. the pool had waiters)."""
    values = [v[key] for _, v in series.window(start, end) if key in v]
    return sum(1 for value in values if value > 0) / len(values) if values else float("nan")


def rate(series: Series, key: str, last_s: float = 3.0) -> float:
    """Recent per-second rate of a counter, for the live progress line."""
    points = [(t, v[key]) for t, v in series.points[-20:] if key in v]
    if len(points) < 2:
        return 0.0
    recent = [p for p in points if p[0] >= points[-1][0] - last_s] or points
    first, last = (recent[0], recent[-1]) if len(recent) > 1 else (points[-2], points[-1])
    return (last[1] - first[1]) / (last[0] - first[0]) if last[0] > first[0] else 0.0


def recent_rate(series: Series, key: str, now: float, window_s: float = 5.0) -> float:
    """A counter's rate over the last window_s seconds up to `now` (monotonic). 0 when the window holds fewer
    than two readings: a service that answers not even its own scrapes completes nothing (the stall watch
    reads it so)."""
    points = [(t, v[key]) for t, v in series.points[-4 * int(window_s) - 4:] if key in v and t >= now - window_s]
    if len(points) < 2 or points[-1][0] <= points[0][0]:
        return 0.0
    return (points[-1][1] - points[0][1]) / (points[-1][0] - points[0][0])


# --- JFR -------------------------------------------------------------------------------------

PINNED_EVENT = "jdk.VirtualThreadPinned"
NO_REASON_FIELD = "no reason recorded (JDK < 24)"


def pinned_by_reason(jfr_tool: Path, recording: Path) -> dict[str, int] | None:
    """jdk.VirtualThreadPinned events of a recording, counted by their pinnedReason; None when the
    recording is missing or unreadable (so "no pinning" and "no data" never look alike)."""
    if not recording.exists():
        return None
    result = subprocess.run([str(jfr_tool), "print", "--json", "--stack-depth", "1", "--events", PINNED_EVENT,
                             str(recording)], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    return count_reasons(result.stdout)


def count_reasons(jfr_json: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for event in json.loads(jfr_json).get("recording", {}).get("events", []):
        if event.get("type") != PINNED_EVENT:
            continue
        values = event.get("values", {})
        # JDK 21's event has no pinnedReason field (added in JDK 24 with JEP 491): say so, not "unknown"
        reason = str(values.get("pinnedReason") or "unknown") if "pinnedReason" in values else NO_REASON_FIELD
        counts[reason] = counts.get(reason, 0) + 1
    return counts


def format_reasons(counts: Mapping[str, int]) -> str:
    """'reason=count' pairs, most frequent first; ';' and '=' cannot occur in JFR's reason texts."""
    return ";".join(f"{reason}={count}" for reason, count in sorted(counts.items(), key=lambda kv: -kv[1]))


def parse_reasons(text: str) -> dict[str, int]:
    pairs = (part.rsplit("=", 1) for part in text.split(";") if "=" in part)
    return {reason: int(count) for reason, count in pairs if count.isdigit()}
