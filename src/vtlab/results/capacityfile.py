"""capacity.json: what `vtlab capacity` found, the contract `vtlab compare` and a later report read. One module
owns its schema, for writing and reading: the objective, and per thread mode its capacity, the bracket around it,
every point measured (passed, failed, too close to call, invalid, and why), why the search stopped, the wall where
it broke and the models' predicted capacity beside the measured one (Little's law; the Universal Scalability Law).
A search writes it after every point, marked incomplete until it finishes: a search interrupted keeps its bracket."""

from __future__ import annotations

import json
import math
import os
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path

NAME = "capacity.json"
VERSION = 1


class MalformedCapacity(ValueError):
    """A capacity.json this version cannot read: named with what is wrong."""


# The host's speed held under a point where its fixed work's 10th to 90th percentile (measure.hostwork) lay within this
# % of its median. Measured on a 2-core AMD VM (2026-12-07, three capacity searches' holds): 16% at a point whose
# readings stayed at ~240 µs, 48-54% at points whose readings moved between ~240 and ~370 µs within seconds. It judges
# whether two runs' capacities go on one scale (compare.capacity), no row.
HOST_STEADY_SPREAD_PCT = 30.0


@dataclass(frozen=True)
class PointRecord:
    load: int
    outcome: str                    # capacity.point's PASS, FAIL, UNSURE or INVALID
    why: str
    throughput_rps: float
    figures: dict                   # metric -> [value, low, high] (percentiles in ms, errors as a share)
    errors: int
    requests: int
    flags: tuple[str, ...] = ()
    wall: str = ""
    evidence: str = ""
    seconds: float = 0.0
    measures: int = 1
    utilisation: str = ""           # its tiers as the row read them (host CPU, threads, the pool); "" before kept
    # k6's CPU per request at the point (ms; the last measurement's where several are pooled): the same work at
    # every point, so the host's speed index beside the point's figures; nan: not measured, or kept before it was
    k6_ms_per_req: float = math.nan
    # the host's speed under the point: the fixed work's CPU µs (measure.hostwork), the same work at any load, so an
    # index across loads and runs alike; nan: not measured, or kept before it was
    host_work_us: float = math.nan
    # how far it moved under the point: its 10th to 90th percentile, in % of its median; nan: not measured, or kept
    # before it was
    host_work_spread_pct: float = math.nan


@dataclass(frozen=True)
class Prediction:
    """The model's capacity beside the measured one: Little's law, the wall's count over the measured time a
    request holds it, from the passing points."""
    method: str                     # e.g. "little"
    limit: str                      # the ceiling it predicts (thread-pool, connection-pool, cpu …)
    capacity: float                 # in the search's load unit
    low: float                      # the spread of the passing points' ceilings
    high: float
    service_time_ms: float
    error_share: float              # (measured - predicted) / predicted
    points: int


@dataclass(frozen=True)
class UslFit:
    """The Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted by least squares to the passing
    points' (load, throughput): its parameters, the peak they put the throughput at and, where that peak lies within
    reach of the loads measured, the capacity it predicts beside the measured one. `why` says why it predicts none
    (too few points to determine three parameters, or no peak the points set)."""
    points: int                     # the passing points fitted (distinct loads)
    lam: float = math.nan           # λ: throughput per unit of load where nothing is shared (req/s per user or req/s)
    sigma: float = math.nan         # σ: contention, the serial share
    kappa: float = math.nan         # κ: coherency, the cost of every pair of loads agreeing
    peak_load: float = math.nan     # N* = √((1 − σ) / κ): where the fitted throughput peaks (nan: no peak)
    peak_rps: float = math.nan      # X(N*), or λ/σ where κ = 0 (the throughput's asymptote)
    capacity: float = math.nan      # in the search's unit: the peak's throughput (open), its load (closed)
    error_share: float = math.nan   # (measured - capacity) / capacity
    rms_share: float = math.nan     # the residuals' root mean square over the mean throughput fitted
    why: str = ""                   # why no capacity is predicted; "" when one is


