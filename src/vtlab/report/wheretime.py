"""Where the time goes: for each point measured in both modes, what a request cost the service in each (the
counters: CPU, bytes allocated, GC pauses, context switches) and, where the rows kept profiles, which layers of the
service the difference lies in (explain.stacks over the rows' collapsed stacks).

A layer's difference is named only where it exceeds the profiles' sampling error (a share of n samples has a
binomial standard error; the samples of one run are not independent, so that error is a lower bound); the rest is
said to lie within it.
"""

from __future__ import annotations

import math
from pathlib import Path

from vtlab.core import dimensions
from vtlab.explain import stacks
from vtlab.explain.model import Aggregate, Analysis
from vtlab.report import headline
from vtlab.report.labels import fmt
from vtlab.report.scenarios.common import Section

COLUMNS = [("point", "point"), ("what", "per request"), ("platform", "platform"), ("virtual", "virtual"),
           ("difference", "virtual − platform")]
LAYERS_SHOWN = 6     # the layers with the largest differences, per point and kind
FRAMES_SHOWN = 5     # the frames whose own CPU (the leaf of a stack) differs most
Z_95 = 1.96


def section(run_dir: Path, analysis: Analysis) -> Section | None:
    """None when no point has both modes with a per-request cost measured (an older run's CSV has none)."""
    verdict: list[str] = []
    table: list[dict[str, str]] = []
    for pair in headline.lines(analysis.aggregates, analysis.rig.tomcat_max_threads):
        if pair.platform is None or pair.virtual is None:
            continue
        point = f"{pair.scenario}, " + (f"{pair.load} offered" if pair.load.endswith("/s") else f"{pair.load} users")
        costs = _costs(point, pair.platform, pair.virtual)
        if not costs:
            continue
        table += costs
        profiled = _profiles(run_dir, pair.platform, "cpu"), _profiles(run_dir, pair.virtual, "cpu")
        verdict.append(cpu_sentence(point, pair.platform, pair.virtual, *profiled))
        if all(profiled):
            cpu = pair.platform.line.measured.app_cpu_ms_per_req, pair.virtual.line.measured.app_cpu_ms_per_req
            table += _layer_lines(point, "CPU", "ms", *cpu, *profiled)
            table += _layer_lines(point, "CPU in the frame itself", "ms", *cpu, *profiled, key=stacks.leaf,
                                  shown=FRAMES_SHOWN)
        allocated = _profiles(run_dir, pair.platform, "alloc"), _profiles(run_dir, pair.virtual, "alloc")
        if all(allocated):
            table += _layer_lines(point, "allocated", "KB", pair.platform.line.measured.alloc_kb_per_req,
                                  pair.virtual.line.measured.alloc_kb_per_req, *allocated)
    if not table:
        return None
    return Section("where-the-time-goes", "Where the time goes: what a request costs, platform against virtual",
                   verdict, table, columns=list(COLUMNS))


def _profiles(run_dir: Path, line: Aggregate, kind: str) -> stacks.Stacks:
    """The line's repetitions' profiles of one kind, merged; empty when any rep kept none (a partial merge would
    weigh the reps unevenly)."""
    paths = [run_dir / "profiles" / f"{dimensions.slug(rep.row)}-{kind}.collapsed.gz" for rep in line.members]
    if not paths or not all(path.exists() for path in paths):
        return {}
    return stacks.merge(stacks.read(path) for path in paths)


def _costs(point: str, p: Aggregate, v: Aggregate) -> list[dict[str, str]]:
    """The counters' figures per request (medians over the reps); none when neither mode measured any."""
    a, b = p.line.measured, v.line.measured
    figures = (("service CPU", "ms", a.app_cpu_ms_per_req, b.app_cpu_ms_per_req, 3),
               ("allocated", "KB", a.alloc_kb_per_req, b.alloc_kb_per_req, 1),
               ("GC pauses per 1,000 requests", "ms", a.gc_pause_ms_per_1k_req, b.gc_pause_ms_per_1k_req, 1),
               ("context switches, voluntary", "", a.csw_voluntary_per_req, b.csw_voluntary_per_req, 2),
               ("context switches, involuntary", "", a.csw_involuntary_per_req, b.csw_involuntary_per_req, 2))
    if all(math.isnan(x) and math.isnan(y) for _, _, x, y, _ in figures[1:]):
        return []
    return [{"point": point, "what": what, "platform": _amount(x, unit, digits), "virtual": _amount(y, unit, digits),
             "difference": _amount(y - x, unit, digits, signed=True)} for what, unit, x, y, digits in figures]


