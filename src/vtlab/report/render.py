"""`vtlab report`: analysis.csv, report.html (self-contained) and report.md from a run's CSV and
metadata only, optionally with other runs or the published figures overlaid."""

from __future__ import annotations

import csv
import functools
import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vtlab.explain import analyze
from vtlab.report import charts, everysecond, published, scenarios
from vtlab.results import compare, table
from vtlab.core import dimensions
from vtlab.report.labels import TOMCAT_THREADS, fmt, mode_label, ratio_text, row_label, scenario_label
from vtlab.explain.model import COLUMNS, Aggregate, Analysis, Verdict, cells

ANALYSIS_NAME = "analysis.csv"


def render(run_dir: Path, compare_with: Sequence[Path] = ()) -> dict[str, Path]:
    rows = table.read_rows(run_dir / table.CSV_NAME)
    if not rows:
        raise ValueError(f"{run_dir / table.CSV_NAME} holds no rows to report")
    metadata = table.read_metadata(run_dir)
    others = [source for path in compare_with for source in compare.load(path)]
    analysis = analyze.analyse(rows, metadata)  # failed rows reach only analysis.failed
    threads = analysis.rig.tomcat_max_threads

    paths = {"analysis": run_dir / ANALYSIS_NAME, "html": run_dir / "report.html",
             "markdown": run_dir / "report.md", "charts": run_dir / "charts.json"}
    _write_analysis(paths["analysis"], [*analysis.verdicts, *analysis.failed])
    measured = [row for row in rows if not analyze.failed(row)]  # the raw series the charts draw
    figures = _figures(measured, analysis, others, metadata) if measured else {}
    extra = scenarios.sections(analysis, functools.partial(mode_label, default_threads=threads))
    beside_published = published.section(analysis.aggregates, published.points())
    if beside_published:
        extra.insert(0, beside_published)
    paths["charts"].write_text(json.dumps({**{name: data for name, (_, data) in figures.items()},
                                           **{f"scenario-{section.key}": section.chart for section in extra}},
                                          indent=1) + "\n")
    story = explain(analysis) + _failures_sentence(analysis.failed)
    head = headline(analysis.aggregates, threads)
    failures = failed_rows(analysis.failed, threads)
    paths["markdown"].write_text(markdown(head, story, analysis, others, extra, failures))
    seconds = everysecond.section(run_dir, measured, analysis.verdicts)
    paths["html"].write_text(page(run_dir, head, story, figures, analysis, metadata, others, extra, failures,
                                  seconds))
    return paths


