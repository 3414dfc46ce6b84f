"""Every second of a row, drawn: its kept series (series/store.py) as one table per second — requests, latency,
each tier's CPU, memory, GC, threads, the pool — and as small panels on one time axis with the phases
shaded and each second's values on hover. The SVG is drawn here by hand (an SVG <title> per second and
panel makes the hover), so the report stays one self-contained file with no script and nothing fetched.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple
from pathlib import Path

from vtlab.series import store, windows
from vtlab.core import shapes
from vtlab.core.measures import given
from vtlab.results.rows import MeasuredRow

# name: (panel, label, colour); the panels in the order drawn, each with its title and scale.
LINES = {
    "ok": ("requests", "successful/s", "#1e8449"), "failed": ("requests", "failed/s", "#c0392b"),
    "p50_ms": ("latency", "p50", "#2874a6"), "p99_ms": ("latency", "p99", "#af601a"),
    "max_ms": ("latency", "max", "#7d3c98"),
    "app_cpu": ("cpu", "service", "#c0392b"), "pg_cpu": ("cpu", "PostgreSQL", "#2874a6"),
    "stub_cpu": ("cpu", "stub", "#7d3c98"), "load_cpu": ("cpu", "k6", "#1e8449"),
    "proxy_cpu": ("cpu", "proxy", "#808b96"),
    "rss_mb": ("memory", "RSS", "#c0392b"), "heap_mb": ("memory", "heap used", "#2874a6"),
    "gc_pause_ms": ("gc", "GC pause ms/s", "#7d3c98"),
    "jvm_threads": ("threads", "JVM threads", "#c0392b"), "virtual_threads": ("threads", "virtual threads", "#2874a6"),
    "vus": ("threads", "k6 users", "#808b96"),
    "pool_active": ("pool", "connections out", "#c0392b"), "pool_pending": ("pool", "waiting", "#2874a6"),
    "tomcat_connections": ("pool", "Tomcat connections", "#808b96"),
}
PANELS = (("requests", "requests / s", False), ("latency", "latency ms (log)", True),
          ("cpu", "CPU % (100 = one core)", False), ("memory", "memory MB", False), ("gc", "GC pause ms per s", False),
          ("threads", "threads and users", False), ("pool", "pool and connections", False))
PHASE_COLOURS = {"ramp": "#fdebd0", "warm-up": "#fef9e7", "hold": "#e8f8f5", "cool-down": "#f4f6f7",
                 "spike": "#f5b7b1"}
TIERS = ("app", "pg", "stub", "load", "proxy")


class Seconds(NamedTuple):
    per_second: list[dict[str, float]]  # one dict per second since k6 started: t_s and every LINES key measured
    hold_start_s: float                 # when k6's hold began on the same clock


def seconds_of(series_dir: Path, slug: str, planned_hold_start_s: float = 0.0) -> Seconds | None:
    """The row's seconds, or None without series."""
    k6_file, samples_file = store.k6_path(series_dir, slug), store.samples_path(series_dir, slug)
    if not (k6_file.exists() and samples_file.exists()):
        return None
    cpu, meters, origin_unix_s = store.read_samples(samples_file)
    k6 = store.read_k6(k6_file, store.k6_start_unix_s(k6_file) - origin_unix_s)
    table: dict[int, dict[str, float]] = {line["t_s"]: dict(line) for line in store.per_second(k6)}
    for second, values in _cpu_per_second(cpu).items():
        table.setdefault(second, {"t_s": second}).update(values)
    for second, values in _meters_per_second(meters).items():
        table.setdefault(second, {"t_s": second}).update(values)
    return Seconds([table[second] for second in sorted(table) if second >= 0],
                   store.hold_start_s(k6, planned_hold_start_s))


def _cpu_per_second(cpu: windows.Series) -> dict[int, dict[str, float]]:
    """Each tier's CPU between consecutive readings, averaged per second; the service's RSS."""
    out: dict[int, dict[str, list[float]]] = {}
    for (t0, a), (t1, b) in zip(cpu.points, cpu.points[1:], strict=False):
        if t1 <= t0:
            continue
        bucket = out.setdefault(math.floor(t1), {})
        for tier in TIERS:
            key = f"{tier}_ticks"
            if key in a and key in b:
                bucket.setdefault(f"{tier}_cpu", []).append((b[key] - a[key]) / windows.CLOCK_TICKS / (t1 - t0) * 100)
        if "rss_kb" in b:
            bucket.setdefault("rss_mb", []).append(b["rss_kb"] / 1024)
    return {second: {name: sum(values) / len(values) for name, values in bucket.items()}
            for second, bucket in out.items()}


