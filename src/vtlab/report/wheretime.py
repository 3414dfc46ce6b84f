"""Where the time goes: for each point measured in both modes, what a request cost the service in each (the
counters: CPU, bytes allocated, GC pauses, context switches) and the other tiers' CPU (PostgreSQL, the stub, k6:
the rig's own cost beside the service's), and, where the rows kept profiles, which layers of the service the
difference lies in (explain.stacks over the rows' collapsed stacks). The service's CPU and allocation per request are
its own: the rig's scrape of its meters is a line of its own (report.rigscrape), taken out where measured.

A layer's CPU per request is its share of the profile times the counter's CPU per request, so its error has two
parts: the share's sampling error (binomial over the samples; the samples of one run are not independent, so a
lower bound) and the counter's own error between runs (the standard error of the reps' mean, measured only with
two reps or more). A difference is named only beyond the rig's difference_z (1.96) times both; the table marks the
others as within it.

A point is compared only where both modes have a valid rep; otherwise its sentence says why, sets the invalid rows'
figures apart and quotes each mode's CPU per request as measured, with no line in the table and no difference.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from pathlib import Path

from vtlab.core import dimensions
from vtlab.explain import repetitions, stacks
from vtlab.explain.model import Aggregate, Analysis
from vtlab.explain.validity import PROFILED
from vtlab.report import headline, rigscrape, validrows
from vtlab.report.labels import fmt
from vtlab.report.scenarios.common import Section

COLUMNS = [("point", "point"), ("what", "per request"), ("platform", "platform"), ("virtual", "virtual"),
           ("difference", "virtual − platform")]
LAYERS_SHOWN = 6     # the layers with the largest differences, per point and kind
FRAMES_SHOWN = 5     # the frames whose own CPU (the leaf of a stack) differs most
WITHIN = " (within error)"


def section(run_dir: Path, analysis: Analysis) -> Section | None:
    """None when no point has both modes with a per-request cost measured (an older run's CSV has none)."""
    verdict: list[str] = []
    table: list[dict[str, str]] = []
    z = analysis.rig.difference_z
    for pair in headline.lines(analysis.aggregates, analysis.rig.tomcat_max_threads):
        if pair.platform is None or pair.virtual is None:
            continue
        point = f"{pair.scenario}, " + (f"{pair.load} offered" if pair.load.endswith("/s") else f"{pair.load} users")
        costs = _costs(point, pair.platform, pair.virtual)
        if not costs:
            continue
        why = validrows.unanswered([("platform", [pair.platform]), ("virtual", [pair.virtual])])
        if why:
            verdict.append(_unanswered_sentence(point, pair.platform, pair.virtual, why))
            continue
        table += costs
        p, v = Cost.of(run_dir, pair.platform, "cpu"), Cost.of(run_dir, pair.virtual, "cpu")
        verdict.append(cpu_sentence(point, p, v, z))
        verdict.append(rigscrape.sentence(point, pair.platform.line.measured, pair.virtual.line.measured))
        if p.stacks and v.stacks and not (math.isnan(p.total) or math.isnan(v.total)):
            table += _lines(point, "CPU", p, v, stacks.layer_of, LAYERS_SHOWN, z)
            table += _lines(point, "CPU in the frame itself", p, v, stacks.leaf, FRAMES_SHOWN, z)
        a, b = Cost.of(run_dir, pair.platform, "alloc"), Cost.of(run_dir, pair.virtual, "alloc")
        if a.stacks and b.stacks and not (math.isnan(a.total) or math.isnan(b.total)):
            # an allocation profile weighs bytes, not samples: its sampling error is not computed here
            table += [{**line, "what": line["what"] + " (sampling error not computed)"}
                      for line in _lines(point, "allocated", a, b, stacks.layer_of, LAYERS_SHOWN, z, tested=False)]
    if not table and not verdict:
        return None
    return Section("where-the-time-goes", "Where the time goes: what a request costs, platform against virtual",
                   verdict, table, columns=list(COLUMNS))


class Cost:
    """One mode's cost per request at a point: the counter's median over the reps it is told with, its standard
    error between those reps (NaN with one), their profiles merged (empty when any rep kept none), and whether a
    profiler was attached to them."""

    def __init__(self, total: float, total_se: float, merged: stacks.Stacks, profiled: bool, unit: str):
        self.total, self.total_se, self.stacks, self.profiled, self.unit = total, total_se, merged, profiled, unit
        self.samples = sum(merged.values())

    @staticmethod
    def of(run_dir: Path, line: Aggregate, kind: str) -> Cost:
        reps = repetitions.counted_reps(line.members)
        column = "app_cpu_ms_per_req" if kind == "cpu" else "alloc_kb_per_req"
        values = [getattr(rep.measured, column) for rep in reps if not math.isnan(getattr(rep.measured, column))]
        se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) >= 2 else math.nan
        paths = [run_dir / "profiles" / f"{dimensions.slug(rep.row)}-{kind}.collapsed.gz" for rep in reps]
        merged = stacks.merge(stacks.read(path) for path in paths) if paths and all(p.exists() for p in paths) else {}
        profiled = any(flag.startswith(PROFILED) for rep in reps for flag in rep.flags)
        return Cost(getattr(line.line.measured, column), se, merged, profiled, "ms" if kind == "cpu" else "KiB")

    def error(self, share: float) -> float:
        """The standard error of a layer's cost per request from its share: sampling, and the counter's noise
        between reps where measured."""
        sampling = (self.total * math.sqrt(max(share * (1 - share), 0.0) / self.samples) if self.samples > 0
                    else math.inf)
        return math.hypot(sampling, share * self.total_se) if not math.isnan(self.total_se) else sampling