def _write_analysis(path: Path, verdicts: Sequence[Verdict]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        writer.writerows(cells(verdict) for verdict in verdicts)


FAILED_COLUMNS = [("row", "row"), ("tier", "tier that died"), ("how", "how it ended"), ("log", "its log's last line")]


def failed_rows(failed: Sequence[Verdict], threads: int = TOMCAT_THREADS) -> list[dict[str, str]]:
    """The rows a tier died in, for their own table: which tier, how, and the last thing it logged."""
    return [{"row": row_label(v.row, threads), "tier": v.failure.tier, "how": v.failure.how,
             "log": (v.failure.log.strip().splitlines() or [""])[-1][:200]} for v in failed if v.failure]


def _failures_sentence(failed: Sequence[Verdict]) -> list[str]:
    if not failed:
        return []
    return [f"{len(failed)} row(s) failed — a tier died during the row — and are left out of every verdict and "
            "chart above and below (see Failed rows; `--resume` measures them again)."]


def _figures(rows: Sequence[Mapping[str, object]], analysis: Analysis, others, metadata) -> dict[str, tuple[str, dict]]:
    host = metadata.get("host", {}) if isinstance(metadata.get("host"), dict) else {}
    cpus = int(host.get("cpus_available") or 0) or int(max(analyze.num(r, "app_cpus", 1) for r in rows))
    threads = analysis.rig.tomcat_max_threads
    figures = {name: figure for name, figure in (("hero", charts.hero(analysis.aggregates, others, threads)),
                                                 ("open", charts.hero(analysis.aggregates, [], threads, "open")),
                                                 ("pool", charts.pool(analysis.aggregates))) if figure}
    figures["cpu"] = charts.cpu(rows, [row_label(a.row, threads) for a in analysis.verdicts], cpus * 100)
    figures["pinning"] = charts.pinning(rows, analysis.rig.jfr_pinned_threshold_ms)
    return {name: (_nothing_to_draw(name, data, analysis) or svg, data) for name, (svg, data) in figures.items()}


def _nothing_to_draw(name: str, data: Mapping[str, Any], analysis: Analysis) -> str:
    """A sentence instead of a chart whose axes would only frame one point or a row of zeros."""
    if name == "pool" and len(data.get("ceiling", {}).get("pool", [])) < 2:
        sizes = ", ".join(str(size) for size in data.get("ceiling", {}).get("pool", []))
        return (f"<p class='small'>Held connections were measured at one pool size ({sizes}): see the headline; "
                "the pool chart needs two sizes (e.g. `--pools 10,50`).</p>")
    if name == "pinning" and not any(data.get("events", [])):
        return (f"<p class='small'>No row recorded a pinned virtual thread (JFR jdk.VirtualThreadPinned ≥ "
                f"{analysis.rig.jfr_pinned_threshold_ms} ms): nothing to chart. The pinning profile has a "
                "positive control that does pin.</p>")
    return ""


# --- words -----------------------------------------------------------------------------------

def _rps(line: Aggregate) -> str:
    """The median with its 95% interval: ± the row's own for one rep, the reps' joined range for several."""
    text = fmt(line.throughput_median, 1)
    if line.reps > 1:
        text += f" [{fmt(line.interval_low, 1)}–{fmt(line.interval_high, 1)}]"
        if line.spread_warning:
            text += " ⚠"
    elif line.interval_known:
        text += f" ± {fmt(line.line.measured.throughput_ci95_rps, 1)}"
    return text + ("" if line.valid else " (invalid)")


def headline(aggregates: Sequence[Aggregate], threads: int = TOMCAT_THREADS) -> list[dict[str, str]]:
    """concurrency | platform req/s · p99 | virtual req/s · p99 | ratio | bottleneck per mode."""
    groups = _headline_groups(aggregates, threads)
    table = []
    for key in sorted(groups, key=lambda k: (k[0], k[2], k[1], k[3], k[4], float(str(k[5]).rstrip("/s")))):
        _, scenario, _, line_threads, _model, load = key
        p, v = groups[key].get("platform"), groups[key].get("virtual")
        table.append({
            "scenario": scenario + ("" if line_threads == threads else f", {line_threads} platform threads"),
            "concurrency": str(load),
            "platform": f"{_rps(p)} · p99 {fmt(p.p99_median)} ms" if p else "–",
            "virtual": f"{_rps(v)} · p99 {fmt(v.p99_median)} ms" if v else "–",
            "ratio": ratio_text(p, v),
            "bottleneck": f"{_bottleneck(p)} / {_bottleneck(v)}",
        })
    return table


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


def explain(analysis: Analysis) -> list[str]:
    """Sentences generated from the analysis: where each mode flattened and why."""
    threads = analysis.rig.tomcat_max_threads
    main = main_rows(analysis.aggregates, threads)

    def lines(conn: str, mode: str) -> list[Aggregate]:
        return sorted((a for a in main if a.row.conn_mode == conn and a.row.thread_mode == mode
                       and a.row.path_mode == "normal" and a.row.load_model == "closed"),
                      key=lambda a: a.row.concurrency)

    platform, virtual = lines("released", "platform"), lines("released", "virtual")
    story = [*_platform_story(platform), *_virtual_story(virtual, platform), *_held_story(main),
             *_open_story(main)]
    if not story:
        story.append("This run measured only the scenarios below; the order-summary story needs `--workload "
                     "order-summary` rows.")
    return story + _validity_story(analysis.verdicts, threads)


def _platform_story(platform: Sequence[Aggregate]) -> list[str]:
    if not platform:
        return []
    # the wall where it held: an overloaded row past it (refusals, a cliff) is told with the invalid rows
    walls = ([a for a in platform if a.bottleneck == "thread-pool" and a.valid]
             or [a for a in platform if a.bottleneck == "thread-pool"])
    if walls:
        wall = walls[-1]
        ms, source = wall.line.service_time_ms, wall.line.service_time_source  # the wall row's own scenario
        return [f"Platform threads flatten at {fmt(wall.throughput_median, 0)} req/s: Tomcat's threads ÷ "
                f"the time each is busy ({fmt(ms, 0)} ms, the {source}) predict "
                f"{fmt(wall.ceiling_rps, 0)} req/s, and past that users only queue "
                f"(p99 {fmt(wall.p99_median, 0)} ms at {wall.row.concurrency} users)."]
    best = max(platform, key=lambda a: a.throughput_median)
    return [f"Platform threads reached {fmt(best.throughput_median, 0)} req/s at "
            f"{best.row.concurrency} users without meeting their thread wall ({best.bottleneck})."]


LIMIT_WORDS = {"concurrency": "the users themselves (each waits on the downstream, so users ÷ service time)",
               "cpu": "the CPU", "connection-pool": "the connection pool", "thread-pool": "the thread pool"}


def _virtual_story(virtual: Sequence[Aggregate], platform: Sequence[Aggregate]) -> list[str]:
    if not virtual:
        return []
    # the story is told from rows that can be trusted; an invalid best is said to be one
    best = max([a for a in virtual if a.valid] or virtual, key=lambda a: a.throughput_median)
    reached = (f"a ceiling of {fmt(best.ceiling_rps, 0)} req/s that restates the row's own measurement"
               if best.line.limit_restated else
               f"{fmt(best.throughput_median / best.ceiling_rps * 100, 0)}% of a predicted "
               f"{fmt(best.ceiling_rps, 0)} req/s")
    story = [f"Virtual threads reach {fmt(best.throughput_median, 0)} req/s{_interval_words(best)} at "
             f"{best.row.concurrency} users ({reached}), limited by {LIMIT_WORDS.get(best.limit, best.limit)}; "
             f"bottleneck: {best.bottleneck}" + ("." if best.valid else
                                                f" — but no rep of that row is valid ({';'.join(best.flags)}).")]
    trusted = [a for a in platform if a.valid] or platform
    top = max(trusted, key=lambda a: a.throughput_median, default=None)
    if top and top.throughput_median > 0:
        story.append(f"Best against best, virtual threads deliver {ratio_text(top, best)} the platform threads' "
                     "throughput (the 95% range in brackets where measured; with several reps, the range their "
                     "intervals joined allow).")
    return story


def _interval_words(line: Aggregate) -> str:
    if not line.interval_known:
        return ""
    # one rep: its 95% interval; several: their intervals joined, a range wider than any one 95% interval
    what = "95% interval" if line.reps == 1 else f"{line.reps} reps' 95% intervals joined"
    return f" ({what} {fmt(line.interval_low, 0)}–{fmt(line.interval_high, 0)})"


KEPT_UP = 0.95  # an open-model row that delivered this share of its offered rate kept up with it


def _open_story(main: Sequence[Aggregate]) -> list[str]:
    """The open model per mode: the highest offered rate it kept up with, what it delivered above it, and
    the two modes side by side at the highest rate both were offered."""
    story = []
    by_mode: dict[str, dict[int, Aggregate]] = {}
    for mode in ("platform", "virtual"):
        lines = sorted((a for a in main if a.row.load_model == "open" and a.row.thread_mode == mode
                        and a.row.conn_mode == "released" and a.row.path_mode == "normal"),
                       key=lambda a: a.row.target_rps)
        if not lines:
            continue
        by_mode[mode] = {a.row.target_rps: a for a in lines}
        kept = [a for a in lines if a.throughput_median >= KEPT_UP * a.row.target_rps]
        over = [a for a in lines if a not in kept]
        sentence = f"Open model, {mode} threads: " + (
            f"kept up with {fmt(kept[-1].row.target_rps)} req/s offered (p99 {fmt(kept[-1].p99_median)} ms)"
            if kept else "kept up with none of the offered rates")
        if over:
            top = over[-1]
            sentence += (f"; offered {fmt(top.row.target_rps)} req/s it delivered {fmt(top.throughput_median, 1)}"
                         f"{_interval_words(top)} — its wall ({top.bottleneck}) — and latency grew without bound "
                         f"(p99 {fmt(top.p99_median)} ms): arrivals kept coming while requests waited")
        story.append(sentence + ".")
    common = sorted(set(by_mode.get("platform", {})) & set(by_mode.get("virtual", {})))
    if common:
        rate = common[-1]
        story.append(f"Offered {fmt(rate)} req/s, virtual threads delivered "
                     f"{ratio_text(by_mode['platform'][rate], by_mode['virtual'][rate])} the platform threads' rate.")
    return story


def _held_story(main: Sequence[Aggregate]) -> list[str]:
    held = [a for a in main if a.row.conn_mode == "held" and a.row.path_mode == "normal"]
    if not held:
        return []
    ms, source = held[0].line.service_time_ms, held[0].line.service_time_source
    parts = ", ".join(f"{a.row.thread_mode} {fmt(a.throughput_median, 1)} req/s ({a.bottleneck})"
                      for a in sorted(held, key=lambda a: (a.row.hikari_pool, a.row.thread_mode)))
    pools = sorted({a.row.hikari_pool for a in held})
    return [f"With the connection held across the downstream call the bottleneck moves to the pool: "
            f"pool ÷ {fmt(ms, 0)} ms ({source}) caps both modes at "
            + ", ".join(f"{fmt(p / (ms / 1000), 0)} req/s for {p} connections" for p in pools)
            + f" — measured: {parts}. Virtual threads cannot help when every request needs a connection "
            "for the whole call."]


def _validity_story(verdicts: Sequence[Verdict], threads: int) -> list[str]:
    invalid = [a for a in verdicts if not a.valid]
    if invalid:
        story = [f"{len(invalid)} row(s) cannot be trusted and are marked: "
                 + "; ".join(f"{row_label(a.row, threads)} ({';'.join(a.flags)})" for a in invalid) + "."]
    else:
        story = ["Every row is valid: the generator kept up (its CPU is in every row), no dropped "
                 "iterations, no counted errors, samplers complete, throughput steady across the hold."]
    return story + _not_measured_story(verdicts)


# What each not-exposed flag leaves unmeasured, in words.
NOT_EXPOSED_WORDS = {"meters": "its meters (no /actuator/prometheus nor /actuator/metrics)",
                     "app_cpu_pct": "its CPU and memory (a --url service is not vtlab's process)",
                     "neighbours": "other processes' CPU apart from its own",
                     "hikari_active_max": "its connection pool's gauges", "jvm_threads_max": "its JVM threads"}


def _not_measured_story(verdicts: Sequence[Verdict]) -> list[str]:
    """What a user's service did not let vtlab measure, and the ceilings that stayed uncomputed for it."""
    hidden = sorted({flag.removeprefix(analyze.NOT_EXPOSED) for a in verdicts for flag in a.flags
                     if flag.startswith(analyze.NOT_EXPOSED)})
    missing = sorted({text for a in verdicts for text in a.ceilings.missing})
    if not hidden and not missing:
        return []
    return [("Not measured on your service: " + "; ".join(NOT_EXPOSED_WORDS.get(name, name) for name in hidden)
             + ". " if hidden else "") + ("Ceilings not computed: " + "; ".join(missing) + "." if missing else "")]


def main_rows(lines: Sequence[Any], threads: int = TOMCAT_THREADS) -> list[Any]:
    """The order-summary rows (verdicts or aggregates) at Tomcat's default pool: what the hero story is told
    from. A run of the user's own service tells the same story of its rows, at whatever pool it runs."""
    own = [a for a in lines if a.row.workload == "order-summary" and not dimensions.is_variant(a.row)
           and (a.row.thread_mode != "platform" or a.row.tomcat_max_threads == threads)]
    return own or [a for a in lines if a.row.workload == "service" and not dimensions.is_variant(a.row)]


# --- rendering -------------------------------------------------------------------------------

HEADLINE_COLUMNS = [("scenario", "scenario"), ("concurrency", "concurrency"),
                    ("platform", "platform req/s [95%] · p99"), ("virtual", "virtual req/s [95%] · p99"),
                    ("ratio", "ratio v/p [95%]"), ("bottleneck", "bottleneck (platform / virtual)")]


def markdown(head, story, analysis: Analysis, others, extra=(), failures=()) -> str:
    out = ["# vtlab: platform vs virtual threads", "", *_md_table(HEADLINE_COLUMNS, head)]
    out += ["", *[f"- {sentence}" for sentence in story], ""]
    for section in extra:
        out += [f"## {section.title}", "", *[f"- {sentence}" for sentence in section.verdict], "",
                *_md_table(section.columns, section.table), ""]
    if failures:
        out += ["## Failed rows", "", *_md_table(FAILED_COLUMNS, failures), ""]
    if others:
        out += ["## Compared with", "", *compare_lines(analysis.aggregates, others, "md"), ""]
    return "\n".join(out)


def _md_table(columns, lines) -> list[str]:
    return (["| " + " | ".join(title for _, title in columns) + " |", "|" + "---|" * len(columns)]
            + ["| " + " | ".join(line[key].replace("|", "\\|") for key, _ in columns) + " |" for line in lines])


def _html_table(columns, lines, table_id: str = "") -> str:
    esc = html.escape
    id_attribute = f" id='{table_id}'" if table_id else ""
    return (f"<table{id_attribute}><tr>"
            + "".join(f"<th>{esc(title)}</th>" for _, title in columns) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{esc(line[key])}</td>" for key, _ in columns) + "</tr>" for line in lines)
            + "</table>")


def compare_lines(aggregates: Sequence[Aggregate], others, style: str) -> list[str]:
    """Side by side: this run's virtual/platform ratio per concurrency beside each other source's."""
    sources = [("this run", _ratios((a.row, float(a.row.concurrency), a.throughput_median) for a in aggregates))]
    sources += [(s.label, _ratios(_source_points(s.rows))) for s in others]
    lines = []
    header = ["source", "concurrency", "platform req/s", "virtual req/s", "ratio v/p"]
    body = []
    for label, ratios in sources:
        for conc in sorted(ratios):
            p, v = ratios[conc]
            body.append([label, f"{conc:g}", fmt(p, 0), fmt(v, 0), "–" if not (p > 0 and v > 0) else f"{v / p:.2f}×"])
    if style == "md":
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
    else:
        lines.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in header) + "</tr>")
        lines += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>" for cells in body]
        lines.append("</table>")
    return lines


