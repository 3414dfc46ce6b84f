"""The report's figures, drawn with matplotlib and returned as inline SVG with their data series
(so tests check what is plotted, not pixels)."""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "vtlab"  # SVG ids from a fixed salt, not a random one: same run, same file
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

from vtlab.core import dimensions  # noqa: E402
from vtlab.core.measures import given  # noqa: E402
from vtlab.results.compare import Source  # noqa: E402
from vtlab.results.rows import MeasuredRow  # noqa: E402
from vtlab.explain.facts import cpu_tiers  # noqa: E402
from vtlab.explain.model import Aggregate, PairedPoint  # noqa: E402
from vtlab.report import loadaxis  # noqa: E402
from vtlab.report.hostspeed import BIN_S, Strip  # noqa: E402

COLORS = {"platform": "#c0392b", "virtual": "#2471a3", "webflux": "#229954"}
TIER_COLORS = {"app": "#2471a3", "pg": "#7d3c98", "stub": "#229954", "load": "#d68910", "proxy": "#7f8c8d"}
# What a scenario chart can draw: the section's data names the two series ("draw"), bars then points.
SCENARIO_AXES = {"throughput_rps": "successful requests / s", "p99_ms": "p99 latency (ms), ◆",
                 "p50_ms": "median latency (ms), ◆", "rss_mb_max": "RSS max (MB)",
                 "gc_pause_ms": "GC pause in the hold (ms), ◆",
                 "probe_rss_mb": "RSS, every user waiting (MB)",
                 "probe_heap_live_mb": "live heap after a full GC (MB), ◆"}
OVERLAY_MARKERS = ["s", "^", "D", "v", "P", "X"]

Series = dict[str, list[float]]


def svg(fig) -> str:
    """The figure as inline SVG, closed (compare.html draws its own with it too); its load axes' labels thinned where
    they would overprint (readable_loads)."""
    loadaxis.readable_loads(fig)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    # matplotlib's RDF block names namespaces by URL and stamps the date: neither belongs in a report
    # that must be self-contained and re-render identically
    return re.sub(r"<metadata>.*?</metadata>", "", text[text.index("<svg"):], flags=re.S)


def _f(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def _log_if_wide(ax, values: Sequence[float], axis: str = "x") -> None:
    finite = [v for v in values if v > 0 and not math.isnan(v)]
    if finite and max(finite) / min(finite) >= 10:
        (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
        if axis == "y":
            _plain_log(ax)


def _plain_log(ax) -> None:
    """A log y axis read as numbers at 1, 2 and 5 of each decade ("200, 500, 1,000"), not as "10²"."""
    ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda value, _: loadaxis.number(value)))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def offered_rate(ax, loads: Sequence[float]) -> list[float]:
    """The offered rate, y = x, drawn through every load from the least to the most, with enough points between that
    it is y = x on a log axis too (two end points joined by a straight segment bow far above the points there); its
    x values."""
    finite = sorted({v for v in loads if v > 0 and not math.isnan(v)})
    if not finite:
        return []
    low, high = finite[0], finite[-1]
    between = [low * (high / low) ** (i / OFFERED_STEPS) for i in range(OFFERED_STEPS + 1)] if high > low else []
    xs = sorted({*finite, *between})
    ax.plot(xs, xs, color="grey", linestyle=":", label="offered rate")
    return xs


# The offered rate's points between its ends: each ~1/64 of the span's logarithm apart, a straight line to the eye.
OFFERED_STEPS = 64