GAUGES = {"heap_used_bytes": ("heap_mb", 1 / 2**20), "jvm_threads": ("jvm_threads", 1),
          "virtual_threads": ("virtual_threads", 1), "hikari_active": ("pool_active", 1),
          "hikari_pending": ("pool_pending", 1), "tomcat_connections": ("tomcat_connections", 1)}


def _meters_per_second(meters: windows.Series) -> dict[int, dict[str, float]]:
    """The service's gauges (the last scrape in each second) and its GC pause time per second."""
    out: dict[int, dict[str, float]] = {}
    previous: tuple[float, dict[str, float]] | None = None
    for t, reading in meters.points:
        bucket = out.setdefault(math.floor(t), {})
        for meter, (name, scale) in GAUGES.items():
            if meter in reading:
                bucket[name] = reading[meter] * scale
        if previous and "gc_pause_s" in reading and "gc_pause_s" in previous[1] and t > previous[0]:
            paused_ms = (reading["gc_pause_s"] - previous[1]["gc_pause_s"]) * 1000
            bucket["gc_pause_ms"] = bucket.get("gc_pause_ms", 0.0) + paused_ms
        previous = (t, reading)
    return out


def phases(row: MeasuredRow, hold_start_s: float | None = None) -> list[tuple[str, float, float]]:
    """The row's phases on the series' clock, from its recorded lengths; all of them later by as much as k6's
    hold began after its planned moment (`hold_start_s`, when known: k6 counts from its own start)."""
    ramp, warmup, hold, cooldown = (given(row.ramp_s, 0.0), given(row.warmup_s, 0.0), given(row.hold_s, 0.0),
                                    given(row.cooldown_s, 0.0))
    late = hold_start_s - (ramp + warmup) if hold_start_s is not None else 0.0
    edges = [late + edge for edge in (0.0, ramp, ramp + warmup, ramp + warmup + hold, ramp + warmup + hold + cooldown)]
    spans = [(name, a, b) for name, a, b in zip(PHASE_COLOURS, edges, edges[1:], strict=False) if b > a]
    if row.shape == "spike":
        start, end = shapes.from_row(row).spike_window(hold)
        spans.append(("spike", edges[2] + start, edges[2] + end))
    return spans


WIDTH, LEFT, RIGHT, PANEL_H, GAP = 760, 150, 12, 70, 26
MODE_COLOURS = {"platform": "#c0392b", "virtual": "#2874a6", "webflux": "#1e8449"}
# what the overlay of a scenario's thread modes compares, second by second
OVERLAID = (("ok", "successful / s", False), ("p99_ms", "p99 ms (log)", True), ("app_cpu", "service CPU %", False),
            ("rss_mb", "service RSS MB", False), ("jvm_threads", "JVM threads", False))


@dataclass(frozen=True)
class Line:
    label: str
    colour: str
    values: dict[int, float]  # second -> value; seconds without a value are gaps


@dataclass(frozen=True)
class Panel:
    heading: str
    log: bool
    lines: tuple[Line, ...]


def svg(seconds: Sequence[Mapping[str, float]], phase_spans: Sequence[tuple[str, float, float]], title: str) -> str:
    """One row's panels; a panel with nothing measured is left out."""
    panels = [Panel(heading, log, tuple(Line(LINES[name][1], LINES[name][2], _values(seconds, name, log))
                                        for name in LINES if LINES[name][0] == key))
              for key, heading, log in PANELS]
    return draw(panels, phase_spans, title)


def overlay_svg(by_mode: Mapping[str, Sequence[Mapping[str, float]]],
                phase_spans: Sequence[tuple[str, float, float]], title: str) -> str:
    """A scenario's thread modes on the same axes, second by second (their phases are the same plan's)."""
    panels = [Panel(heading, log, tuple(Line(mode, MODE_COLOURS.get(mode, "#808b96"), _values(seconds, name, log))
                                        for mode, seconds in by_mode.items()))
              for name, heading, log in OVERLAID]
    return draw(panels, phase_spans, title)


def _values(seconds: Sequence[Mapping[str, float]], name: str, log: bool) -> dict[int, float]:
    return {int(s["t_s"]): s[name] for s in seconds if not _missing(s.get(name)) and (s[name] > 0 or not log)}