@dataclass(frozen=True)
class ModeCapacity:
    mode: str
    capacity: float                 # the highest load that met the objective beyond its noise (nan: none did)
    bracket_low: float              # that load
    bracket_high: float             # the lowest load above it that did not (failed, or too close to call); nan: none
    stop: str                       # why the search stopped, in words
    crossed: str = ""               # the condition the lowest failing point broke, e.g. "p99 crossed 500 ms"
    wall: str = ""                  # that point's bottleneck
    evidence: str = ""              # and what its row showed of it
    crossed_at: float = math.nan    # that point's load
    points: tuple[PointRecord, ...] = ()
    prediction: Prediction | None = None
    spent_s: float = 0.0
    usl: UslFit | None = None       # None: a capacity.json written before the law was fitted
    utilisation: str = ""           # the lowest failing point's tiers as its row read them

    @property
    def bracket_share(self) -> float:
        """The bracket's width as a share of its low edge (the precision it reached)."""
        if not (self.bracket_low > 0 and math.isfinite(self.bracket_high)):
            return math.nan
        return (self.bracket_high - self.bracket_low) / self.bracket_low

    def host_index_ms(self) -> float:
        """k6's CPU per request at the capacity's own point (the bracket's low edge); nan where no load passed or the
        point did not measure it. Lower at a higher load as k6's own costs spread: at one load it moves with the host's
        speed, across loads it is no index of it (docs/capacity.md)."""
        at = [point.k6_ms_per_req for point in self.points if point.load == self.capacity and point.outcome == "pass"]
        return at[-1] if at else math.nan

    def host_work_us(self) -> float:
        """The host's speed at the capacity's own point: the fixed work's CPU µs there (measure.hostwork); nan where no
        load passed or the point did not read it."""
        at = [point.host_work_us for point in self.points if point.load == self.capacity and point.outcome == "pass"]
        return at[-1] if at else math.nan

    def host_work_spread_pct(self) -> float:
        """How far the host's speed moved under the capacity's own point (its fixed work's 10th to 90th percentile, in %
        of the median); nan where no load passed or the point did not read it."""
        at = [point.host_work_spread_pct for point in self.points
              if point.load == self.capacity and point.outcome == "pass"]
        return at[-1] if at else math.nan

    def host_moved(self) -> bool:
        """Whether the host's speed moved under the capacity's own point beyond HOST_STEADY_SPREAD_PCT: its median
        there lands on whichever speed held longer, or between them, and is not the host's speed there."""
        return self.host_work_spread_pct() > HOST_STEADY_SPREAD_PCT

    def edge_wall(self) -> str:
        """The wall at the capacity's upper edge: the row's there where that edge was too close to call (what nearly
        broke the objective, whatever failed further up), else the lowest failing point's."""
        edge = self._unsure_edge()
        return edge.wall if edge is not None and edge.wall else self.wall

    def _unsure_edge(self) -> PointRecord | None:
        """The point too close to call at the bracket's upper edge, if any."""
        return next((p for p in reversed(self.points) if p.outcome == "unsure" and p.load == self.bracket_high), None)

    def undecided_edge(self) -> PointRecord | None:
        """The point too close to call that is the bracket's upper edge, where no failure lies above the capacity
        to name what broke it: its row's wall is what the search saw saturate at the edge."""
        return None if self.crossed else self._unsure_edge()


