"""report.json: the report for machines (CI gates, notebooks): the same document report.md tells, as numbers.

Every number is a JSON number, in the unit its key names; one not measured or not computable (NaN, ±inf)
is null. Keys are stable; a change that renames or removes one raises SCHEMA. Top level:

- ``schema``: ``"vtlab-report/1"``.
- ``run``: ``{"name", "started", "rows", "failed_rows"}``: the run folder's name, when it started, how many rows
  were measured and how many a tier died in.
- ``headline``: the headline table's lines, in its order: ``{"scenario", "load", "load_model", "platform",
  "virtual", "ratio", "ratio_not_computed", "text"}``. ``load`` is the concurrency (closed model) or the offered
  rate ("150/s", open model); ``platform``/``virtual`` are an aggregate's numbers (below: ``throughput``,
  ``p99_median_ms``, ``bottleneck``, ``valid``, ``reps``) or null where that mode was not measured; ``ratio`` is
  ``{"value", "low", "high"}`` (virtual ÷ platform of the throughputs the cells show — one rep's own, several
  reps' mean —; low/high null where the intervals do not allow a range), computed only where both modes have a
  valid rep, else null, and then ``ratio_not_computed`` says why (a mode not measured, no valid rep of it and
  its rows' flags, or a platform that served nothing; null where the ratio was computed); ``text`` is the line
  exactly as report.md shows it.
- ``answers``: the first screen's answer, a scenario each, in the headline's order: ``{"scenario", "ratio",
  "ratio_computed", "walls", "apart", "main", "folded"}`` — the ratio in words (or why there is none) and whether
  one was computed, each mode's wall in words, the lines set apart as not valid, whether it is the plain
  service's (not a variant's), and whether report.html folds it under ``answers_folded``.
- ``answers_folded``: the line that counts the folded answers, as report.html and report.md show it; null where
  none is folded.
- ``story``: the report's sentences, in order.
- ``verdicts``: one per measured row, in matrix.csv's order (as analysis.csv): ``row`` (every dimension of the
  row, by its CSV name), ``measured`` (``throughput_rps``, ``throughput_ci95_rps``: the 95% half-width,
  ``noise_half_rps``: the half-width a comparison allows, that interval and at least the rig's between-run noise
  floor,
  ``p50_ms``, ``p99_ms``, ``p99_all_ms``, ``error_rate``, ``errors_by_status``), ``service_time_ms``,
  ``service_time_source``, ``cpu_ms_per_req``, ``ceilings`` (req/s, each named: ``concurrency``, ``threads``,
  ``pool``, ``cpu``), ``ceilings_restated`` (the names of those that restate the row's own measurement),
  ``ceiling_rps`` (the lowest), ``limit`` (which ceiling that is), ``attained`` (throughput ÷ ceiling),
  ``bottleneck``, ``valid``, ``flags`` (why a row is not valid, or what it could not measure), ``queued``,
  ``notes`` (the ceilings not computed and why; a stall), ``without_generator`` (``rps``, ``low``, ``high``: a
  row on cores shared with k6 whose cost was priced against wrk — the service's throughput without k6 on its cores
  and its 95% interval; null where nothing was corrected).
- ``aggregates``: one per scenario, its repetitions combined: ``row`` (the first repetition's dimensions),
  ``reps``, ``valid_reps``, ``throughput`` (``median``, ``centre``: what the headline shows and its ratio
  divides, one rep's own throughput or several reps' mean, ``min``, ``max``, ``interval_low``, ``interval_high``:
  one rep's own 95% interval, or the 95% interval of several reps' mean, ``spread``, ``spread_warning``,
  ``noise_half_rps``: the half-width two scenarios are compared by — several reps' interval, one rep's own widened
  to the between-run noise floor),
  ``p99_median_ms``, ``ceiling_rps``, ``limit``, ``bottleneck``, ``bottlenecks_seen``, ``valid``, ``flags``.
- ``failed``: the rows a tier died in: ``row``, ``tier``, ``how``, ``log`` (its log's tail as recorded).
- ``sections``: the scenario sections: ``{"key", "title", "sentences"}``.
- ``costs``: the fixed and marginal costs (explain.costs), one per JVM family measured as staircases and thread
  mode: ``row`` (its first step's dimensions), ``reps``, ``steps`` (the valid steps fitted: ``row``,
  ``throughput_rps``, ``jvm_step``), ``left_out`` (the invalid steps' rows and flags), ``merged`` (steps taken as
  one point), ``fits`` by figure (``cpu``, ``alloc``, ``gc``, ``pg``, ``stub``, ``load``): ``marginal`` (per
  request: ms, KiB, ms), ``fixed`` (per second: ms/s, KiB/s, ms/s), their ``_se`` and 95% ``_low``/``_high``,
  ``points``, ``why`` (null for a fit with errors, else "no error: 2 steps" or "not determined: …") and
  ``fixed_share`` (one per step, in ``steps``' order).
- ``cost_differences``: each platform family beside the virtual one of its scenario: ``platform`` and ``virtual``
  (indexes into ``costs``) and by figure ``marginal`` and ``fixed``: ``{"delta", "low", "high", "named", "why"}``
  (virtual − platform; ``named``: its 95% interval excludes 0).
- ``capacity``: null, or where the run folder holds capacity.json (a `vtlab capacity` run) what it holds —
  ``objective``, ``model``, ``unit``, ``precision``, ``budget_s``, ``complete`` (false: the search did not finish)
  and ``modes``, each with its ``capacity``, ``bracket_low``, ``bracket_high``, ``bracket_share``, ``stop``,
  ``crossed``, ``crossed_at``, ``wall``, ``evidence``, ``utilisation`` (the lowest failing point's tiers as its row
  read them), ``points`` (``load``, ``outcome``, ``why``, ``throughput_rps``, ``figures``: metric → [value, low,
  high], …), ``prediction`` (Little's law) and ``usl`` (the Universal Scalability Law: ``lam``, ``sigma``,
  ``kappa``, ``peak_load``, ``peak_rps``, ``capacity``, ``error_share``, ``why``) — and ``sentences``, the
  section's words as report.md tells them.
- ``paired``: null, or for a paired run (`--paired`, `--aa`) each point measured in interleaved blocks: ``row`` (arm
  a's first block's dimensions), ``arms`` (``a``, ``b``, ``aa``), ``ratio`` (b ÷ a, the geometric mean of the
  counted pairs' ratios; null where none counts, and ``ratio_not_computed`` says why), ``low``/``high`` (its 95%
  interval; null under two pairs), ``pairs_to_tell`` (where the interval holds 1.00× beside a ratio away from it and
  beyond the A/A floor, about how many pairs at the point's spread would tell the two apart; one more than the most
  it tells, 30 or the pairs counted, where even that many would not; else null) and ``pairs`` (``block``,
  ``order``: "ab" or "ba" as they ran, ``a_rps``, ``b_rps``, ``ratio``, ``left_out``: why the pair counts for
  nothing, null where it counts); ``arms.versus``, a before/after's jars (`--vs`).
- ``aa_floor``: null, or for a paired run planned on this machine its A/A floor (core.aafloor): ``machine``,
  ``measured`` (each A/A point kept: ``measured_at``, ``run_dir``, ``point``, ``ratio``, ``low``, ``high``,
  ``pairs``), ``share`` (the widest false difference; null where none was measured) and ``within`` (the rows of the
  paired points whose interval reaches into it).
- ``advice``: what to change before you flip (explain.advice), one entry per scenario and mode advised: ``row``,
  ``wall``, ``setting``, ``value`` (as the service ran it; a CPU wall's cores), ``needed`` (what carries the users'
  rate, ``asked_rps``; a CPU wall's cores), ``predicted_rps`` and ``next_wall`` (the ceiling then), ``enough`` (what
  carries ``predicted_rps``: ``needed`` where the next wall is the users'), ``flag`` (what to try), ``beyond`` (the
  limit it meets), ``shape`` (what no setting fixes) and ``why_not`` (why there is none); a pinned frame's (``wall``
  "pinning"): ``setting`` (the frame), ``value`` (its events), ``pin_kind`` (monitor, class-init, native),
  ``pinned_ms`` and ``longest_ms``; ``not_helped``: null, or the try on this machine that found ``flag`` no help at
  this point (core.triedbefore: ``measured_at``, ``folder``, ``flag``, ``value``, ``point``, ``where``, ``said``), so
  that the line is not one to try.
- ``libraries``: a user's jar's JDBC driver, pool and HTTP client (explain.libraries): ``artifact``, ``version``,
  ``friendly`` (its version replaced synchronized around I/O; null: no version of it has), ``friendly_from``,
  ``source`` (where its project says so), ``pins`` (``jdk``, ``held``: what held the carrier, ``events``, ``ms``
  pinned in its frames), ``looked_on`` (the JDKs before 24 its virtual rows ran on) and ``jar`` (a before/after's
  jar whose library it is; "" for the run's one jar).
- ``entries``: a request mix's entries (`--mix`), one per point, thread mode and entry over the point's valid rows'
  holds (all its rows, ``valid`` false, where none is valid): ``scenario``, ``load``, ``mode``, ``entry`` (its name),
  ``rows``, ``valid``, ``requests``, ``share`` (of the point's
  requests), ``throughput_rps`` (its successes a second, the rows' mean), ``p50_ms``, ``p99_ms`` (of its successful
  requests) and ``failures`` (status → count; "0": no response); empty for any other run.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Any

from vtlab.core import dimensions
from vtlab.core.aafloor import Floor as AAFloor
from vtlab.explain import costs, pairs
from vtlab.explain.model import Advice, Aggregate, PairedPoint, Verdict
from vtlab.report import ratio
from vtlab.report.document import CapacitySection, Document, HeadlineLine
from vtlab.report.headline import words
from vtlab.report.paired import within_floor

NAME = "report.json"
SCHEMA = "vtlab-report/1"


def serialise(document: Document) -> str:
    report = {
        "schema": SCHEMA,
        "run": {"name": document.run_name, "started": document.started, "rows": len(document.verdicts),
                "failed_rows": len(document.failed_verdicts)},
        "headline": [_headline(line) for line in document.headline_lines],
        "answers": [{"scenario": a.scenario, "ratio": a.ratio, "ratio_computed": a.has_ratio, "walls": a.walls,
                     "apart": a.apart, "main": a.main, "folded": a.folded} for a in document.answers],
        "answers_folded": document.answers_folded or None,
        "story": list(document.story),
        "verdicts": [_verdict(verdict) for verdict in document.verdicts],
        "aggregates": [_aggregate(aggregate) for aggregate in document.aggregates],
        "failed": [{"row": _row(v.row), "tier": v.failure.tier, "how": v.failure.how, "log": v.failure.log}
                   for v in document.failed_verdicts if v.failure],
        "sections": [{"key": s.key, "title": s.title, "sentences": list(s.sentences)} for s in document.sections],
        "costs": [_family(family) for family in document.costs],
        "cost_differences": [_differences(document.costs, p, v) for p, v in costs.pairs(document.costs)],
        "capacity": _capacity(document.capacity),
        "paired": _paired(document.paired, document.aa_floor),
        "aa_floor": _aa_floor(document),
        "advice": [_advice(advice) for advice in document.advice],
        "libraries": [{**asdict(library), "pins": [{"jdk": jdk, "held": kind, "events": count, "ms": ms}
                                                  for jdk, kind, count, ms in library.pins]}
                      for library in document.libraries],
        "entries": [{**asdict(line), "failures": dict(line.failures)} for line in document.entries],
    }
    return json.dumps(_plain(report), indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _advice(advice: Advice) -> dict[str, Any]:
    """One line's advice: its row, wall, the setting as it ran and what carries the users' rate, the predicted ceiling,
    the flag to try, and why there is none where there is none."""
    return {"row": _row(advice.row), "wall": advice.wall, "setting": advice.setting or None, "value": advice.value,
            "needed": advice.needed, "enough": advice.enough, "asked_rps": advice.asked_rps,
            "predicted_rps": advice.predicted_rps,
            "next_wall": advice.next_wall or None, "flag": advice.flag or None, "beyond": advice.beyond or None,
            "shape": advice.shape or None, "why_not": advice.why_not or None,
            "pin_kind": advice.pin_kind or None, "pinned_ms": advice.pinned_ms, "longest_ms": advice.longest_ms,
            "not_helped": advice.not_helped.describe() if advice.not_helped is not None else None}


def _paired(points: tuple[PairedPoint, ...], floor: AAFloor | None) -> list[dict[str, Any]] | None:
    """Each point of a paired run: its row, arms, paired ratio and interval (null: not computed), the pairs a next run
    would need to tell its ratio from 1.00× (explain.pairs.pairs_to_tell), and every pair."""
    if not points:
        return None
    holds = floor.holds if floor is not None else None
    return [{"row": _row(point.row), "arms": point.arms.describe(), "ratio": point.ratio if point.computed else None,
             "low": point.low, "high": point.high, "ratio_not_computed": point.why_not or None,
             "pairs_to_tell": pairs.pairs_to_tell(point, holds),
             "pairs": [{"block": pair.block, "order": pair.order, "a_rps": pair.a_rps, "b_rps": pair.b_rps,
                        "ratio": pair.ratio, "left_out": pair.why_out or None} for pair in point.pairs]}
            for point in points]


def _aa_floor(document: Document) -> dict[str, Any] | None:
    """The machine's A/A floor a paired run was told against, and which of its points lie within it."""
    floor = document.aa_floor
    if floor is None:
        return None
    return {**floor.describe(), "share": floor.share if floor.known else None,
            "within": [_row(point.row) for point in document.paired if within_floor(point, floor)]}