def hero(aggregates: Sequence[Aggregate], others: Sequence[Source], threads: int,
         model: str = "closed") -> tuple[str, dict] | None:
    """Throughput and p99 vs concurrency (closed model) or vs the offered rate (open model, the offered rate
    drawn as the diagonal), both modes, released connections, normal path, platform rows at Tomcat's default
    `threads`; markers: the median over reps (the row for one), bars: the aggregate's 95% interval (the row's
    within its hold, or the reps' mean's); the predicted ceiling of each mode drawn dashed; other runs
    (closed-model figures) overlaid on the closed chart. None for a run with no such rows and nothing to
    overlay."""
    lines = [a for a in aggregates if a.row.conn_mode == "released" and a.row.path_mode == "normal"
             and a.row.load_model == model and a.row.workload == "order-summary"
             and not dimensions.is_variant(a.row)
             and (a.row.thread_mode != "platform" or a.row.tomcat_max_threads == threads)]
    others = others if model == "closed" else []
    if not lines and not others:
        return None
    x_key = "concurrency" if model == "closed" else "offered_rps"
    # side by side and wide: the first screen shows it at the page's full width above the fold
    fig, (rate, latency) = plt.subplots(1, 2, figsize=(15, 4.2))
    data: dict[str, Series] = {}
    every_x: list[float] = []
    for mode in ("platform", "virtual"):
        points = sorted(((a.row.concurrency if model == "closed" else a.row.target_rps, a) for a in lines
                         if a.row.thread_mode == mode), key=lambda p: p[0])
        if not points:
            continue
        x = [c for c, _ in points]
        every_x += x
        rps = [a.throughput_median for _, a in points]
        low = [a.throughput_median - a.interval_low for _, a in points]
        high = [a.interval_high - a.throughput_median for _, a in points]
        ceiling = [a.ceiling_rps for _, a in points]
        p99 = [a.p99_median for _, a in points]
        rate.errorbar(x, rps, yerr=[low, high], marker="o", color=COLORS[mode], capsize=3, label=f"{mode} threads")
        rate.plot(x, ceiling, linestyle="--", color=COLORS[mode], alpha=0.6, label=f"{mode}: predicted ceiling")
        latency.plot(x, p99, marker="o", color=COLORS[mode], label=f"{mode} threads")
        invalid = [(c, a.throughput_median) for c, a in points if not a.valid]
        if invalid:
            rate.scatter(*zip(*invalid, strict=True), s=140, facecolors="none", edgecolors="black",
                         label=f"{mode}: invalid row")
        data[mode] = {x_key: x, "throughput_rps": rps, "ceiling_rps": ceiling, "p99_ms": p99}
    every_x += _overlay(rate, latency, others, data)
    offered = offered_rate(rate, every_x) if model == "open" else []
    _label_hero(rate, latency, data, every_x, model)
    if offered:
        data["offered"] = {"offered_rps": offered}
    fig.tight_layout()
    return svg(fig), data


def _label_hero(rate, latency, data: dict[str, Series], every_x: list[float], model: str) -> None:
    """The throughput chart's scales, titles and labels; both x axes ticked at the loads this run measured."""
    _log_if_wide(rate, [v for series in data.values() for v in series["throughput_rps"]], axis="y")
    rate.set_ylabel("successful requests / s")
    rate.set_title("Throughput vs " + ("concurrency" if model == "closed" else "offered rate (open model)")
                   + " (released connections)")
    rate.grid(True, alpha=0.3)
    rate.legend(fontsize=8, loc="upper left")
    latency.set_ylabel("p99 latency (ms)")
    for ax in (rate, latency):
        ax.set_xlabel("concurrent users (closed model)" if model == "closed"
                      else "offered requests / s (open model: arrivals do not wait for responses)")
    # log only with a latency to draw: a run whose every row failed has none (measured: 10,000 users on a 1 GB heap)
    if any(v > 0 for series in data.values() for v in series.get("p99_ms", ()) if not math.isnan(v)):
        latency.set_yscale("log")
        _plain_log(latency)
    latency.grid(True, which="both", alpha=0.3)
    latency.set_title("p99 latency of successful responses")
    x_key = "concurrency" if model == "closed" else "offered_rps"
    measured = [x for mode in ("platform", "virtual") for x in data.get(mode, {}).get(x_key, [])]
    for ax in (rate, latency):
        _log_if_wide(ax, every_x)
        loadaxis.at_loads(ax, measured or every_x)


def _overlay(rate, latency, others: Sequence[Source], data: dict[str, Series]) -> list[float]:
    """Other runs' closed-model throughput and p99, dotted beside this run's, into `data` too; the users they drew."""
    every_x: list[float] = []
    for index, source in enumerate(others):
        marker = OVERLAY_MARKERS[index % len(OVERLAY_MARKERS)]
        for mode in ("platform", "virtual"):
            pts = sorted((float(r.concurrency), r.throughput_rps, r.p99_ms) for r in source.rows
                         if r.thread_mode == mode and r.conn_mode == "released" and r.path_mode == "normal")
            if not pts:
                continue
            x = [p[0] for p in pts]
            every_x += x
            rate.plot(x, [p[1] for p in pts], marker=marker, linestyle=":", color=COLORS[mode], alpha=0.45,
                     label=f"{source.label} ({mode})")
            p99 = [(p[0], p[2]) for p in pts if not math.isnan(p[2])]
            if p99:
                latency.plot(*zip(*p99, strict=False), marker=marker, linestyle=":", color=COLORS[mode], alpha=0.45)
            data[f"{source.label}/{mode}"] = {"concurrency": x, "throughput_rps": [p[1] for p in pts]}
    return every_x


