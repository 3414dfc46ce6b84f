"""`vtlab report`: analysis.csv, report.html (self-contained) and report.md from a run's CSV and
metadata only, optionally with other runs or the published figures overlaid."""

from __future__ import annotations

import csv
import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from vtlab import analyze, charts, compare, results, scenarios

ANALYSIS_NAME = "analysis.csv"


def render(run_dir: Path, compare_with: Sequence[Path] = ()) -> dict[str, Path]:
    rows = results.read_rows(run_dir / results.CSV_NAME)
    if not rows:
        raise ValueError(f"{run_dir / results.CSV_NAME} holds no rows to report")
    metadata = results.read_metadata(run_dir)
    others = [source for path in compare_with for source in compare.load(path)]
    failed = [row for row in rows if analyze.failed(row)]
    measured = [row for row in rows if not analyze.failed(row)]  # the only rows any verdict or chart sees
    analysed = analyze.analyse(measured, metadata)
    aggregated = analyze.aggregate(analysed)

    paths = {"analysis": run_dir / ANALYSIS_NAME, "html": run_dir / "report.html",
             "markdown": run_dir / "report.md", "charts": run_dir / "charts.json"}
    _write_analysis(paths["analysis"], [*analysed, *map(analyze.failed_verdict, failed)])
    figures = _figures(measured, analysed, aggregated, others, metadata) if measured else {}
    extra = scenarios.sections(analysed, mode_label)
    paths["charts"].write_text(json.dumps({**{name: data for name, (_, data) in figures.items()},
                                           **{f"scenario-{section.key}": section.chart for section in extra}},
                                          indent=1) + "\n")
    story = explain(aggregated, analysed) + _failures_sentence(failed)
    head = headline(aggregated)
    failures = failed_rows(failed)
    paths["markdown"].write_text(markdown(head, story, analysed, others, aggregated, extra, failures))
    paths["html"].write_text(page(run_dir, head, story, figures, analysed, metadata, others, aggregated, extra,
                                  failures))
    return paths


