"""A comparison written out: compare.md (the terminal prints it too) and compare.json, every figure computed from
the comparison, the environment's differences first."""

from __future__ import annotations

import json
import math

from vtlab.compare.compared import Comparison
from vtlab.compare.gate import Breach
from vtlab.compare.metrics import BY_NAME, METRICS
from vtlab.compare.stats import Change

VERDICT_WORDS = {"better": "better", "worse": "**worse**", "~": "~", "?": "? (no noise estimate)",
                 "invalid": "not judged (a row is flagged)"}


def markdown(comparison: Comparison, breaches: list[Breach] | None = None) -> str:
    c = comparison
    lines = [f"# {c.new.name} against {c.base.name}", "", f"**{c.headline}.**", ""]
    if c.environment:
        lines += ["| | base | new |", "|---|---|---|", *(f"| {name} | {a} | {b} |" for name, a, b in c.environment),
                  ""]
    lines += [_summary(c), "",
              "Each change is NEW − BASE with its 95% interval, in % of BASE (the error rate in percentage points): "
              "`~` where the interval includes no change. Reps: the interval of their means' ratio (Welch's t on its "
              "log); one rep: the between-run noise for the metric the run recorded (reference/noise-floor), or the "
              "row's own interval where wider; `?` where neither was measured.", ""]
    for row in c.rows:
        reps = f"{row.reps[0]} vs {row.reps[1]} rep(s)"
        lines += [f"## {row.label}", "", f"{reps}" + (f"; {'; '.join(row.flags)}" if row.flags else ""), "",
                  "| metric | base | new | change | 95% interval | verdict |", "|---|---|---|---|---|---|"]
        for name, change in row.changes.items():
            metric = BY_NAME[name]
            lines.append(f"| {metric.title} | {_value(change.base, metric.unit, name)} | "
                         f"{_value(change.new, metric.unit, name)} | {moved(name, change)} | "
                         f"{interval(name, change)} | {verdict_words(change)} |")
        lines.append("")
    for title, labels in (("Only in the base run", c.only_base), ("Only in the new run", c.only_new)):
        if labels:
            lines += [f"## {title}", "", *(f"- {label}" for label in labels), ""]
    if breaches is not None:
        lines += ["## Gate", ""]
        lines += [f"- FAILED {b.condition}: {b.scenario}, {moved(b.condition.metric, b.change)} "
                  f"({interval(b.condition.metric, b.change)})" for b in breaches] or [
            "- passed: no significant change crosses a threshold"]
        lines.append("")
    return "\n".join(lines)


def verdict_words(change: Change) -> str:
    """The verdict as the table says it; a `?` with the reason it has no noise estimate where one is known."""
    return f"? ({change.why})" if change.verdict == "?" and change.why else VERDICT_WORDS[change.verdict]


def _summary(c: Comparison) -> str:
    counts = {verdict: 0 for verdict in VERDICT_WORDS}
    for row in c.rows:
        for change in row.changes.values():
            counts[change.verdict] += 1
    return (f"{len(c.rows)} scenario(s) matched, {len(c.only_base)} only in the base, {len(c.only_new)} only in the "
            f"new; metrics: {counts['worse']} worse, {counts['better']} better, {counts['~']} `~`, "
            f"{counts['?']} without a noise estimate, {counts['invalid']} not judged (a flagged row).")


def _value(value: float, unit: str, name: str) -> str:
    if math.isnan(value):
        return "-"
    if name == "errors":
        return f"{value * 100:.2f}%"
    return f"{value:,.1f} {unit}" if abs(value) >= 10 else f"{value:.3g} {unit}"


def moved(name: str, change: Change) -> str:
    """The change in % of the base; the error rate's in percentage points of the requests (its base is mostly 0)."""
    if name == "errors":
        return f"{change.delta * 100:+.2f} pt"
    return "-" if math.isnan(change.share) else f"{change.share * 100:+.1f}%"


def interval(name: str, change: Change) -> str:
    if math.isnan(change.low):
        return "-"
    if name == "errors":
        return f"[{change.low * 100:+.2f}, {change.high * 100:+.2f}] pt"
    if not change.base:
        return "-"
    return f"[{change.share_low * 100:+.1f}%, {change.share_high * 100:+.1f}%]"


def as_json(comparison: Comparison, breaches: list[Breach] | None = None) -> str:
    c = comparison

    def number(value: float) -> float | None:
        return None if math.isnan(value) else round(value, 6)

    document = {
        "base": str(c.base.path), "new": str(c.new.path),
        "base_part": c.base.selection, "new_part": c.new.selection, "headline": c.headline,
        "environment": [{"fact": name, "base": a, "new": b} for name, a, b in c.environment],
        "metrics": [{"name": m.name, "column": m.column, "unit": m.unit, "higher_is_better": m.higher_is_better}
                    for m in METRICS],
        "rows": [{"scenario": row.label, "reps": list(row.reps), "flags": list(row.flags),
                  "changes": {name: {"base": number(ch.base), "new": number(ch.new), "delta": number(ch.delta),
                                     "low": number(ch.low), "high": number(ch.high), "share": number(ch.share),
                                     "verdict": ch.verdict, **({"why": ch.why} if ch.why else {})}
                              for name, ch in row.changes.items()}}
                 for row in c.rows],
        "only_base": c.only_base, "only_new": c.only_new,
    }
    if breaches is not None:
        document["gate"] = {"failed": bool(breaches),
                            "breaches": [{"scenario": b.scenario, "condition": str(b.condition),
                                          "share": number(b.change.share)} for b in breaches]}
    return json.dumps(document, indent=2) + "\n"
