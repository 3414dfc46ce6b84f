"""The run record: a run folder's metadata.json read once into a typed, frozen record.

The runner writes metadata.json as a plain dict (rig.machine.collect, measure.loop, targets.k8srun) and keeps
doing so, byte for byte; this module is its one reader. The file has grown keys run by run, so a run recorded by
an older vtlab lacks some: `UPGRADES` names each, with the value that stands in for it, in one place. A file
this reader cannot take (not JSON, a key of the wrong type, a newer format) is a MalformedRecord naming the file
and the key, never a record half read.

What a report shows as it was recorded (the host's facts, the versions, the service's runtime info) stays a
mapping; what the analysis computes with is typed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.core import constants, shapes
from vtlab.core.aafloor import Floor as AAFloor
from vtlab.core.arms import Arms
from vtlab.core.arms import recorded as recorded_arms
from vtlab.core.triedbefore import NotHelped
from vtlab.results.table import METADATA_NAME

# The record's format. Every metadata.json so far is version 1 and says nothing: a format change that an older
# vtlab could not read writes "version" beside the other keys from then on.
VERSION = 1


class MalformedRecord(ValueError):
    """A metadata.json this version cannot read: what is wrong, and where."""


# Keys older runs lack, with what stands in for them (key, since, the stand-in and why). A dotted key is inside
# the plan's record. Keys only some runs write (target, cluster, recut, service, finished, host_before_run) are
# absent by design, not by age: their fields say what absent means.
UPGRADES: tuple[tuple[str, str, str], ...] = (
    ("rig", "2026-11-23 (d26728d)", "this version's constants (vtlab.core.constants.CURRENT): they have not changed"),
    ("plan.cooldown_s", "2026-11-23 (03b5d1e)", "3: the cool-down was a fixed 3 s before it was a setting"),
    ("plan.spike_multiple", "2026-11-24 (179d8aa)", "the shape defaults: every row was steady then"),
    ("plan.spike_s", "2026-11-24 (179d8aa)", "the shape defaults: every row was steady then"),
    ("plan.step_count", "2026-11-24 (179d8aa)", "the shape defaults: every row was steady then"),
    ("doctor", "2026-11-24 (191e472)", "no findings: the machine was not examined"),
    ("k6_dashboard", "2026-11-25 (89ecf80)", "false: there was no dashboard"),
    ("plan.java_homes", "2026-11-25 (8980d18)", "none: every row on vtlab's own runtimes"),
    ("plan.jvm_opts", "2026-11-25 (23ffd49)", "none: the service on vtlab's own JVM options"),
    ("plan.runners", "2026-11-25 (d139220)", "1: one k6 process per row"),
    # not metadata.json's: matrix.csv's columns, read by results.rows (a dotted key, so no record lists it upgraded)
    ("matrix.csv.columns", "every version", "a column an older vtlab did not write reads empty: a dimension its "
     "default (core.dimensions), a measured column not measured (core.measures: NaN, \"\", no)"),
)


@dataclass(frozen=True)
class PlanRecord:
    """The plan as the run was asked for it (planner.Plan.describe())."""
    profile: str
    model: str
    ramp_s: int
    warmup_s: int
    hold_s: int
    stub_delay_ms: int
    stub_jitter_ms: int
    overrides: Mapping[str, object]           # the flags that changed the profile, by Overrides field
    rows: tuple[Mapping[str, object], ...]    # each row's dimension values (core.dimensions.values)
    cooldown_s: int = 3
    spike_multiple: float = shapes.Shape.multiple
    spike_s: int = shapes.Shape.spike_s
    step_count: int = shapes.Shape.steps
    java_homes: Mapping[str, str] = field(default_factory=dict)  # jdk value (as text) -> the --java-home
    jvm_opts: tuple[tuple[str, ...], ...] = ()  # the option sets, one per --jvm-opts (none recorded: ())
    runners: int = 1
    # What this machine's calibration sized (plan.sizing.describe: "calibration", "moved": each point's nominal,
    # chosen and why); absent by design where nothing was sized (no calibration, a --conc, a profile not sized)
    sizing: Mapping[str, object] = field(default_factory=dict)
    # A paired plan's arms, blocks and seed (planner.Plan.describe: "a", "b", "aa", "blocks", "seed"); absent by
    # design where the modes were measured each in its own stretch of time
    paired: Mapping[str, object] = field(default_factory=dict)
    # The advice this machine's tries found no help when the run was planned (core.triedbefore); () where none was
    # kept, or the run is from before they were recorded
    not_helped: tuple[NotHelped, ...] = ()

    @property
    def arms(self) -> Arms | None:
        return recorded_arms(dict(self.paired))

    @property
    def aa_floor(self) -> AAFloor | None:
        """The machine's A/A floor the paired plan was made with (core.aafloor; none known where it had measured
        none); None: not looked for (a run from before it was recorded, a cluster's)."""
        found = self.paired.get("aa_floor")
        return AAFloor.of(found) if isinstance(found, Mapping) else None


@dataclass(frozen=True)
class UserService:
    """The user's service a run measured (metadata "target" of `vtlab run --service/--url`): what a resumed run
    must match."""
    jar: str = ""
    url: str = ""
    call: str = ""
    vs: str = ""   # a before/after's other jar (--vs)
    # the jar's JDBC drivers, pool and HTTP client (core.libraries) as (artifact, version): what it ran, not what a
    # resumed run must match (a record from before them has none)
    libraries: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    vs_libraries: tuple[tuple[str, str], ...] = field(default=(), compare=False)  # the --vs jar's
    # its database (--db: "vtlab", vtlab's PostgreSQL; --db-url: "url"; "none") and its --service-env variables' names
    # (their values are never written): what a try of a setting gives again (cli.advise)
    db: str = field(default="", compare=False)
    env_names: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, described: Mapping[str, object]) -> UserService:
        """From userservice.Target.describe(), as written or as read back."""
        def pairs(key: str) -> tuple[tuple[str, str], ...]:
            found = described.get(key)
            return tuple((str(pair[0]), str(pair[1])) for pair in found
                         if isinstance(pair, (list, tuple)) and len(pair) == 2) if isinstance(found, list) else ()
        names = described.get("env_names")
        return cls(*(str(described.get(key) or "") for key in ("jar", "url", "call", "vs")),
                   libraries=pairs("libraries"), vs_libraries=pairs("vs_libraries"), db=str(described.get("db") or ""),
                   env_names=tuple(map(str, names)) if isinstance(names, list) else ())