def _headline(line: HeadlineLine) -> dict[str, Any]:
    p, v = line.platform, line.virtual
    first = p or v
    told = ratio.between(p, v)
    return {"scenario": line.scenario, "load": line.load, "load_model": first.row.load_model if first else None,
            "platform": _mode(p), "virtual": _mode(v), "ratio": _ratio(told),
            "ratio_not_computed": told.why_not or None, "text": words(line)}


def _mode(line: Aggregate | None) -> dict[str, Any] | None:
    if line is None:
        return None
    return {"throughput": _throughput(line), "p99_median_ms": line.p99_median, "bottleneck": line.bottleneck,
            "valid": line.valid, "reps": line.reps}


def _ratio(told: ratio.Ratio) -> dict[str, Any] | None:
    """virtual ÷ platform and the range their intervals allow, as the headline's words compute them (NaN: null)."""
    return {"value": told.value, "low": told.low, "high": told.high} if told.computed else None


def _throughput(line: Aggregate) -> dict[str, Any]:
    return {"median": line.throughput_median, "centre": ratio.told_rps(line), "min": line.throughput_min,
            "max": line.throughput_max, "interval_low": line.interval_low, "interval_high": line.interval_high,
            "spread": line.spread, "spread_warning": line.spread_warning, "noise_half_rps": line.line.noise_half_rps}