def _source_points(rows: Sequence[Mapping[str, str]]):
    """Another source's rows as (dimensions, concurrency, req/s): those whose connection mode is released or
    left empty (the published figures), and whose dimensions read as numbers where they should."""
    for r in rows:
        if r.get("conn_mode") not in ("released", ""):
            continue
        try:
            row = dimensions.parse(r)
        except ValueError:
            continue
        yield row, charts._f(r.get("concurrency")), charts._f(r.get("throughput_rps"))


def _ratios(points) -> dict[float, tuple[float, float]]:
    """(platform, virtual) req/s per concurrency of the plain order-summary rows, released, normal path."""
    by_conc: dict[float, dict[str, float]] = {}
    for row, concurrency, rps in points:
        if (row.conn_mode == "released" and row.path_mode == "normal" and row.workload == "order-summary"
                and not dimensions.is_variant(row)):
            by_conc.setdefault(concurrency, {})[row.thread_mode] = rps
    return {c: (m.get("platform", math.nan), m.get("virtual", math.nan)) for c, m in by_conc.items()
            if not math.isnan(c)}


CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #1c2833; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #d5d8dc; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #d5d8dc; padding: 0.3rem 0.6rem; text-align: left; }
th { background: #f4f6f7; } tr.invalid td { color: #922b21; background: #fdedec; }
.story li { margin: 0.4rem 0; line-height: 1.4; } figure { margin: 1rem 0; } svg { max-width: 100%; height: auto; }
.small { color: #566573; font-size: 0.85rem; }
"""


def page(run_dir, head, story, figures, analysis: Analysis, metadata, others, extra=(), failures=(),
         seconds: str = "") -> str:
    esc = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vtlab report: "
             f"{esc(run_dir.name)}</title>",
             f"<style>{CSS}</style></head><body>",
             "<h1>vtlab: platform vs virtual threads</h1>",
             f"<p class='small'>run {esc(run_dir.name)} · {len(analysis.verdicts)} rows · "
             f"{esc(str(metadata.get('started', '')))}</p>",
             "<h2>Headline</h2>" + _html_table(HEADLINE_COLUMNS, head, "headline")]
    parts.append("<h2>What happened</h2><ul class='story'>" + "".join(f"<li>{esc(s)}</li>" for s in story) + "</ul>")
    captions = {"hero": "Throughput (successful responses only; bars: min–max over reps) and p99 latency vs "
                        "concurrency. Dashed: the Little's-law ceiling of each mode.",
                "open": "Open model: successful responses per second vs the offered rate (dotted: what was "
                        "offered; bars: 95% intervals) and p99 latency. No coordinated omission: arrivals keep "
                        "coming while the service is slow.",
                "pool": "Held connections: throughput vs pool size; dashed: pool ÷ time a connection is held.",
                "cpu": "Mean CPU per tier during each row's hold. 100% = one core.",
                "pinning": f"JFR jdk.VirtualThreadPinned events (threshold {analysis.rig.jfr_pinned_threshold_ms} "
                           "ms) per path and thread mode."}
    parts.append("<h2>Figures</h2>")
    for name, (svg, _) in figures.items():
        parts.append(f"<figure id='fig-{name}'>{svg}<figcaption "
                     f"class='small'>{esc(captions[name])}</figcaption></figure>")
    for section in extra:
        parts.append(f"<section id='scenario-{section.key}'><h2>{esc(section.title)}</h2><ul class='story'>"
                     + "".join(f"<li>{esc(s)}</li>" for s in section.verdict) + "</ul>"
                     + _html_table(section.columns, section.table)
                     + (f"<figure>{charts.scenario(section.title, section.chart)}</figure>" if section.chart else "")
                     + "</section>")
    parts.append(seconds)
    if failures:
        parts.append("<h2>Failed rows</h2>" + _html_table(FAILED_COLUMNS, failures, "failed-rows"))
    if others:
        parts.append("<h2>Compared with</h2>")
        parts += compare_lines(analysis.aggregates, others, "html")
    parts += [_every_row(analysis), _how_ceilings(analysis.verdicts), _environment(metadata), "</body></html>"]
    return "\n".join(parts)


def _every_row(analysis: Analysis) -> str:
    esc = html.escape
    threads = analysis.rig.tomcat_max_threads
    parts = ["<h2>Every row</h2><table id='rows'><tr>" + "".join(
        f"<th>{c}</th>" for c in ("row", "req/s ± 95%", "p99 ms (all)", "errors (by status)", "ceiling req/s",
                                  "limit", "attained", "bottleneck", "valid", "flags", "restated ceilings",
                                  "ceilings not computed")) + "</tr>"]
    for a in analysis.verdicts:
        parts.append(f"<tr class='{'valid' if a.valid else 'invalid'}'><td>{esc(row_label(a.row, threads))}</td>"
                     f"<td>{esc(_row_rps(a))}</td><td>{esc(_p99_text(a))}</td>"
                     f"<td>{esc(_errors_text(a))}</td><td>{fmt(a.ceiling_rps, 1)}</td>"
                     f"<td>{esc(a.limit)}</td><td>{fmt(a.attained * 100)}%</td>"
                     f"<td>{esc(a.bottleneck)}</td><td>{'yes' if a.valid else 'NO'}</td>"
                     f"<td>{esc(';'.join(a.flags))}</td><td>{esc(', '.join(a.ceilings.restated))}</td>"
                     f"<td>{esc('; '.join(a.ceilings.missing))}</td></tr>")
    parts.append("</table>")
    return "\n".join(parts)


def _row_rps(a: Verdict) -> str:
    ci = a.measured.throughput_ci95_rps
    return fmt(a.measured.throughput_rps, 1) + ("" if math.isnan(ci) else f" ± {fmt(ci, 1)}")


def _p99_text(a: Verdict) -> str:
    """The successful responses' p99, and beside it every response's when requests failed (a failed request
    that answered fast hides in the first; one that timed out shows in the second)."""
    m = a.measured
    both = m.error_rate > 0 and not math.isnan(m.p99_all_ms)
    return fmt(m.p99_ms) + (f" ({fmt(m.p99_all_ms)})" if both else "")


def _errors_text(a: Verdict) -> str:
    m = a.measured
    return f"{m.error_rate * 100:.2f}%" + (f" ({m.errors_by_status})" if m.errors_by_status else "")


def _how_ceilings(verdicts: Sequence[Verdict]) -> str:
    esc = html.escape
    inputs = sorted({(a.row.conn_mode, a.row.path_mode, round(a.service_time_ms, 1), a.service_time_source)
                     for a in verdicts})
    return ("<h2>How the ceilings were computed</h2><ul class='small'>"
            "<li>Closed model: users ÷ service time. Platform threads: Tomcat max threads ÷ service time. "
            "Held connections: pool ÷ service time; released: pool ÷ (service time − downstream delay). "
            "CPU: (cores − the fixed CPU every tier burns at any load) ÷ the marginal CPU per request, both fitted "
            "over the same scenario's rows at lower load (all tiers' CPU when they share cores).</li>"
            "<li>A ceiling in the last column of Every row restates that row's own measurement, so reaching it says "
            "nothing: the lowest-load row's users ÷ its own p50 (Little's law), cores ÷ its own CPU per request "
            "(the utilisation law: no lower-load rows to predict from), the pool scaled by its own connections "
            "out. The others are predictions from other rows or the design.</li>"
            + "".join(f"<li>service time for {esc(c)} / {esc(p)}: {ms} ms ({esc(src)})</li>"
                      for c, p, ms, src in inputs)
            + "</ul>")


def _plan_lines(plan: object) -> dict[str, str]:
    """The plan as the run was asked for it: its profile and phases, how many rows, and the flags that
    changed the profile (none: the profile as it stands)."""
    if not isinstance(plan, dict):
        return {"plan": "not recorded"}
    overrides = plan.get("overrides") or {}
    phases = " · ".join(f"{name} {plan[key]} s" for name, key in (("ramp", "ramp_s"), ("warm-up", "warmup_s"),
                                                                     ("hold", "hold_s"), ("cool-down", "cooldown_s"))
                        if key in plan)
    rows = plan.get("rows")
    return {"plan": f"profile {plan.get('profile', '?')}, {plan.get('model', 'closed')} model, "
                    f"{len(rows) if isinstance(rows, list) else '?'} rows; {phases}",
            "plan flags": ", ".join(f"{key}={value}" for key, value in sorted(overrides.items()))
            or "none: the profile as it stands"}


def _environment(metadata: Mapping[str, object]) -> str:
    esc = html.escape
    host = metadata.get("host", {}) if isinstance(metadata.get("host"), dict) else {}
    versions = metadata.get("versions", {}) if isinstance(metadata.get("versions"), dict) else {}
    env_rows = {**{f"host {k}": v for k, v in host.items()}, **{f"version {k}": v for k, v in versions.items()},
                "core map": metadata.get("core_map", ""),
                **_plan_lines(metadata.get("plan"))}
    return "<h2>Environment</h2><table id='environment'>" + "".join(
        f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>" for k, v in env_rows.items()) + "</table>"
