"""The run's own figures, drawn (report.charts) with their captions, a sentence instead of a chart that would frame
nothing, the one the first screen shows, and each scenario section's chart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vtlab.core.measures import given
from vtlab.explain import costs
from vtlab.explain.model import Analysis
from vtlab.report import charts, costschart, hostspeed, sections as told
from vtlab.report.document import Figure, Section, Table
from vtlab.report.labels import row_label
from vtlab.results.compare import Source

# What the throughput panel of both throughput charts (charts.hero) draws, exactly: its markers, bars, rings.
_THROUGHPUT_MARKS = ("markers: each point's throughput, the row's own for one rep and the median of several; "
                     "bars: its 95% interval, within the row's hold for one rep (batch means of k6's successes "
                     "per second) and of the reps' mean for several (Student t over the reps), so a median may "
                     "sit off its bar's centre; a bar of no length where no interval was measured; "
                     "a ring round a marker: no rep of that point valid")
CAPTIONS = {"hero": "Throughput of successful responses vs concurrency, released connections (" + _THROUGHPUT_MARKS
                    + "). Dashed: each mode's predicted ceiling (Little's law, median over reps); dotted: other "
                    "runs, where overlaid (their rows' own throughput). Right: p99 latency of successful "
                    "responses, median over reps.",
            "open": "Open model: successful responses per second vs the offered rate (" + _THROUGHPUT_MARKS
                    + "; dotted: what was offered; dashed: each mode's predicted ceiling) and p99 latency. No "
                    "coordinated omission: arrivals keep coming while the service is slow.",
            "pool": "Held connections: throughput vs pool size; dashed: pool ÷ time a connection is held.",
            "cpu": "Mean CPU per tier during each row's hold. 100% = one core.",
            "pinning": "JFR jdk.VirtualThreadPinned events (threshold {threshold} ms) per path and thread mode.",
            "paired": "A paired run's pairs of blocks, in the order measured. Left: each pair's arm b ÷ arm a of "
                      "successful responses a second (filled: counted; hollow: left out, see Measured as one); the "
                      "line: the point's paired ratio, the geometric mean of the counted pairs; shaded: its 95% "
                      "interval. Right: k6's CPU per request in each arm's block, the same work every time: where it "
                      "moves, the host's speed moved, and each pair's ratio is what stays.",
            "costs": "What one request cost each tier, in each mode, at every step of the scenario measured at the "
                     "most rates (explain.costs, each step's hold): dots, a step's cost ÷ its successful responses "
                     "(hollow: a step its flags left out of the fit); line, the family's least-squares fit of the "
                     "cost a second, fixed + marginal × rate, drawn as a request's share of it (fixed ÷ rate + "
                     "marginal) where the fixed part is not below 0; dashed, the marginal alone, shaded its 95% "
                     "interval where the fit has one, each over the rates its mode was measured at; a fit whose "
                     "slope fell below 0, its steps alone. Where line and dash part, the per-second costs (the JIT, "
                     "timers, the rig's scrapes) were spread over few requests. The section \"What a request costs, "
                     "fixed and marginal apart\" gives the figures.",
            "host-speed": "The host's speed over the run: the CPU time one fixed piece of work took on the rig's CPU "
                          "sampler, read four times a second, each point the median of {bin} s, against the run's "
                          "median (above 1: faster). Its CPU time, not its wall time, so the rows' own load moves it "
                          "~2% (bench/host-speed). Shaded: each row's time under load by its mode, a paired "
                          "point's blocks one after the other. {moved}"}


def figures(rows: Sequence[Mapping[str, object]], analysis: Analysis, others: Sequence[Source],
             cpus_available: int, families: Sequence[costs.Family] = ()) -> list[Figure]:
    # the CPU chart's scale: the CPUs the run could use, else (a cluster run) the most the service had
    cpus = cpus_available or int(max(given(r.app_cpus, 1) for r in rows))
    threads = analysis.rig.tomcat_max_threads
    drawn = {name: figure for name, figure in (("hero", charts.hero(analysis.aggregates, others, threads)),
                                               ("open", charts.hero(analysis.aggregates, [], threads, "open")),
                                               ("pool", charts.pool(analysis.aggregates))) if figure}
    drawn["cpu"] = charts.cpu(rows, [row_label(a.row, threads) for a in analysis.verdicts], cpus * 100)
    threshold = analysis.rig.jfr_pinned_threshold_ms
    drawn["pinning"] = charts.pinning(rows, threshold)
    pairs = charts.paired(analysis.paired)
    if pairs:
        drawn["paired"] = pairs
    spent = costschart.figure(families)  # explain.costs' fits, made once by the document
    if spent:
        drawn["costs"] = spent
    return [Figure(name, svg, CAPTIONS[name].format(threshold=threshold), data, _nothing_to_draw(name, data, threshold))
            for name, (svg, data) in drawn.items()]


def host_speed(run_dir: Path, analysis: Analysis) -> list[Figure]:
    """The strip of the host's speed over the run (report.hostspeed); none for a run that read none."""
    found = hostspeed.strip(run_dir, analysis.verdicts)
    if found is None:
        return []
    svg, data = charts.host_speed(found)
    caption = CAPTIONS["host-speed"].format(bin=f"{hostspeed.BIN_S:.0f}", moved=hostspeed.words(found))
    return [Figure("host-speed", svg, caption.strip(), data)]


def _nothing_to_draw(name: str, data: Mapping[str, Any], threshold_ms: int) -> str:
    """A sentence instead of a chart whose axes would only frame one point or a row of zeros."""
    if name == "pool" and len(data.get("ceiling", {}).get("pool", [])) < 2:
        sizes = ", ".join(str(size) for size in data.get("ceiling", {}).get("pool", []))
        return (f"Held connections were measured at one pool size ({sizes}): see the headline; "
                "the pool chart needs two sizes (e.g. `--pools 10,50`).")
    if name == "pinning" and not any(data.get("events", [])):
        return (f"No row recorded a pinned virtual thread (JFR jdk.VirtualThreadPinned ≥ {threshold_ms} ms): "
                "nothing to chart. The pinning profile has a positive control that does pin.")
    return ""


def main(figures: Sequence[Figure]) -> str:
    """The chart the first screen shows: throughput against the load, the closed model's, else the open one's."""
    drawn = {figure.name for figure in figures if figure.svg and not figure.instead}
    return next((name for name in ("hero", "open") if name in drawn), "")


def scenario(section: told.Section) -> Section:
    # drawn here, after the run's own figures, so matplotlib draws in the order it always has
    return Section(section.key, section.title, tuple(section.verdict),
                   Table(tuple(section.columns), tuple(section.table)),
                   charts.scenario(section.title, section.chart) if section.chart else "", section.chart)