def _verdict(v: Verdict) -> dict[str, Any]:
    m, c = v.measured, v.ceilings
    return {"row": _row(v.row),
            "measured": {"throughput_rps": m.throughput_rps, "throughput_ci95_rps": m.throughput_ci95_rps,
                         "noise_half_rps": v.noise_half_rps, "p50_ms": m.p50_ms, "p99_ms": m.p99_ms,
                         "p99_all_ms": m.p99_all_ms,
                         "error_rate": m.error_rate, "errors_by_status": m.errors_by_status},
            "service_time_ms": v.service_time_ms, "service_time_source": v.service_time_source,
            "cpu_ms_per_req": v.cpu_ms_per_req,
            "ceilings": {"concurrency": c.concurrency, "threads": c.threads, "pool": c.pool, "cpu": c.cpu},
            "ceilings_restated": list(c.restated), "ceiling_rps": v.ceiling_rps, "limit": v.limit,
            "attained": v.attained, "bottleneck": v.bottleneck, "evidence": v.evidence, "valid": v.valid,
            "flags": list(v.flags),
            "queued": v.queued, "notes": [*c.missing, *([m.stall] if m.stall else [])],
            "without_generator": {"rps": v.without_generator_rps, "low": v.without_generator_low_rps,
                                  "high": v.without_generator_high_rps}}