@dataclass(frozen=True)
class Recut:
    """A re-cut run (series.recut): the run it was cut from and the hold's window, seconds since k6 started."""
    from_run: str
    hold_from_s: float
    hold_to_s: float


@dataclass(frozen=True)
class RunRecord:
    version: int
    host: Mapping[str, object]         # the host's facts as collected, shown as they are (a cluster's: "kubernetes")
    cpus_available: int                # CPUs this run's process could use; 0 when not recorded (a cluster run)
    cpu_count: int                     # the host's CPUs; 0 when not recorded
    versions: Mapping[str, object]     # java, k6, python, vtlab_commit
    core_map: str                      # the tiers' cores, "app=0-1 pg=2 …"; "" when not recorded (a cluster run)
    plan: PlanRecord | None            # None: not recorded
    rig: constants.Constants
    started: str                       # ISO 8601; "" when not recorded
    finished: str                      # "": the run stopped before its last row (or is still going)
    service: Mapping[str, object] | None   # the service's runtime info, read from the first row's live objects
    target: Mapping[str, object] | None    # what the run measured beyond the plan, as recorded (compared on resume)
    user_service: UserService | None       # the user's service; None: vtlab's own, or a cluster
    kubernetes: Mapping[str, object] | None  # a cluster run's images, runners, resources (target "kubernetes")
    cluster_load_cpus: float | None        # a cluster run: the runners' cores; None: not a cluster run
    doctor: tuple[Mapping[str, str], ...]  # rig.doctor's findings before the run
    host_before_run: Mapping[str, object] | None  # the neighbours watched before the first row
    k6_dashboard: bool
    recut: Recut | None                    # a re-cut run's source and window
    upgraded: tuple[str, ...] = ()         # the UPGRADES keys this file lacked, filled with their stand-ins
    raw: Mapping[str, object] = field(default_factory=dict, repr=False, compare=False)  # the file as read

    @property
    def on_cluster(self) -> bool:
        return self.cluster_load_cpus is not None


