"""The headline: per scenario and load, platform beside virtual — each mode's req/s with its 95% interval (the
row's within its hold for one rep, that of the reps' mean for several) and p99, the ratio with the range both
intervals allow, and the bottleneck each met."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.core import dimensions
from vtlab.explain import repetitions
from vtlab.explain.model import Aggregate
from vtlab.report import ratio
from vtlab.report.document import HeadlineLine
from vtlab.report.labels import TOMCAT_THREADS, fmt, scenario_label

# Each mode's cell is a 95% interval, and says of what: one rep, "99.5 ± 0.8", the row's within its hold;
# several, "mean 110.0 [85.2–134.8] of 3 reps", that of their mean. The ratio's brackets join the two modes'
# intervals (low ÷ high to high ÷ low): a range both allow, not itself a 95% interval, so not called one. The ratio
# divides the throughputs the cells show (ratio.told_rps: one rep's own, several reps' mean), and only where both
# modes have a valid rep; otherwise the column says why there is none.
COLUMNS = (("scenario", "scenario"), ("concurrency", "concurrency"),
           ("platform", "platform req/s (95% interval) · p99"), ("virtual", "virtual req/s (95% interval) · p99"),
           ("ratio", "ratio v/p [range of both intervals]"), ("bottleneck", "bottleneck (platform / virtual)"))


def _rps(line: Aggregate) -> str:
    """The throughput with its 95% interval, centred where it was computed: one rep, its own ± the row's
    within-row half-width; several, their mean with the interval of that mean (Student t over the reps)."""
    counted = repetitions.counted(line)
    if counted > 1:
        text = (f"mean {fmt(ratio.told_rps(line), 1)} "
                f"[{fmt(line.interval_low, 1)}–{fmt(line.interval_high, 1)}] of {counted} reps")
        if line.spread_warning:
            text += " ⚠"
    else:
        text, ci = fmt(ratio.told_rps(line), 1), line.line.measured.throughput_ci95_rps
        text += "" if math.isnan(ci) else f" ± {fmt(ci, 1)}"
    return text + ("" if line.valid else " (invalid)")


def lines(aggregates: Sequence[Aggregate], threads: int = TOMCAT_THREADS) -> list[HeadlineLine]:
    """The headline's pairs in the order it tells them: the plain order-summary first, released before held."""
    groups = _headline_groups(aggregates, threads)
    paired = []
    for key in sorted(groups, key=lambda k: (k[0], k[2], k[1], k[3], k[4], float(str(k[5]).rstrip("/s")))):
        _, scenario, _, line_threads, _model, load = key
        paired.append(HeadlineLine(
            scenario=scenario + ("" if line_threads == threads else f", {line_threads} platform threads"),
            load=str(load), platform=groups[key].get("platform"), virtual=groups[key].get("virtual")))
    return paired


def words(line: HeadlineLine) -> dict[str, str]:
    """concurrency | platform req/s · p99 | virtual req/s · p99 | ratio | bottleneck per mode."""
    p, v = line.platform, line.virtual
    return {"scenario": line.scenario, "concurrency": line.load,
            "platform": f"{_rps(p)} · p99 {fmt(p.p99_median)} ms" if p else "–",
            "virtual": f"{_rps(v)} · p99 {fmt(v.p99_median)} ms" if v else "–",
            "ratio": ratio.between(p, v).text() if p and v else "–",  # a mode not measured: its cell says so
            "bottleneck": f"{_bottleneck(p)} / {_bottleneck(v)}"}


def headline(aggregates: Sequence[Aggregate], threads: int = TOMCAT_THREADS) -> list[dict[str, str]]:
    """The headline table's lines, in words."""
    return [words(line) for line in lines(aggregates, threads)]


def _headline_groups(aggregates: Sequence[Aggregate], threads: int) -> dict[tuple, dict[str, Aggregate]]:
    """The aggregates a headline line pairs, platform beside virtual, under a key that also orders the lines."""
    paired = [line for line in aggregates if line.row.thread_mode != "webflux"]  # the twin has its own section
    # the run's usual downstream delay goes without saying; a line with another one says so (a tie: the shortest)
    delays = [line.row.stub_delay_ms for line in paired]
    usual_delay = max(sorted(set(delays)), key=delays.count) if delays else None
    groups: dict[tuple, dict[str, Aggregate]] = {}
    for line in paired:
        row = line.row
        load = f"{row.target_rps}/s" if row.load_model == "open" else row.concurrency
        # a platform pool of another size is its own scenario; virtual threads pair with Tomcat's default
        line_threads = row.tomcat_max_threads if row.thread_mode == "platform" and row.tomcat_max_threads else threads
        scenario = scenario_label(row) + ("" if row.stub_delay_ms == usual_delay
                                          else f", downstream {fmt(row.stub_delay_ms)} ms")
        key = (row.workload != "order-summary" or dimensions.is_variant(row), scenario,
               row.conn_mode != "released", line_threads, row.load_model, load)
        groups.setdefault(key, {})[row.thread_mode] = line
    return groups


def _bottleneck(line: Aggregate | None) -> str:
    if not line:
        return "–"
    return line.bottleneck + (f" (reps: {line.bottlenecks_seen})" if line.bottlenecks_seen else "")

