"""compare.html: the comparison as one self-contained page (inline CSS and SVG): the environment first, each
scenario's changes drawn with their intervals, the report's throughput chart with both runs, and the tables."""

from __future__ import annotations

import math
from html import escape

from vtlab.compare.compared import Comparison
from vtlab.compare.gate import Breach
from vtlab.compare.metrics import BY_NAME
from vtlab.compare.render import interval, moved
from vtlab.compare.stats import BETTER, WORSE, Change
from vtlab.report import charts, html
from vtlab.report.charts import plt  # matplotlib as the report sets it up (no display)
from vtlab.results.compare import Source

VERDICT_COLOURS = {BETTER: "#1e8449", WORSE: "#c0392b"}
DRAWN = ("throughput", "p99", "cpu")


def serialise(comparison: Comparison, breaches: list[Breach] | None = None) -> str:
    c = comparison
    title = f"{c.new.name} against {c.base.name}"
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vtlab compare: {escape(title)}"
             f"</title><style>{html.CSS}</style></head><body>", f"<h1>{escape(title)}</h1>",
             f"<p><strong>{escape(c.headline)}.</strong></p>"]
    if c.environment:
        parts.append("<table id='environment'><tr><th></th><th>base</th><th>new</th></tr>" + "".join(
            f"<tr><th>{escape(name)}</th><td>{escape(a)}</td><td>{escape(b)}</td></tr>" for name, a, b in c.environment)
            + "</table>")
    if breaches is not None:
        parts.append("<h2>Gate</h2><ul>" + ("".join(
            f"<li>FAILED {escape(str(b.condition))}: {escape(b.scenario)}, {moved(b.condition.metric, b.change)}</li>"
            for b in breaches) or "<li>passed: no significant change crosses a threshold</li>") + "</ul>")
    parts.append("<h2>Changes</h2>" + _changes_chart(c))
    threads = c.new.analysis.rig.tomcat_max_threads
    both = charts.hero(c.new.analysis.aggregates, [Source(f"base: {c.base.name}", list(c.base.rows))], threads)
    if both:
        parts.append("<h2>Throughput and p99, both runs</h2><figure>" + both[0] + "<figcaption class='small'>"
                     f"markers and bars: {escape(c.new.name)} (its 95% intervals); dotted: "
                     f"{escape(c.base.name)}</figcaption></figure>")
    for row in c.rows:
        parts.append(f"<h2>{escape(row.label)}</h2><p class='small'>{row.reps[0]} vs {row.reps[1]} rep(s)"
                     + (f"; {escape('; '.join(row.flags))}" if row.flags else "") + "</p>")
        parts.append("<table><tr><th>metric</th><th>base</th><th>new</th><th>change</th><th>95% interval</th>"
                     "<th>verdict</th></tr>" + "".join(
                         f"<tr><td>{escape(BY_NAME[name].title)}</td><td>{_number(ch.base)}</td>"
                         f"<td>{_number(ch.new)}</td><td>{moved(name, ch)}</td>"
                         f"<td>{interval(name, ch)}</td><td>{escape(_verdict(ch))}</td></tr>"
                         for name, ch in row.changes.items()) + "</table>")
    for heading, labels in (("Only in the base run", c.only_base), ("Only in the new run", c.only_new)):
        if labels:
            parts.append(f"<h2>{heading}</h2><ul>" + "".join(f"<li>{escape(x)}</li>" for x in labels) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _verdict(change: Change) -> str:
    return f"{change.verdict} ({change.why})" if change.why else change.verdict


def _changes_chart(c: Comparison) -> str:
    """Per drawn metric, each scenario's change in % of the base with its 95% interval; coloured where significant."""
    rows = [row for row in c.rows if any(name in row.changes for name in DRAWN)]
    if not rows:
        return "<p class='small'>no matched scenario to draw</p>"
    fig, axes = plt.subplots(1, len(DRAWN), figsize=(11, 0.45 * len(rows) + 1.6), sharey=True)
    for ax, name in zip(axes, DRAWN, strict=True):
        for index, row in enumerate(rows):
            change = row.changes.get(name)
            if change is None or math.isnan(change.share):
                continue
            colour = VERDICT_COLOURS.get(change.verdict, "#566573")
            if not math.isnan(change.share_low):
                ax.plot([change.share_low * 100, change.share_high * 100], [index, index], color=colour, lw=2)
            ax.plot([change.share * 100], [index], marker="o", color=colour)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_title(f"{BY_NAME[name].title} (% of base)", fontsize=9)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(rows)), [row.label for row in rows], fontsize=8)
    axes[0].invert_yaxis()
    return "<figure>" + charts.svg(fig) + ("<figcaption class='small'>green: better, red: worse (the 95% interval "
                                           "excludes no change); grey: ~, no noise estimate, or not judged (a "
                                           "flagged row)</figcaption></figure>")


def _number(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:,.4g}"