def pool(aggregates: Sequence[Aggregate]) -> tuple[str, dict] | None:
    """Held mode: throughput vs pool size, with the pool's ceiling (pool / time a connection is held)."""
    held = [a for a in aggregates if a.row.conn_mode == "held" and a.row.workload == "order-summary"
            and not dimensions.is_variant(a.row)]
    if not held:
        return None
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    data: dict[str, Series] = {}
    for mode in ("platform", "virtual"):
        points = sorted(((a.row.hikari_pool, a) for a in held if a.row.thread_mode == mode), key=lambda p: p[0])
        if not points:
            continue
        x = [p for p, _ in points]
        rps = [a.throughput_median for _, a in points]
        ax.plot(x, rps, marker="o", color=COLORS[mode], label=f"{mode} threads",
                linestyle="-" if len(x) > 1 else "none", markersize=9)
        data[mode] = {"pool": x, "throughput_rps": rps}
    pools = sorted({a.row.hikari_pool for a in held})
    ceiling = [min(a.ceiling_rps for a in held if a.row.hikari_pool == p) for p in pools]
    ax.plot(pools, ceiling, linestyle="--", color="black", marker="_", markersize=30, label="pool ceiling")
    data["ceiling"] = {"pool": pools, "ceiling_rps": ceiling}
    ax.set_xlabel("HikariCP pool size (connections)")
    ax.set_ylabel("successful requests / s")
    ax.set_title("Held connections: the pool is the wall for both thread modes")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return svg(fig), data


# each tier's bar and the column of its CPU (% of one core)
CPU_TIERS = tuple(zip(("app", "pg", "stub", "load", "proxy"), cpu_tiers(shared_cores=True), strict=True))


def cpu(rows: Sequence[MeasuredRow], labels: Sequence[str], capacity_pct: float) -> tuple[str, dict]:
    """Per-tier CPU per row as stacked bars; the machine's capacity drawn as a line."""
    height = max(3.0, 0.38 * len(rows) + 1.5)
    fig, ax = plt.subplots(figsize=(8.5, height))
    left = [0.0] * len(rows)
    data: dict[str, list[float]] = {}
    tiers = list(CPU_TIERS[:4])
    if any(not math.isnan(r.proxy_cpu_pct) for r in rows):
        tiers.append(CPU_TIERS[4])  # Toxiproxy, when the run injected latency
    for tier, column in tiers:
        values = [given(getattr(r, column), 0.0) for r in rows]
        ax.barh(range(len(rows)), values, left=left, color=TIER_COLORS[tier],
                label=f"{tier} (k6)" if tier == "load" else tier)
        left = [a + b for a, b in zip(left, values, strict=True)]
        data[tier] = values
    ax.axvline(capacity_pct, color="black", linestyle="--", label=f"machine: {capacity_pct:.0f}%")
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("CPU during the hold (% of one core)")
    ax.set_title("Per-tier CPU per row (a saturated tier shows at a glance)")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(True, axis="x", alpha=0.3)
    return svg(fig), data


def pinning(rows: Sequence[MeasuredRow], threshold_ms: int) -> tuple[str, dict]:
    """jdk.VirtualThreadPinned events per path and thread mode (summed over rows)."""
    totals: dict[str, float] = {}
    for r in rows:
        key = f"{r.path_mode} / {r.thread_mode}"
        totals[key] = totals.get(key, 0.0) + given(r.pinned_events, 0.0)
    keys = sorted(totals)
    fig, ax = plt.subplots(figsize=(8.5, 2.8))
    ax.bar(keys, [totals[k] for k in keys],
           color=[COLORS["virtual"] if k.endswith("virtual") else COLORS["platform"] for k in keys])
    ax.set_ylabel("pinned events (JFR)")
    ax.set_xlabel("path mode / thread mode")
    ax.tick_params(axis="x", labelrotation=15, labelsize=8)
    ax.set_title(f"Virtual-thread pinning (jdk.VirtualThreadPinned over {threshold_ms} ms)")
    ax.set_ylim(bottom=0, top=max(1.0, max(totals.values(), default=0) * 1.2))
    ax.grid(True, axis="y", alpha=0.3)
    return svg(fig), {"groups": keys, "events": [totals[k] for k in keys]}


def scenario(title: str, data: Mapping[str, Sequence]) -> str:
    """One scenario's variants side by side: bars (throughput unless the data says otherwise) and
    points on a second axis (p99 unless it says otherwise)."""
    labels = list(data["labels"])
    bars, points = data.get("draw", ("throughput_rps", "p99_ms"))
    fig, ax = plt.subplots(figsize=(8.5, 3.4))
    colors = [next((c for mode, c in COLORS.items() if mode in label), COLORS["platform"]) for label in labels]
    ax.bar(range(len(labels)), [0.0 if math.isnan(v) else v for v in data[bars]], color=colors)
    ax.set_xticks(range(len(labels)), labels, fontsize=8, rotation=15 if len(labels) > 3 else 0)
    ax.set_ylabel(SCENARIO_AXES[bars])
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    second = ax.twinx()
    second.plot(range(len(labels)), data[points], color="black", marker="D", linestyle="none")
    second.set_ylabel(SCENARIO_AXES[points])
    second.set_ylim(bottom=0)
    return svg(fig)