def _write_analysis(path: Path, analysed: Sequence[Mapping[str, object]]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(analyze.ANALYSIS_COLUMNS)
        for row in analysed:
            writer.writerow([results.format_value(row[c]) for c in analyze.ANALYSIS_COLUMNS])


FAILED_COLUMNS = [("row", "row"), ("tier", "tier that died"), ("how", "how it ended"), ("log", "its log's last line")]


def failed_rows(rows: Sequence[Mapping[str, object]]) -> list[dict[str, str]]:
    """The rows a tier died in, for their own table: which tier, how, and the last thing it logged."""
    return [{"row": row_label(row), "tier": str(row.get("failed_tier")), "how": str(row.get("failure")),
             "log": (str(row.get("failure_log") or "").strip().splitlines() or [""])[-1][:200]} for row in rows]


def _failures_sentence(failed: Sequence[Mapping[str, object]]) -> list[str]:
    if not failed:
        return []
    return [f"{len(failed)} row(s) failed — a tier died during the row — and are left out of every verdict and "
            "chart above and below (see Failed rows; `--resume` measures them again)."]


def row_label(row: Mapping[str, object]) -> str:
    load = f"{row.get('target_rps')}/s" if row.get("load_model") == "open" else f"{row.get('concurrency')} users"
    return (f"{mode_label(row)} {load} {scenario_label(row)}"
            + (f" rep {row.get('rep')}" if str(row.get("rep")) != "1" else ""))


def mode_label(row: Mapping[str, object]) -> str:
    """'platform' with Tomcat's default pool, 'platform (2 threads)' with another size, 'virtual'."""
    threads = int(analyze.num(row, "tomcat_max_threads", analyze.DEFAULT_TOMCAT_THREADS))
    if row.get("thread_mode") == "platform" and threads != analyze.DEFAULT_TOMCAT_THREADS:
        return f"platform ({threads} threads)"
    return str(row.get("thread_mode"))


def scenario_label(row: Mapping[str, object]) -> str:
    kind = analyze.workload(row)
    if kind == "sleep":
        return f"sleep {_fmt(analyze.num(row, 'sleep_ms'))} ms"
    if kind == "cpu":
        return f"cpu {_fmt(analyze.num(row, 'cpu_work'))} SHA-256 rounds"
    if kind == "offload":
        return ("offload to a " + f"{_fmt(analyze.num(row, 'offload_pool'))}-thread platform pool"
                if row.get("offload_executor") == "platform" else "offload to virtual threads")
    if kind == "fanout":
        return f"fan-out, {row.get('fanout')}"
    return (("write, " if kind == "write" else "") + f"{row.get('conn_mode')}, pool {row.get('hikari_pool')}"
            + ("" if str(row.get("pool_impl") or "hikari") in ("hikari", "r2dbc") else f" ({row.get('pool_impl')})")
            + ("" if row.get("path_mode") == "normal" else f", {row.get('path_mode')}")
            + ("" if str(row.get("context") or "none") == "none" else f", {row.get('context')} context")
            + _latency_label(row, "db", "PostgreSQL") + _latency_label(row, "downstream", "downstream"))


def _latency_label(row: Mapping[str, object], prefix: str, tier: str) -> str:
    latency, jitter = analyze.num(row, f"{prefix}_latency_ms", 0), analyze.num(row, f"{prefix}_jitter_ms", 0)
    if not latency and not jitter:
        return ""
    return f", {tier} +{_fmt(latency)}" + (f"±{_fmt(jitter)}" if jitter else "") + " ms each way"


def _figures(rows, analysed, aggregated, others, metadata) -> dict[str, tuple[str, dict]]:
    host = metadata.get("host", {}) if isinstance(metadata.get("host"), dict) else {}
    cpus = int(host.get("cpus_available") or 0) or int(max(analyze.num(r, "app_cpus", 1) for r in rows))
    figures = {name: figure for name, figure in (("hero", charts.hero(aggregated, others)),
                                                 ("pool", charts.pool(aggregated))) if figure}
    figures["cpu"] = charts.cpu(rows, [row_label(a) for a in analysed], cpus * 100)
    figures["pinning"] = charts.pinning(rows)
    return figures


# --- words -----------------------------------------------------------------------------------

def _fmt(value: object, digits: int = 0) -> str:
    number = float(value)  # type: ignore[arg-type]
    return "–" if math.isnan(number) or math.isinf(number) else f"{number:,.{digits}f}"


def _rps(line: Mapping[str, object]) -> str:
    text = _fmt(line["throughput_median"], 1)
    if int(line["reps"]) > 1:
        text += f" [{_fmt(line['throughput_min'], 1)}–{_fmt(line['throughput_max'], 1)}]"
        if line["spread_warning"]:
            text += " ⚠"
    return text + ("" if line["valid"] else " (invalid)")


def headline(aggregated: Sequence[Mapping[str, object]]) -> list[dict[str, str]]:
    """concurrency | platform req/s · p99 | virtual req/s · p99 | ratio | bottleneck per mode."""
    paired = [line for line in aggregated if line["thread_mode"] != "webflux"]  # the twin has its own section
    # the run's usual downstream delay goes without saying; a line with another one says so
    delays = [str(line["stub_delay_ms"]) for line in paired]
    usual_delay = max(sorted(set(delays)), key=delays.count) if delays else ""
    groups: dict[tuple, dict[str, Mapping[str, object]]] = {}
    for line in paired:
        load = line["target_rps"] + "/s" if line["load_model"] == "open" else line["concurrency"]
        # a platform pool of another size is its own scenario; virtual threads pair with Tomcat's default
        threads = (int(line["tomcat_max_threads"]) if line["thread_mode"] == "platform"
                   else analyze.DEFAULT_TOMCAT_THREADS)
        scenario = scenario_label(line) + ("" if str(line["stub_delay_ms"]) == usual_delay
                                           else f", downstream {_fmt(line['stub_delay_ms'])} ms")
        key = (analyze.workload(line) != "order-summary" or analyze.is_variant(line), scenario,
               line["conn_mode"] != "released", threads, line["load_model"], load)
        groups.setdefault(key, {})[str(line["thread_mode"])] = line
    table = []
    for key in sorted(groups, key=lambda k: (k[0], k[2], k[1], k[3], k[4], float(str(k[5]).rstrip("/s")))):
        _, scenario, _, threads, _model, load = key
        p, v = groups[key].get("platform"), groups[key].get("virtual")
        ratio = (float(v["throughput_median"]) / float(p["throughput_median"])
                 if p and v and float(p["throughput_median"]) > 0 else math.nan)
        table.append({
            "scenario": scenario + ("" if threads == analyze.DEFAULT_TOMCAT_THREADS
                                    else f", {threads} platform threads"),
            "concurrency": str(load),
            "platform": f"{_rps(p)} · p99 {_fmt(p['p99_median'])} ms" if p else "–",
            "virtual": f"{_rps(v)} · p99 {_fmt(v['p99_median'])} ms" if v else "–",
            "ratio": "–" if math.isnan(ratio) else f"{ratio:.2f}×",
            "bottleneck": f"{_bottleneck(p)} / {_bottleneck(v)}",
        })
    return table


def _bottleneck(line: Mapping[str, object] | None) -> str:
    if not line:
        return "–"
    return str(line["bottleneck"]) + (f" (reps: {line['bottlenecks_seen']})" if line.get("bottlenecks_seen") else "")


def explain(aggregated: Sequence[Mapping[str, object]], analysed: Sequence[Mapping[str, object]]) -> list[str]:
    """Sentences generated from the analysis: where each mode flattened and why."""
    service = {(a["conn_mode"], a["path_mode"]): (a["service_time_ms"], a["service_time_source"])
               for a in main_rows(analysed)}

    def lines(conn: str, mode: str) -> list[Mapping[str, object]]:
        return sorted((a for a in main_rows(aggregated) if a["conn_mode"] == conn and a["thread_mode"] == mode
                       and a["path_mode"] == "normal" and a["load_model"] == "closed"),
                      key=lambda a: int(a["concurrency"]))

    platform, virtual = lines("released", "platform"), lines("released", "virtual")
    story = [*_platform_story(platform, service), *_virtual_story(virtual, platform),
             *_held_story(aggregated, service)]
    if not story:
        story.append("This run measured only the scenarios below; the order-summary story needs `--workload "
                     "order-summary` rows.")
    return story + _validity_story(analysed)


def _platform_story(platform, service) -> list[str]:
    if not platform:
        return []
    ms, source = service.get(("released", "normal"), (math.nan, ""))
    walls = [a for a in platform if a["bottleneck"] == "thread-pool"]
    if walls:
        wall = walls[-1]
        return [f"Platform threads flatten at {_fmt(wall['throughput_median'], 0)} req/s: Tomcat's threads ÷ "
                f"the time each is busy ({_fmt(ms, 0)} ms, the {source}) predict "
                f"{_fmt(wall['ceiling_rps'], 0)} req/s, and past that users only queue "
                f"(p99 {_fmt(wall['p99_median'], 0)} ms at {wall['concurrency']} users)."]
    best = max(platform, key=lambda a: float(a["throughput_median"]))
    return [f"Platform threads reached {_fmt(best['throughput_median'], 0)} req/s at "
            f"{best['concurrency']} users without meeting their thread wall ({best['bottleneck']})."]


LIMIT_WORDS = {"concurrency": "the users themselves (each waits on the downstream, so users ÷ service time)",
               "cpu": "the CPU", "connection-pool": "the connection pool", "thread-pool": "the thread pool"}


def _virtual_story(virtual, platform) -> list[str]:
    if not virtual:
        return []
    best = max(virtual, key=lambda a: float(a["throughput_median"]))
    story = [f"Virtual threads reach {_fmt(best['throughput_median'], 0)} req/s at {best['concurrency']} users "
             f"({_fmt(float(best['throughput_median']) / float(best['ceiling_rps']) * 100, 0)}% of a predicted "
             f"{_fmt(best['ceiling_rps'], 0)} req/s), limited by {LIMIT_WORDS.get(str(best['limit']), best['limit'])}; "
             f"bottleneck: {best['bottleneck']}."]
    top_p = max((float(a["throughput_median"]) for a in platform), default=0.0)
    if top_p > 0:
        story.append(f"At the highest concurrency measured, virtual threads deliver "
                     f"{float(best['throughput_median']) / top_p:.1f}× the best platform-thread throughput.")
    return story


def _held_story(aggregated, service) -> list[str]:
    held = [a for a in main_rows(aggregated) if a["conn_mode"] == "held" and a["path_mode"] == "normal"]
    if not held:
        return []
    ms, source = service.get(("held", "normal"), (math.nan, ""))
    parts = ", ".join(f"{a['thread_mode']} {_fmt(a['throughput_median'], 1)} req/s ({a['bottleneck']})"
                      for a in sorted(held, key=lambda a: (int(a["hikari_pool"]), a["thread_mode"])))
    pools = sorted({int(a["hikari_pool"]) for a in held})
    return [f"With the connection held across the downstream call the bottleneck moves to the pool: "
            f"pool ÷ {_fmt(ms, 0)} ms ({source}) caps both modes at "
            + ", ".join(f"{_fmt(p / (ms / 1000), 0)} req/s for {p} connections" for p in pools)
            + f" — measured: {parts}. Virtual threads cannot help when every request needs a connection "
            "for the whole call."]


def _validity_story(analysed) -> list[str]:
    invalid = [a for a in analysed if not a["valid"]]
    if invalid:
        return [f"{len(invalid)} row(s) cannot be trusted and are marked: "
                + "; ".join(f"{row_label(a)} ({a['flags']})" for a in invalid) + "."]
    return ["Every row is valid: the generator kept up (its CPU is in every row), no dropped "
            "iterations, no counted errors, samplers complete, throughput steady across the hold."]


def main_rows(lines: Sequence[Mapping[str, object]]) -> list[Mapping[str, object]]:
    """The order-summary rows at Tomcat's default pool: what the hero story is told from."""
    return [a for a in lines if analyze.workload(a) == "order-summary" and not analyze.is_variant(a)
            and (a["thread_mode"] != "platform"
                 or int(analyze.num(a, "tomcat_max_threads", 200)) == analyze.DEFAULT_TOMCAT_THREADS)]


# --- rendering -------------------------------------------------------------------------------

HEADLINE_COLUMNS = [("scenario", "scenario"), ("concurrency", "concurrency"),
                    ("platform", "platform req/s · p99"), ("virtual", "virtual req/s · p99"),
                    ("ratio", "ratio v/p"), ("bottleneck", "bottleneck (platform / virtual)")]


def markdown(head, story, analysed, others, aggregated, extra=(), failures=()) -> str:
    out = ["# vtlab: platform vs virtual threads", "", *_md_table(HEADLINE_COLUMNS, head)]
    out += ["", *[f"- {sentence}" for sentence in story], ""]
    for section in extra:
        out += [f"## {section.title}", "", *[f"- {sentence}" for sentence in section.verdict], "",
                *_md_table(section.columns, section.table), ""]
    if failures:
        out += ["## Failed rows", "", *_md_table(FAILED_COLUMNS, failures), ""]
    if others:
        out += ["## Compared with", "", *compare_lines(aggregated, others, "md"), ""]
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


def compare_lines(aggregated, others, style: str) -> list[str]:
    """Side by side: this run's virtual/platform ratio per concurrency beside each other source's."""
    def ratios(rows, value_key: str) -> dict[float, tuple[float, float]]:
        by_conc: dict[float, dict[str, float]] = {}
        for r in rows:
            if (r.get("conn_mode") in ("released", "") and r.get("path_mode", "normal") == "normal"
                    and analyze.workload(r) == "order-summary" and not analyze.is_variant(r)):
                conc = charts._f(r.get("concurrency"))
                by_conc.setdefault(conc, {})[str(r.get("thread_mode"))] = charts._f(r.get(value_key))
        return {c: (m.get("platform", math.nan), m.get("virtual", math.nan)) for c, m in by_conc.items()
                if not math.isnan(c)}

    sources = [("this run", ratios(aggregated, "throughput_median"))]
    sources += [(s.label, ratios(s.rows, "throughput_rps")) for s in others]
    lines = []
    header = ["source", "concurrency", "platform req/s", "virtual req/s", "ratio v/p"]
    body = []
    for label, table in sources:
        for conc in sorted(table):
            p, v = table[conc]
            body.append([label, f"{conc:g}", _fmt(p, 0), _fmt(v, 0), "–" if not (p > 0 and v > 0) else f"{v / p:.2f}×"])
    if style == "md":
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
    else:
        lines.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in header) + "</tr>")
        lines += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>" for cells in body]
        lines.append("</table>")
    return lines


CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #1c2833; }
h1 { margin-bottom: 0.2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #d5d8dc; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #d5d8dc; padding: 0.3rem 0.6rem; text-align: left; }
th { background: #f4f6f7; } tr.invalid td { color: #922b21; background: #fdedec; }
.story li { margin: 0.4rem 0; line-height: 1.4; } figure { margin: 1rem 0; } svg { max-width: 100%; height: auto; }
.small { color: #566573; font-size: 0.85rem; }
"""


def page(run_dir, head, story, figures, analysed, metadata, others, aggregated, extra=(), failures=()) -> str:
    esc = html.escape
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vtlab report: "
             f"{esc(run_dir.name)}</title>",
             f"<style>{CSS}</style></head><body>",
             "<h1>vtlab: platform vs virtual threads</h1>",
             f"<p class='small'>run {esc(run_dir.name)} · {len(analysed)} rows · "
             f"{esc(str(metadata.get('started', '')))}</p>",
             "<h2>Headline</h2>" + _html_table(HEADLINE_COLUMNS, head, "headline")]
    parts.append("<h2>What happened</h2><ul class='story'>" + "".join(f"<li>{esc(s)}</li>" for s in story) + "</ul>")
    captions = {"hero": "Throughput (successful responses only; bars: min–max over reps) and p99 latency vs "
                        "concurrency. Dashed: the Little's-law ceiling of each mode.",
                "pool": "Held connections: throughput vs pool size; dashed: pool ÷ time a connection is held.",
                "cpu": "Mean CPU per tier during each row's hold. 100% = one core.",
                "pinning": "JFR jdk.VirtualThreadPinned events (threshold 20 ms) per path and thread mode."}
    parts.append("<h2>Figures</h2>")
    for name, (svg, _) in figures.items():
        parts.append(f"<figure id='fig-{name}'>{svg}<figcaption "
                     f"class='small'>{esc(captions[name])}</figcaption></figure>")
    for section in extra:
        parts.append(f"<section id='scenario-{section.key}'><h2>{esc(section.title)}</h2><ul class='story'>"
                     + "".join(f"<li>{esc(s)}</li>" for s in section.verdict) + "</ul>"
                     + _html_table(section.columns, section.table)
                     + f"<figure>{charts.scenario(section.title, section.chart)}</figure></section>")
    if failures:
        parts.append("<h2>Failed rows</h2>" + _html_table(FAILED_COLUMNS, failures, "failed-rows"))
    if others:
        parts.append("<h2>Compared with</h2>")
        parts += compare_lines(aggregated, others, "html")
    parts.append("<h2>Every row</h2><table id='rows'><tr>" + "".join(
        f"<th>{c}</th>" for c in ("row", "req/s", "p99 ms", "errors", "ceiling req/s", "limit", "attained",
                                  "bottleneck", "valid", "flags")) + "</tr>")
    for a in analysed:
        parts.append(f"<tr class='{'valid' if a['valid'] else 'invalid'}'><td>{esc(row_label(a))}</td>"
                     f"<td>{_fmt(a['throughput_rps'], 1)}</td><td>{_fmt(a['p99_ms'])}</td>"
                     f"<td>{float(a['error_rate']) * 100:.2f}%</td><td>{_fmt(a['ceiling_rps'], 1)}</td>"
                     f"<td>{esc(str(a['limit']))}</td><td>{_fmt(float(a['attained']) * 100)}%</td>"
                     f"<td>{esc(str(a['bottleneck']))}</td><td>{'yes' if a['valid'] else 'NO'}</td>"
                     f"<td>{esc(str(a['flags']))}</td></tr>")
    parts.append("</table>")
    inputs = sorted({(a["conn_mode"], a["path_mode"], round(float(a["service_time_ms"]), 1), a["service_time_source"])
                     for a in analysed})
    parts.append("<h2>How the ceilings were computed</h2><ul class='small'>"
                 "<li>Closed model: users ÷ service time. Platform threads: Tomcat max threads ÷ service time. "
                 "Held connections: pool ÷ service time; released: pool ÷ (service time − downstream delay). "
                 "CPU: cores ÷ CPU ms per request (all tiers' CPU when they share cores).</li>"
                 + "".join(f"<li>service time for {esc(c)} / {esc(p)}: {ms} ms ({esc(src)})</li>"
                           for c, p, ms, src in inputs)
                 + "</ul>")
    host = metadata.get("host", {}) if isinstance(metadata.get("host"), dict) else {}
    versions = metadata.get("versions", {}) if isinstance(metadata.get("versions"), dict) else {}
    env_rows = {**{f"host {k}": v for k, v in host.items()}, **{f"version {k}": v for k, v in versions.items()},
                "core map": metadata.get("core_map", ""),
                "plan": json.dumps((metadata.get("plan") or {}).get("overrides", {}))}
    parts.append("<h2>Environment</h2><table id='environment'>" + "".join(
        f"<tr><th>{esc(str(k))}</th><td>{esc(str(v))}</td></tr>" for k, v in env_rows.items()) + "</table>")
    parts.append("</body></html>")
    return "\n".join(parts)