def read(run_dir: Path) -> RunRecord:
    """The run folder's record; a folder without metadata.json (a CSV alone) gives every stand-in."""
    path = run_dir / METADATA_NAME
    if not path.exists():
        return from_dict({}, str(path))
    try:
        recorded = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise MalformedRecord(f"{path}: not JSON ({err})") from None
    return from_dict(recorded, str(path))


def from_dict(recorded: object, source: str = METADATA_NAME) -> RunRecord:
    """The record of metadata.json's content; `source` names it in errors."""
    if not isinstance(recorded, dict):
        raise MalformedRecord(f"{source}: expected a JSON object, found {type(recorded).__name__}")
    top = _Reader(source, recorded)
    version = top.integer("version", VERSION)
    if version > VERSION:
        raise MalformedRecord(f"{source}: version {version} is newer than this vtlab reads ({VERSION}); "
                              "report it with the vtlab that measured it")
    upgraded = [key for key, _, _ in UPGRADES if "." not in key and key not in recorded]
    host = top.inner("host", {})
    target = top.inner("target", None)
    kubernetes = target.inner("kubernetes", None) if target else None
    cluster = top.inner("cluster", None)
    recut = top.inner("recut", None)
    plan = top.inner("plan", None)
    if plan:
        upgraded += [key for key, _, _ in UPGRADES if key.startswith("plan.") and key[5:] not in plan.values]
    return RunRecord(
        version=version, host=host.values, cpus_available=host.integer("cpus_available", 0),
        cpu_count=host.integer("cpu_count", 0), versions=top.inner("versions", {}).values,
        core_map=top.text("core_map", ""), plan=_plan(plan) if plan else None, rig=_rig(top),
        started=top.text("started", ""), finished=top.text("finished", ""),
        service=_values(top.inner("service", None)), target=_values(target),
        user_service=UserService.of(target.values) if target and not kubernetes else None,
        kubernetes=_values(kubernetes),
        # an empty "cluster" is no cluster: a local run never writes one
        cluster_load_cpus=cluster.number("load_cpus", 0.0) if cluster and cluster.values else None,
        doctor=top.objects("doctor"), host_before_run=_values(top.inner("host_before_run", None)),
        k6_dashboard=top.flag("k6_dashboard", False),
        recut=Recut(recut.text("from_run", ""), recut.number("hold_from_s"), recut.number("hold_to_s"))
        if recut else None,
        upgraded=tuple(sorted(upgraded)), raw=recorded)


# A plan's keys every vtlab has written; the others are in UPGRADES.
_PLAN_REQUIRED = ("profile", "model", "ramp_s", "warmup_s", "hold_s", "stub_delay_ms", "stub_jitter_ms",
                  "overrides", "rows")