def paired(points: Sequence[PairedPoint]) -> tuple[str, dict] | None:
    """A paired run's pairs in the order measured: left, each pair's b ÷ a with its point's paired ratio and 95%
    interval (a pair left out hollow); right, k6's CPU per request in each arm's block, the host's speed index. None
    for a run not paired."""
    if not points:
        return None
    several = len(points) > 1  # each pair's tick names its point's load too

    def load(row) -> str:
        return f"{row.target_rps}/s" if row.load_model == "open" else f"{row.concurrency}u"
    labels = [f"{load(point.row)} {pair.block}" if several else str(pair.block) for point in points
              for pair in point.pairs]
    ratios = [pair.ratio for point in points for pair in point.pairs]
    counted = [not pair.why_out for point in points for pair in point.pairs]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.6))
    at = 0
    for point in points:
        span = range(at, at + len(point.pairs))
        if point.computed:
            left.hlines(point.ratio, span[0] - 0.4, span[-1] + 0.4, color="black")
            if math.isfinite(point.low):
                left.fill_between([span[0] - 0.4, span[-1] + 0.4], point.low, point.high, color="grey", alpha=0.25)
        at += len(point.pairs)
    xs = range(len(ratios))
    left.scatter([x for x, kept in zip(xs, counted, strict=True) if kept],
                 [r for r, kept in zip(ratios, counted, strict=True) if kept], color="black", zorder=3)
    left.scatter([x for x, kept in zip(xs, counted, strict=True) if not kept],
                 [r for r, kept in zip(ratios, counted, strict=True) if not kept], facecolors="none",
                 edgecolors="black", zorder=3)
    left.set_xticks(list(xs), labels, fontsize=8)
    left.set_xlabel("pair (block), in the order measured")
    left.set_ylabel("arm b ÷ arm a, successful req/s")
    left.grid(True, axis="y", alpha=0.3)
    k6 = {arm: [getattr(pair, f"{arm}_k6_ms") for point in points for pair in point.pairs] for arm in ("a", "b")}
    arms = points[0].arms
    names = {"a": arms.a, "b": arms.b}
    jars = dict(zip("ab", arms.versus, strict=True)) if arms.versus else names  # a before/after's arms: its jars
    for arm, marker in (("a", "o"), ("b", "s")):
        right.plot(list(xs), k6[arm], marker=marker, color=COLORS.get(names[arm], "black"),
                   linestyle="-" if arm == "a" else "--", label=f"arm {arm} ({jars[arm]})")
    right.set_xticks(list(xs), labels, fontsize=8)
    right.set_xlabel("pair (block), in the order measured")
    right.set_ylabel("k6 CPU a request (ms)")
    right.set_ylim(bottom=0)
    right.legend(fontsize=8)
    right.grid(True, axis="y", alpha=0.3)
    fig.suptitle("Pairs of blocks: each pair's ratio, and the host's speed index under them", fontsize=10)
    return svg(fig), {"labels": labels, "ratio": ratios, "counted": counted, "k6_ms_a": k6["a"], "k6_ms_b": k6["b"]}


def host_speed(strip: Strip) -> tuple[str, dict]:
    """The host's speed over the run (report.hostspeed): each bin's speed against the run's median, and each row's
    time under load shaded by its mode (a paired point's blocks one after the other)."""
    fig, ax = plt.subplots(figsize=(11, 2.6))
    minutes = [second / 60 for second in strip.seconds]
    for span in strip.spans:
        ax.axvspan(span.start_s / 60, span.end_s / 60, color=COLORS.get(span.mode, "#808b96"), alpha=0.15, lw=0)
    # no line across the time no row ran (a JVM starting, a pre-warm): nothing was read there
    xs, ys = [], []
    for at, speed in zip(minutes, strip.speed, strict=True):
        if xs and at - xs[-1] > 1.5 * BIN_S / 60:
            xs.append(math.nan)
            ys.append(math.nan)
        xs.append(at)
        ys.append(speed)
    ax.plot(xs, ys, color="black", marker=".", markersize=3, linewidth=1)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
    for mode in dict.fromkeys(span.mode for span in strip.spans):
        ax.fill_between([], [], color=COLORS.get(mode, "#808b96"), alpha=0.3, label=f"{mode} under load")
    slow, fast = strip.moved()
    ax.set_ylim(min(0.9, slow - 0.02), max(1.1, fast + 0.02))
    ax.set_xlabel("minutes since the run's first row")
    ax.set_ylabel("host speed ÷ run median")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return svg(fig), {"minutes": minutes, "speed": list(strip.speed), "median_us": strip.median_us,
                      "spans": [[span.mode, span.start_s / 60, span.end_s / 60] for span in strip.spans]}