@dataclass(frozen=True)
class CapacityRun:
    objective: str                  # as core.objective prints it, e.g. "p99<=500ms,errors<=0.1%"
    model: str                      # open (loads are arrival rates) or closed (users)
    unit: str                       # "req/s" or "users"
    precision: float                # the bracket wanted, as a share
    budget_s: float
    modes: tuple[ModeCapacity, ...]
    # False while the search runs and where it never finished (interrupted, killed, a tier failed): each mode's
    # bracket is as it stood, the mode searched last stopped mid-search (its `stop` says how), a later one absent
    complete: bool = True
    in_turn: bool = False           # every mode's search at once, their points taken in turn (search.search_paired)
    host_work_unit: str = ""        # what its points' host_work_us are in (measure.hostwork.UNIT); "": not read

    def mode(self, name: str) -> ModeCapacity | None:
        return next((m for m in self.modes if m.mode == name), None)

    def ratio(self) -> tuple[float, float, float]:
        """Virtual's capacity ÷ platform's, with the range their brackets allow: virtual's low edge ÷ platform's high
        (nan where platform's bracket has no upper edge: the ratio may be lower without bound), virtual's high ÷
        platform's low (nan where virtual's has none); all nan without both capacities."""
        platform, virtual = self.mode("platform"), self.mode("virtual")
        if platform is None or virtual is None or not (platform.capacity > 0 and virtual.capacity > 0):
            return math.nan, math.nan, math.nan
        return (virtual.capacity / platform.capacity, virtual.bracket_low / platform.bracket_high,
                virtual.bracket_high / platform.bracket_low)

    def ratio_allowed(self) -> str:
        """The range the brackets allow the ratio, in words: "the brackets allow 5.96–6.52×", one end where a bracket
        has no upper edge, "" where neither has one or there is no ratio."""
        _, low, high = self.ratio()
        if math.isfinite(low) and math.isfinite(high):
            return f"the brackets allow {low:.2f}–{high:.2f}×"
        if math.isfinite(high):
            return f"at most {high:.2f}× (no load above platform's capacity broke the objective)"
        if math.isfinite(low):
            return f"at least {low:.2f}× (no load above virtual's capacity broke the objective)"
        return ""


def write(folder: Path, run: CapacityRun) -> Path:
    """capacity.json replaced whole: written beside it, then renamed over it, so that a search killed while it
    writes leaves the previous point's file, never half of one."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    partial = folder / f".{NAME}.tmp"
    # nan is not JSON: an unknown figure is null
    partial.write_text(json.dumps({"version": VERSION, **_nulls(asdict(run))}, indent=2) + "\n")
    os.replace(partial, path)
    return path


def read(path: Path) -> CapacityRun:
    """A capacity.json (or the run folder holding it); MalformedCapacity says what is wrong."""
    path = path / NAME if path.is_dir() else path
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise MalformedCapacity(f"{path}: cannot be read ({err})") from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise MalformedCapacity(f"{path}: version {data.get('version') if isinstance(data, dict) else None!r}; "
                                f"this vtlab reads version {VERSION}")
    try:
        modes = tuple(_mode(m) for m in data["modes"])
        return _build(CapacityRun, {**data, "modes": modes})
    except (KeyError, TypeError, ValueError) as err:
        raise MalformedCapacity(f"{path}: {err}") from None


def _mode(data: dict) -> ModeCapacity:
    points = tuple(_build(PointRecord, {**p, "flags": tuple(p.get("flags", ())), "figures": {
        name: [math.nan if x is None else x for x in bounds] for name, bounds in p["figures"].items()}})
        for p in data["points"])
    prediction = _build(Prediction, data["prediction"]) if data.get("prediction") else None
    usl = _build(UslFit, data["usl"]) if data.get("usl") else None
    return _build(ModeCapacity, {**data, "points": points, "prediction": prediction, "usl": usl})


def _build(kind: type, data: dict) -> object:
    """The record from its fields, a figure's null back to nan; KeyError names a field missing."""
    known = {f.name: f for f in fields(kind)}
    missing = [name for name, f in known.items() if name not in data and f.default is MISSING]
    if missing:
        raise KeyError(f"{kind.__name__} lacks {', '.join(missing)}")
    return kind(**{name: math.nan if data[name] is None and f.type == "float" else data[name]
                   for name, f in known.items() if name in data})


def _nulls(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nulls(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulls(v) for v in value]
    return value