def _unanswered_sentence(point: str, p: Aggregate, v: Aggregate, why: str) -> str:
    """A point with a mode that has no valid rep: not compared, and its CPU per request set apart as measured."""
    return (f"{point}: not compared — {why}; the service's CPU per request, as measured: "
            f"{_amount(p.line.measured.app_cpu_ms_per_req, 'ms', 3)} on platform threads, "
            f"{_amount(v.line.measured.app_cpu_ms_per_req, 'ms', 3)} on virtual threads.")


def _costs(point: str, p: Aggregate, v: Aggregate) -> list[dict[str, str]]:
    """The counters' figures per request (medians over the reps); none when neither mode measured any."""
    a, b = p.line.measured, v.line.measured
    figures = (("service CPU", "ms", a.app_cpu_ms_per_req, b.app_cpu_ms_per_req, 3),
               ("allocated", "KiB", a.alloc_kb_per_req, b.alloc_kb_per_req, 1),
               ("GC pauses per 1,000 requests", "ms", a.gc_pause_ms_per_1k_req, b.gc_pause_ms_per_1k_req, 1),
               ("context switches, voluntary", "", a.csw_voluntary_per_req, b.csw_voluntary_per_req, 2),
               ("context switches, involuntary", "", a.csw_involuntary_per_req, b.csw_involuntary_per_req, 2))
    if all(math.isnan(x) and math.isnan(y) for _, _, x, y, _ in figures[1:]):
        return []
    # the rest of the rig beside the service: what the same request cost the tiers around it
    rig = (("PostgreSQL CPU", "ms", a.pg_cpu_ms_per_req, b.pg_cpu_ms_per_req, 3),
           ("stub CPU", "ms", a.stub_cpu_ms_per_req, b.stub_cpu_ms_per_req, 3),
           ("k6 CPU", "ms", a.load_cpu_ms_per_req, b.load_cpu_ms_per_req, 3))
    return [{"point": point, "what": what, "platform": _amount(x, unit, digits), "virtual": _amount(y, unit, digits),
             "difference": _amount(y - x, unit, digits, signed=True)} for what, unit, x, y, digits in figures
            + tuple(line for line in rig if not (math.isnan(line[2]) and math.isnan(line[3])))]