def _plan(plan: _Reader) -> PlanRecord:
    missing = [key for key in _PLAN_REQUIRED if key not in plan.values]
    if missing:
        raise MalformedRecord(f"{plan.source}: plan: lacks {', '.join(missing)}")
    return PlanRecord(
        profile=plan.text("profile"), model=plan.text("model"), ramp_s=plan.integer("ramp_s"),
        warmup_s=plan.integer("warmup_s"), hold_s=plan.integer("hold_s"), stub_delay_ms=plan.integer("stub_delay_ms"),
        stub_jitter_ms=plan.integer("stub_jitter_ms"), overrides=plan.inner("overrides", {}).values,
        rows=plan.objects("rows"), cooldown_s=plan.integer("cooldown_s", PlanRecord.cooldown_s),
        spike_multiple=plan.number("spike_multiple", PlanRecord.spike_multiple),
        spike_s=plan.integer("spike_s", PlanRecord.spike_s),
        step_count=plan.integer("step_count", PlanRecord.step_count),
        java_homes={jdk: str(home) for jdk, home in plan.inner("java_homes", {}).values.items()},
        jvm_opts=_option_sets(plan.items("jvm_opts")), runners=plan.integer("runners", 1),
        sizing=plan.inner("sizing", {}).values, paired=plan.inner("paired", {}).values,
        not_helped=tuple(tried for entry in plan.objects("not_helped") if (tried := NotHelped.of(entry))))


def _option_sets(items: list[object]) -> tuple[tuple[str, ...], ...]:
    """The plan's JVM option sets: a list of them since 2026-11-27, before that the one set's words."""
    if items and all(isinstance(item, list) for item in items):
        return tuple(tuple(str(word) for word in item) for item in items)
    return (tuple(str(word) for word in items),) if items else ()


def _rig(top: _Reader) -> constants.Constants:
    rig = top.inner("rig", None)
    if rig is None:
        return constants.CURRENT
    try:
        return constants.from_record(rig.values)
    except (TypeError, ValueError) as err:
        raise MalformedRecord(f"{top.source}: rig: a constant cannot be read ({err})") from None


def _values(reader: _Reader | None) -> Mapping[str, object] | None:
    return reader.values if reader is not None else None


_REQUIRED = object()  # a key without a stand-in: its absence is an error


@dataclass(frozen=True)
class _Reader:
    """One JSON object of the file, read a key at a time with the type the key must have; a key of another type
    is a MalformedRecord naming the file and the key's path (e.g. plan.hold_s). JSON null counts as absent."""
    source: str
    values: Mapping[str, object]
    path: str = ""

    def _get(self, key: str, default: object, kinds: tuple[type, ...], expected: str) -> object:
        value = self.values.get(key)
        if value is None:
            if default is _REQUIRED:
                raise MalformedRecord(f"{self.source}: {self.path}{key}: missing")
            return default
        # bool is an int to Python, never in this file: a count of `true` is a mistake
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise MalformedRecord(f"{self.source}: {self.path}{key}: expected {expected}, found "
                                  f"{json.dumps(value)[:80]}")
        return value

    def integer(self, key: str, default: object = _REQUIRED) -> int:
        return self._get(key, default, (int,), "an integer")

    def number(self, key: str, default: object = _REQUIRED) -> float:
        return float(self._get(key, default, (int, float), "a number"))

    def text(self, key: str, default: object = _REQUIRED) -> str:
        return self._get(key, default, (str,), "text")

    def flag(self, key: str, default: object = _REQUIRED) -> bool:
        return self._get(key, default, (bool,), "true or false")

    def items(self, key: str) -> list[object]:
        return self._get(key, [], (list,), "a list")

    def objects(self, key: str) -> tuple[Mapping[str, object], ...]:
        found = self.items(key)
        if not all(isinstance(item, dict) for item in found):
            raise MalformedRecord(f"{self.source}: {self.path}{key}: expected a list of objects")
        return tuple(found)

    def inner(self, key: str, default: Mapping[str, object] | None) -> _Reader | None:
        """The object under `key` as a reader of its own; `default` (an object, or None) when absent."""
        value = self._get(key, default, (dict,), "an object")
        return None if value is None else _Reader(self.source, value, f"{self.path}{key}.")