def _aggregate(a: Aggregate) -> dict[str, Any]:
    return {"row": _row(a.row), "reps": a.reps, "valid_reps": a.valid_reps, "throughput": _throughput(a),
            "p99_median_ms": a.p99_median, "ceiling_rps": a.ceiling_rps, "limit": a.limit, "bottleneck": a.bottleneck,
            "bottlenecks_seen": a.bottlenecks_seen, "valid": a.valid, "flags": list(a.flags)}


def _family(f: costs.Family) -> dict[str, Any]:
    return {"row": _row(f.row), "reps": f.reps,
            "steps": [{"row": _row(v.row), "throughput_rps": v.measured.throughput_rps, "jvm_step": v.measured.jvm_step}
                      for v in f.steps],
            "left_out": [{"row": _row(v.row), "flags": list(v.flags)} for v in f.left_out], "merged": list(f.merged),
            "fits": {key: _fit(fit, f) for key, fit in f.fits.items()}, "compiler_apart": f.compiler_apart,
            "jit_cpu_ms_per_s": [v.measured.jit_cpu_ms_per_s for v in f.steps]}


def _fit(fit: costs.Fit, f: costs.Family) -> dict[str, Any]:
    return {"marginal": fit.marginal, "marginal_se": fit.marginal_se, "marginal_low": fit.marginal - fit.marginal_half,
            "marginal_high": fit.marginal + fit.marginal_half, "fixed": fit.fixed, "fixed_se": fit.fixed_se,
            "fixed_low": fit.fixed - fit.fixed_half, "fixed_high": fit.fixed + fit.fixed_half, "points": fit.points,
            "why": fit.why or None, "fixed_share": [fit.fixed_share(v.measured.throughput_rps) for v in f.steps]}


def _differences(told: tuple[costs.Family, ...], p: costs.Family, v: costs.Family) -> dict[str, Any]:
    def told_as(d: costs.Difference) -> dict[str, Any]:
        return {"delta": d.delta, "low": d.delta - d.half, "high": d.delta + d.half, "named": d.named,
                "why": d.why or None}
    return {"platform": told.index(p), "virtual": told.index(v),
            **{key: {"marginal": told_as(costs.between(p, v, key)),
                     "fixed": told_as(costs.between(p, v, key, "fixed"))} for key in p.fits}}


def _capacity(found: CapacitySection | None) -> dict[str, Any] | None:
    if found is None:
        return None
    told = asdict(found.run)
    for mode, searched in zip(told["modes"], found.run.modes, strict=True):
        mode["bracket_share"] = searched.bracket_share
    return {**told, "sentences": list(found.sentences)}


def _row(row: Any) -> dict[str, Any]:
    return dimensions.values(row)


def _plain(value: Any) -> Any:
    """JSON's own types throughout: NaN and ±inf as null (JSON has neither), tuples as lists."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