def _amount(value: float, unit: str, digits: int, signed: bool = False) -> str:
    if math.isnan(value):
        return "not measured"
    text = (f"{value:+.{digits}f}" if signed else fmt(value, digits))
    return f"{text} {unit}".strip()


def beyond_error(p: Cost, v: Cost, name: str, p_shares: dict[str, float], v_shares: dict[str, float],
                 z: float) -> bool:
    """Whether a layer's (or frame's) difference per request exceeds z (the rig's difference_z) times its standard
    error."""
    a, b = p_shares.get(name, 0.0), v_shares.get(name, 0.0)
    return abs(b * v.total - a * p.total) > z * math.hypot(p.error(a), v.error(b))


def _lines(point: str, kind: str, p: Cost, v: Cost, key: Callable[[tuple[str, ...]], str], shown: int, z: float,
           tested: bool = True) -> list[dict[str, str]]:
    """The layers (or, by key, the leaf frames) whose cost per request differs most, those within error marked."""
    p_shares, v_shares = stacks.shares(p.stacks, key), stacks.shares(v.stacks, key)
    digits = 3 if p.unit == "ms" else 1
    return [{"point": point, "what": f"{kind}: {d.name}", "platform": _amount(d.a, p.unit, digits),
             "virtual": _amount(d.b, p.unit, digits),
             "difference": _amount(d.delta, p.unit, digits, signed=True)
             + ("" if not tested or beyond_error(p, v, d.name, p_shares, v_shares, z) else WITHIN)}
            for d in stacks.differences(p_shares, p.total, v_shares, v.total, shown)]


def cpu_sentence(point: str, p: Cost, v: Cost, z: float) -> str:
    """The CPU per request in each mode (the counter) and, with both CPU profiles, the layers whose difference
    exceeds z times its error, largest first; what the profiles did not separate is said as such."""
    x, y = p.total, v.total
    if math.isnan(x) or math.isnan(y):
        return f"{point}: the service's CPU per request was not measured in both modes."
    opening = (f"{point}: a request cost the service {fmt(x, 3)} ms of CPU on platform threads and {fmt(y, 3)} ms "
               f"on virtual threads ({y - x:+.3f} ms, from the CPU counters"
               + ("; with async-profiler attached, its cost included" if p.profiled or v.profiled else "") + ")")
    if not p.stacks or not v.stacks:
        if p.profiled and v.profiled:
            return opening + ("; their CPU profiles were asked for but not kept (matrix.csv's profile_problem says "
                              "why), so where it goes was not measured.")
        return (opening + "; no CPU profile of both modes was kept (`--profiles cpu`), so where it goes was not "
                "measured.")
    p_shares, v_shares = stacks.shares(p.stacks), stacks.shares(v.stacks)
    seen, unseen = [], 0
    for d in stacks.differences(p_shares, x, v_shares, y):
        if beyond_error(p, v, d.name, p_shares, v_shares, z):
            seen.append(f"{d.name} ({d.delta:+.3f} ms)")
        else:
            unseen += 1
    errors = ("their sampling error and the counters' spread between reps"
              if not (math.isnan(p.total_se) or math.isnan(v.total_se))
              else "their sampling error alone (one rep: the counters' noise between runs not measured)")
    profiles = f"CPU profiles of {fmt(p.samples)} and {fmt(v.samples)} samples"
    if not seen:
        return (opening + f"; the {profiles} show no layer differing beyond {errors}, so where the difference goes "
                "is unexplained.")
    return (opening + f". By the {profiles}, the differences beyond {errors} are, largest first: "
            + ", ".join(seen[:LAYERS_SHOWN]) + (f" (and {len(seen) - LAYERS_SHOWN} smaller)"
                                                 if len(seen) > LAYERS_SHOWN else "")
            + (f"; {unseen} other layer(s) lie within it." if unseen else "."))
