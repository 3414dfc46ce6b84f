"""Two capacity runs compared, written as an ordinary comparison is: capacity-compare.json (every figure a JSON
number, an unknown one null, the gate's outcome where one was given) and capacity-compare.html (one self-contained
page: each mode's change with its range and verdict, the gate, and both runs' curves as the report draws them)."""

from __future__ import annotations

import json
import math
from html import escape
from pathlib import Path

from vtlab.compare.capacity import unfinished
from vtlab.compare.gate import Breach
from vtlab.compare.stats import Change
from vtlab.report import capacitychart, html
from vtlab.results.capacityfile import CapacityRun

Found = list[tuple[str, str, Change]]  # (mode, "capacity", change), as compare.capacity.changes gives them


def as_json(base_dir: Path, new_dir: Path, base: CapacityRun, new: CapacityRun, found: Found,
            breaches: list[Breach] | None) -> str:
    def number(value: float) -> float | None:
        return value if math.isfinite(value) else None

    def side(run: CapacityRun, mode: str) -> dict:
        searched = run.mode(mode)
        return {"capacity": number(searched.capacity), "bracket_low": number(searched.bracket_low),
                "bracket_high": number(searched.bracket_high), "stop": searched.stop}

    document = {
        "base": str(base_dir), "new": str(new_dir), "objective": base.objective, "model": base.model,
        "unit": base.unit, "complete": {"base": base.complete, "new": new.complete},
        "modes": [{"mode": mode, "base": side(base, mode), "new": side(new, mode), "delta": number(moved.delta),
                   "low": number(moved.low), "high": number(moved.high), "share": number(moved.share),
                   "verdict": moved.verdict} for mode, _, moved in found],
    }
    if breaches is not None:
        # a search that did not finish fails the gate whatever its brackets say (compare.capacity)
        document["gate"] = {"failed": bool(breaches) or bool(unfinished(base, new)),
                            "breaches": [{"mode": b.scenario, "condition": str(b.condition),
                                          "share": number(b.change.share)} for b in breaches],
                            "incomplete": list(unfinished(base, new))}
    return json.dumps(document, indent=2) + "\n"


def serialise(base_dir: Path, new_dir: Path, base: CapacityRun, new: CapacityRun, found: Found,
              breaches: list[Breach] | None) -> str:
    title = f"{new_dir.name} against {base_dir.name}: capacity at {base.objective}"
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>vtlab compare: {escape(title)}"
             f"</title><style>{html.CSS}</style></head><body>", f"<h1>{escape(title)}</h1>",
             "<table id='capacity-changes'><tr><th>mode</th><th>base</th><th>new</th><th>change</th>"
             "<th>range (from the brackets)</th><th>verdict</th></tr>"
             + "".join(f"<tr><td>{escape(mode)}</td><td>{_bracket(base, mode)}</td><td>{_bracket(new, mode)}</td>"
                       f"<td>{_share(moved.share)}</td><td>{_n(moved.low)} to {_n(moved.high)} {escape(base.unit)}"
                       f"</td><td>{escape(moved.verdict)}</td></tr>" for mode, _, moved in found) + "</table>",
             "<p class='small'>A change is better or worse only where the brackets do not overlap: the capacity could "
             "be anywhere inside its bracket.</p>"]
    for name in unfinished(base, new):
        parts.append(f"<p><strong>{name}'s search is incomplete</strong>: it did not finish, its brackets are as they "
                     "stood.</p>")
    if breaches is not None:
        failures = [f"<li>FAILED {escape(str(b.condition))}: {escape(b.scenario)}, {_share(b.change.share)}</li>"
                    for b in breaches]
        failures += [f"<li>FAILED: {name}'s search is incomplete, and a gate passes only finished searches</li>"
                     for name in unfinished(base, new)]
        parts.append("<h2>Gate</h2><ul>" + ("".join(failures) or "<li>passed: no change beyond both brackets crosses "
                                                                 "a threshold</li>") + "</ul>")
    for words, folder, run in (("base", base_dir, base), ("new", new_dir, new)):
        parts.append(f"<h2>{escape(words)}: {escape(folder.name)}</h2><figure>{capacitychart.curve(run)[0]}"
                     "</figure>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _bracket(run: CapacityRun, mode: str) -> str:
    searched = run.mode(mode)
    high = _n(searched.bracket_high) if math.isfinite(searched.bracket_high) else "no break"
    return f"{_n(searched.capacity)} {escape(run.unit)} [{_n(searched.bracket_low)}–{high}]"


def _share(share: float) -> str:
    return f"{share * 100:+.1f}%" if math.isfinite(share) else "?"


def _n(value: float) -> str:
    return f"{value:,.0f}" if math.isfinite(value) else "?"
