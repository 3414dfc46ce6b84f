"""Two runs compared: their scenarios matched by the row registry's key, and per matched scenario and metric the
change with its interval and verdict. Scenarios in one run only are listed, never dropped."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from vtlab.compare import environment, floors, runs
from vtlab.compare.metrics import METRICS, Metric
from vtlab.compare.runs import Run, Scenario
from vtlab.compare.stats import NOT_JUDGED, UNKNOWN, Change, Estimate, change, of_proportion, of_reps, with_floor


@dataclass(frozen=True)
class Row:
    label: str
    changes: dict[str, Change]      # by metric name; a metric neither run measured is absent
    reps: tuple[int, int]           # counted repetitions, base and new
    flags: tuple[str, ...]          # "base invalid: …" / "new invalid: …"


@dataclass(frozen=True)
class Comparison:
    base: Run
    new: Run
    headline: str
    environment: list[tuple[str, str, str]]
    rows: list[Row]
    only_base: list[str]
    only_new: list[str]


# Settings a run may give all its rows: two runs that each gave one are matched across it (their environment tells
# the difference first), as before JVM options were a dimension of the rows.
RUN_SETTINGS = ("jvm_opts",)


def compare(base: Run, new: Run, noise: floors.Floors | None = None) -> Comparison:
    """`noise`: the floors both sides' single reps are judged by; by default each run's own (the reference's, with
    the ones its rig recorded in their place)."""
    sides = (noise, noise) if noise is not None else _floors(base, new)
    shared = tuple(name for name in RUN_SETTINGS if name in base.matched and name in new.matched
                   and len(runs.values(base, name)) == len(runs.values(new, name)) == 1)
    base, new = runs.without(base, shared), runs.without(new, shared)
    rows = []
    for key, a in base.scenarios.items():
        b = new.scenarios.get(key)
        if b is None:
            continue
        changes = {}
        for metric in METRICS:
            found = _change(metric, (a, b), sides)
            if found is not None:
                changes[metric.name] = found
        flags = tuple(f"{side} invalid: {', '.join(s.flags) or 'not valid'}"
                      for side, s in (("base", a), ("new", b)) if not s.valid)
        rows.append(Row(a.label, changes, (len(a.reps), len(b.reps)), flags))
    only_base = [s.label for k, s in base.scenarios.items() if k not in new.scenarios]
    only_new = [s.label for k, s in new.scenarios.items() if k not in base.scenarios]
    return Comparison(base, new, _headline(base, new),
                      environment.differences(base.record, new.record), rows,
                      [*only_base, *(f"{label} (failed)" for label in base.failed)],
                      [*only_new, *(f"{label} (failed)" for label in new.failed)])


def scenario_change(metric_name: str, base: Run, new: Run, scenarios: tuple[Scenario, Scenario]) -> Change | None:
    """One metric's change between a scenario of `base` and its match in `new`, each side judged by its own run's
    floors, as `compare` judges them (None where a side did not measure it)."""
    metric = next(metric for metric in METRICS if metric.name == metric_name)
    return _change(metric, scenarios, _floors(base, new))


def _floors(base: Run, new: Run) -> tuple[floors.Floors, floors.Floors]:
    """Each run's floors: the reference's, with the ones its rig recorded in their place."""
    return floors.current().recorded_by(base.record.rig), floors.current().recorded_by(new.record.rig)


def _headline(base: Run, new: Run) -> str:
    """The environment's line; a comparison within one run (`--across`) says which parts it holds against each
    other first."""
    head = environment.headline(base.record, new.record)
    if base.selection or new.selection:
        return f"Within one run ({base.path}): {new.selection} against {base.selection}. {head}"
    return head


def _change(metric: Metric, scenarios: tuple[Scenario, Scenario],
            noises: tuple[floors.Floors, floors.Floors]) -> Change | None:
    a, b = scenarios
    if metric.name == "errors":
        sides = [_proportion(s) for s in scenarios]
    else:
        sides = [_estimate(metric, s, noise) for s, noise in zip(scenarios, noises, strict=True)]
    if not all(math.isfinite(side.mean) for side in sides):
        return None
    # every metric but the error rate is a rate, a time or a size: judged on its ratio (a share of requests is not:
    # its base is often 0)
    found = change(sides[0], sides[1], metric.higher_is_better, on_ratio=metric.name != "errors")
    if found.verdict == UNKNOWN:  # a single rep with no floor for the metric: say which and why
        found = replace(found, why="; ".join(dict.fromkeys(
            noise.why_none(metric.column) for side, noise in zip(sides, noises, strict=True) if not side.known)))
    # A flagged row's figures are not a measurement to judge by (its own noise exceeded what its interval or the
    # floor says): the change is shown, never called better, worse or the same.
    return found if _judged(metric, a) and _judged(metric, b) else replace(found, verdict=NOT_JUDGED)


# The flags a row gets from its own failed requests (explain.validity): they make its rates no measurement of
# serving, but its error rate is exactly what they measured, so that one metric is still judged: a pool too small
# to serve the load is worse by its errors.
ERROR_FLAGS = frozenset({"errors-above-threshold", "errors-counted", "no-successful-requests"})


def _judged(metric: Metric, scenario: Scenario) -> bool:
    return scenario.valid or (metric.name == "errors" and set(scenario.flags) <= ERROR_FLAGS)


def _estimate(metric: Metric, scenario: Scenario, noise: floors.Floors) -> Estimate:
    values = [getattr(v.measured, metric.column) for v in scenario.reps]
    estimate = of_reps(values)
    if estimate.reps != 1:
        return estimate
    floor = noise.of(metric.column)
    batch = scenario.reps[0].measured.throughput_ci95_rps if metric.name == "throughput" else math.nan
    return with_floor(estimate, floor.cv_pct, floor.runs, batch)


def _proportion(scenario: Scenario) -> Estimate:
    total = sum(r for r in scenario.requests if math.isfinite(r))
    failed = sum(v.measured.error_rate * r for v, r in zip(scenario.reps, scenario.requests, strict=True)
                 if math.isfinite(v.measured.error_rate) and math.isfinite(r))
    return of_proportion(failed, total)