def draw(panels: Sequence[Panel], phase_spans: Sequence[tuple[str, float, float]], title: str) -> str:
    """Panels on one time axis, the phases shaded, each second's values on hover (an SVG <title> per second
    and panel); a panel none of whose lines has a value is left out."""
    drawn = [panel for panel in panels if any(line.values for line in panel.lines)]
    if not drawn:
        return ""
    t_max = max(max(t for panel in drawn for line in panel.lines for t in line.values) + 1,
                max((b for _, _, b in phase_spans), default=0))
    height = 30 + len(drawn) * (PANEL_H + GAP) + 20
    plot_w = WIDTH - LEFT - RIGHT

    def x(t: float) -> float:
        return LEFT + t / t_max * plot_w

    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' class='timeline' viewBox='0 0 {WIDTH} {height}' "
             f"width='{WIDTH}' height='{height}' font-family='system-ui, sans-serif' font-size='10'>",
             f"<text x='{LEFT}' y='14' font-size='12' font-weight='600'>{html.escape(title)}</text>"]
    for index, panel in enumerate(drawn):
        top = 30 + index * (PANEL_H + GAP)
        low, high = _range([v for line in panel.lines for v in line.values.values()], panel.log)

        def y(v: float, low: float = low, high: float = high, log: bool = panel.log, top: float = top) -> float:
            scaled = (math.log10(v) - math.log10(low)) / (math.log10(high) - math.log10(low)) if log else \
                (v - low) / (high - low)
            return top + PANEL_H - max(0.0, min(1.0, scaled)) * PANEL_H

        for name, a, b in phase_spans:
            parts.append(f"<rect x='{x(a):.1f}' y='{top}' width='{x(b) - x(a):.1f}' height='{PANEL_H}' "
                         f"fill='{PHASE_COLOURS[name]}'><title>{name}: {a:g}–{b:g} s</title></rect>")
        parts.append(f"<rect x='{LEFT}' y='{top}' width='{plot_w}' height='{PANEL_H}' fill='none' stroke='#aab7b8'/>")
        parts.append(f"<text x='{LEFT - 6}' y='{top + 10}' text-anchor='end' font-weight='600'>"
                     f"{html.escape(panel.heading)}</text>")
        parts.append(f"<text x='{LEFT - 6}' y='{top + 22}' text-anchor='end' fill='#566573'>{_tick(high)}</text>")
        parts.append(f"<text x='{LEFT - 6}' y='{top + PANEL_H}' text-anchor='end' fill='#566573'>{_tick(low)}</text>")
        legend_y = top + 34
        for line in panel.lines:
            if not line.values:
                continue
            parts.append(f"<polyline fill='none' stroke='{line.colour}' stroke-width='1.3' points='"
                         + " ".join(f"{x(t + 0.5):.1f},{y(v):.1f}" for t, v in sorted(line.values.items()))
                         + "'/>")
            parts.append(f"<text x='{LEFT - 6}' y='{legend_y}' text-anchor='end' fill='{line.colour}'>"
                         f"{html.escape(line.label)}</text>")
            legend_y += 11
        # hover: one transparent column per second carrying that second's values
        width = max(plot_w / t_max, 0.5)
        for t in sorted({t for line in panel.lines for t in line.values}):
            text = f"{t:g}–{t + 1:g} s: " + ", ".join(
                f"{line.label} {_tick(line.values[t])}" for line in panel.lines if t in line.values)
            parts.append(f"<rect class='hover' x='{x(t):.1f}' y='{top}' width='{width:.2f}' "
                         f"height='{PANEL_H}' fill='transparent'><title>{html.escape(text)}</title></rect>")
    axis_y = 30 + len(drawn) * (PANEL_H + GAP) - GAP + 14
    for t in range(0, int(t_max) + 1, _step(t_max)):
        parts.append(f"<text x='{x(t):.1f}' y='{axis_y}' text-anchor='middle' fill='#566573'>{t} s</text>")
    parts.append("</svg>")
    return "".join(parts)


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _range(values: Sequence[float], log: bool) -> tuple[float, float]:
    if not values:
        return (1.0, 10.0) if log else (0.0, 1.0)
    if log:
        low, high = min(values), max(values)
        return low / 1.2, high * 1.2 if high > low else low * 10
    high = max(values)
    return 0.0, high * 1.1 if high > 0 else 1.0


def _tick(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 10 else f"{value:.2g}"


def _step(t_max: float) -> int:
    return next(step for step in (5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600) if t_max / step <= 10)