def _amount(value: float, unit: str, digits: int, signed: bool = False) -> str:
    if math.isnan(value):
        return "not measured"
    text = (f"{value:+.{digits}f}" if signed else fmt(value, digits))
    return f"{text} {unit}".strip()


def _layer_lines(point: str, kind: str, unit: str, a_total: float, b_total: float, a: stacks.Stacks,
                 b: stacks.Stacks, key=stacks.layer_of, shown: int = LAYERS_SHOWN) -> list[dict[str, str]]:
    """The layers (or, by key, the leaf frames) whose cost per request differs most between the profiles."""
    if math.isnan(a_total) or math.isnan(b_total):
        return []
    found = stacks.differences(stacks.shares(a, key), a_total, stacks.shares(b, key), b_total, shown)
    digits = 3 if unit == "ms" else 1
    return [{"point": point, "what": f"{kind}: {d.name}", "platform": _amount(d.a, unit, digits),
             "virtual": _amount(d.b, unit, digits), "difference": _amount(d.delta, unit, digits, signed=True)}
            for d in found]


def sampling_error(share: float, samples: float, per_request: float) -> float:
    """The standard error of a layer's cost per request from its share of `samples` CPU samples."""
    if samples <= 0:
        return math.inf
    return per_request * math.sqrt(max(share * (1 - share), 0.0) / samples)


def cpu_sentence(point: str, p: Aggregate, v: Aggregate, a: stacks.Stacks, b: stacks.Stacks) -> str:
    """The CPU per request in each mode (the counter) and, with both CPU profiles, the layers whose difference
    exceeds the sampling error, largest first; what the profiles did not separate is said as such."""
    x, y = p.line.measured.app_cpu_ms_per_req, v.line.measured.app_cpu_ms_per_req
    if math.isnan(x) or math.isnan(y):
        return f"{point}: the service's CPU per request was not measured in both modes."
    opening = (f"{point}: a request cost the service {fmt(x, 3)} ms of CPU on platform threads and {fmt(y, 3)} ms "
               f"on virtual threads ({y - x:+.3f} ms, from the CPU counters)")
    if not a or not b:
        return (opening + "; no CPU profile of both modes was kept (`--profiles cpu`), so where it goes was not "
                "measured.")
    a_shares, b_shares = stacks.shares(a), stacks.shares(b)
    n_a, n_b = sum(a.values()), sum(b.values())
    seen, unseen = [], 0
    for d in stacks.differences(a_shares, x, b_shares, y):
        error = math.hypot(sampling_error(a_shares.get(d.name, 0.0), n_a, x),
                           sampling_error(b_shares.get(d.name, 0.0), n_b, y))
        if abs(d.delta) > Z_95 * error:
            seen.append(f"{d.name} ({d.delta:+.3f} ms)")
        else:
            unseen += 1
    profiles = f"CPU profiles of {fmt(n_a)} and {fmt(n_b)} samples"
    if not seen:
        return (opening + f"; the {profiles} show no layer differing beyond their sampling error, so where the "
                "difference goes is unexplained.")
    return (opening + f". By the {profiles}, the differences beyond their sampling error are, largest first: "
            + ", ".join(seen[:LAYERS_SHOWN]) + (f" (and {len(seen) - LAYERS_SHOWN} smaller)"
                                                 if len(seen) > LAYERS_SHOWN else "")
            + (f"; {unseen} other layer(s) lie within it." if unseen else "."))

