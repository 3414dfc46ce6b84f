"""What `vtlab advise RUN --try` measures (issue 57): each setting a run's advice sizes (explain.advice), tried one
at a time, then together at the points two settings hold, each a run of its own on the points it was advised for —
the run's own plan (its profile, the flags it was given by Overrides field, its phases and design as it ran them),
narrowed to the advised lines' loads and scenarios, with the setting at the size advised. Where two lines advise one
setting at different sizes, the try takes the largest: the one size that carries every line it answers (a larger
setting than a line needs leaves its wall where it was, Little's law's own reading).

A user's service's settings are its environment variables (--service-env SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE=…),
given over the run's own target flags, which the user gives again (cli.advise: their values are never recorded).

This module chooses; it measures nothing. Which advice is not tried says why: a line that got no advice, a wall no
setting a try sets moves, a setting already at the size advised, one beyond what the rig's PostgreSQL takes."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from vtlab.core.settings import USER_POOL_SETTING, USER_THREADS_SETTING
from vtlab.core.triedbefore import NotHelped
from vtlab.plan.presets import SERVICE_WORKLOAD


class Advice(Protocol):
    """What a try reads of an advised line (explain.model.Advice): the plan stage chooses from the analysis's words
    without importing it."""
    row: Any
    wall: str
    setting: str
    value: float
    needed: float
    flag: str
    why_not: str
    not_helped: NotHelped | None

# The flags a try sets, each with the Overrides field it fills and the row dimension it changes (a try's rows are
# matched with the run's without it). `--jdk` comes from a pinned frame's advice (JEP 491: JDK 24+).
OPTIONS = {"--tomcat-threads": ("tomcat_max_threads", "tomcat_max_threads"),
           "--pools": ("pools", "hikari_pool"),
           "--client-pool": ("client_pools", "client_pool"),
           "--offload-pool": ("offload_pool", "offload_pool"),
           "--jdk": ("jdks", "jdk")}
# Overrides fields that hold one value (the others are lists)
SCALAR_FIELDS = ("tomcat_max_threads", "offload_pool")
# A user's service's settings a try sets: Spring Boot's own environment variables, as explain.advice names them. A try
# gives them with --service-env over the run's own target flags; no row dimension tells them apart.
SERVICE_ENV = "--service-env"
SERVICE_SETTINGS = (USER_POOL_SETTING, USER_THREADS_SETTING)

# The row dimensions that narrow a try to the advised points, by the Overrides field of their flag: only those the
# run's rows varied in (a dimension every row shared is the run's plan already)
NARROWED = {"concurrency": "concurrency", "target_rps": "rates", "conn_mode": "conn_modes", "path_mode": "path_modes",
            "workload": "workloads", "http_client": "http_clients", "server": "servers", "pool_impl": "pool_impls",
            "context": "contexts", "fanout": "fanouts", "offload_executor": "executors",
            "db_latency_ms": "db_latencies", "downstream_latency_ms": "downstream_latencies", "shape": "shapes",
            "jdk": "jdks", "hikari_pool": "pools", "client_pool": "client_pools", "thread_mode": "modes",
            "jvm_opts": "jvm_opts"}
# The loads: narrowed always, as a sized profile's one point would be sized again by today's calibration
LOADS = ("concurrency", "target_rps")
# Values a row's expansion gives a dimension it does not use (no executor, no fan-out, the client's default pool):
# no value of its flag, so never narrowed to
UNUSED = ("", 0)
# The plan's phases as the run ran them (results.record.PlanRecord), given again: the profile's may have moved since
PHASES = ("stub_delay_ms", "stub_jitter_ms", "ramp_s", "warmup_s", "hold_s")

# Recorded Overrides fields a try does not give again: what the plan derived from the others (a paired plan's blocks
# are its reps, its seed its own; the profile's pairing and the runtime's version are worked out anew)
DERIVED = ("profile_pairs", "unpairable", "java_home_jdk", "pair_seed", "versus")

TOGETHER = "together"


@dataclass(frozen=True)
class Try:
    """One try: its name (its folder under the run's tries/), the settings it applies (flag, value), the Overrides
    fields its run is planned with, the advice lines it answers and the row dimensions its settings change."""
    name: str
    settings: tuple[tuple[str, str], ...]
    given: Mapping[str, object]
    lines: tuple[Advice, ...]
    changes: tuple[str, ...]

    def words(self) -> str:
        """Its settings as flags: "--pools 100 --tomcat-threads 1000"."""
        return " ".join(f"{flag} {value}" for flag, value in self.settings)

    def service_env(self) -> tuple[str, ...]:
        """Its settings of a user's service, each NAME=VALUE for --service-env."""
        return tuple(value for flag, value in self.settings if flag == SERVICE_ENV)


@dataclass(frozen=True)
class NotTried:
    advice: Advice
    why: str


def option_of(advice: Advice) -> tuple[str, str] | None:
    """The advice's flag as (flag, value) where a try can set it: a flag of vtlab's own service, or a user's service's
    setting (SERVICE_SETTINGS, the value NAME=SIZE); None for one it cannot (the client's pool of a user's code, no
    flag at all)."""
    try:
        words = shlex.split(advice.flag) if advice.flag else []
    except ValueError:  # words, not a flag: "your HTTP client's connections per route: 100"
        return None
    if len(words) != 2:
        return None
    if words[0] == SERVICE_ENV:
        name, _, size = words[1].partition("=")
        return (SERVICE_ENV, words[1]) if name in SERVICE_SETTINGS and size.isdigit() else None
    return (words[0], words[1]) if words[0] in OPTIONS else None


def _setting(flag: str, value: str) -> str:
    """What one try sets: the flag, or for a user's service the variable (two of them are two settings)."""
    return f"{flag} {value.partition('=')[0]}" if flag == SERVICE_ENV else flag


def _size(value: str) -> float:
    return float(value.rpartition("=")[2])


def chosen(advised: Sequence[Advice], overrides: Mapping[str, object], rows: Sequence[Mapping[str, object]],
           phases: Mapping[str, object] | None = None, paired: bool = False) -> tuple[list[Try], list[NotTried]]:
    """The tries of a run's advice: one a setting, then one of them together at the points two or more hold; and the
    advice not tried, with why. `overrides`: the run's plan's recorded Overrides fields; `rows`: its planned rows'
    dimensions; `phases`: its PHASES as it ran them; `paired`: whether it measured its modes paired (a run that was
    not stays so, whatever narrowing leaves of what kept it from pairing) — all as results.record.PlanRecord has
    them."""
    by_option: dict[str, list[tuple[Advice, str]]] = {}
    skipped = []
    for advice in advised:
        why = _why_not(advice)
        if why:
            skipped.append(NotTried(advice, why))
            continue
        flag, value = option_of(advice)  # type: ignore[misc]  # _why_not has ruled out None
        by_option.setdefault(_setting(flag, value), []).append((advice, value))
    base = {**{name: value for name, value in (phases or {}).items() if name in PHASES and value is not None},
            **replayed(overrides)}
    if not paired and not base.get("aa"):  # the run's design as it ran, whatever its flags would pair now
        base["paired"] = False
        base.pop("blocks", None)
    varied = [name for name in NARROWED if name in LOADS or len({str(row.get(name)) for row in rows}) > 1]
    made = [_try(base, varied, [(setting.split()[0], _largest(found))], [a for a, _ in found])
            for setting, found in by_option.items()]
    shared = _shared_points(made)
    if shared:  # where settings hold one point, the next wall once one is lifted may be the other's
        made.append(_try(base, varied, [s for t in made for s in t.settings],
                         [a for t in made for a in t.lines if _point(a.row) in shared], TOGETHER))
    return made, skipped


def _shared_points(made: Sequence[Try]) -> set[tuple[object, ...]]:
    """The points two or more tries' settings were advised for: the only ones a try of them together tells anything
    of (at a point only one setting holds, the other's try is the same run)."""
    seen: dict[tuple[object, ...], set[str]] = {}
    for attempt in made:
        for line in attempt.lines:
            seen.setdefault(_point(line.row), set()).add(attempt.name)
    return {point for point, names in seen.items() if len(names) > 1}


def _point(row: object) -> tuple[object, ...]:
    """A line's point: every dimension of its row but its thread mode and rep (both modes of a point are one)."""
    return tuple(value for name, value in vars(row).items() if name not in ("thread_mode", "rep"))


def replayed(overrides: Mapping[str, object]) -> dict[str, object]:
    """The run's recorded Overrides fields as a new plan takes them: lists as tuples, what the plan derived left out
    (a paired plan's reps are its blocks: given again they would be refused)."""
    given = {name: _typed(value) for name, value in overrides.items() if name not in DERIVED and value is not None}
    if given.get("paired") or given.get("aa"):
        given.pop("reps", None)
    if given.get("workloads") == (SERVICE_WORKLOAD,):
        given.pop("workloads")  # a user's service's: its target's flags (--service …) set it, given with the try
    return given


def _why_not(advice: Advice) -> str:
    if advice.why_not:
        return f"no advice to try: {advice.why_not}"
    tried = advice.not_helped
    if tried is not None:
        return f"tried before at this point ({tried.folder}/, {tried.measured_at[:10]}): {tried.flag} {tried.value} " \
               "did not help"
    if advice.wall == "cpu":
        return "no setting to try: a CPU wall is lifted by cores, not a setting"
    if option_of(advice) is None:
        return (f"{advice.flag or 'no flag'}: not a setting a try sets (one of {', '.join(OPTIONS)}, or of your "
                f"service's --service-env {', '.join(SERVICE_SETTINGS)})")
    if advice.wall != "pinning" and not advice.needed > advice.value:
        return f"its {advice.setting} is {advice.value:g} already: the size advised changes nothing"
    if "cannot grow that far" in getattr(advice, "beyond", ""):
        return advice.beyond
    return ""


def _largest(found: Sequence[tuple[Advice, str]]) -> str:
    return max((value for _, value in found), key=_size)


def _try(base: Mapping[str, object], varied: Sequence[str], settings: Sequence[tuple[str, str]],
         lines: Sequence[Advice], name: str = "") -> Try:
    """A try of `settings` on the points of `lines`: the run's fields, narrowed where the run varied to the lines'
    values, the settings over them."""
    given = dict(base)
    changes = tuple(OPTIONS[flag][1] for flag, _ in settings if flag in OPTIONS)
    for dimension in varied:
        if dimension in changes:
            continue
        values = tuple(value for value in dict.fromkeys(getattr(line.row, dimension) for line in lines)
                       if value not in UNUSED)
        if values:
            given[NARROWED[dimension]] = (tuple(tuple(shlex.split(v)) for v in values) if dimension == "jvm_opts"
                                          else values)
    if "modes" in given and (given.get("paired") or given.get("aa")):
        given.pop("modes")  # a paired plan measures both arms: its own modes, as it was given them
    if "jdk" in changes:
        given.pop("java_home", None)  # another runtime of the run's: the try asks for the JDK itself
    for flag, value in settings:
        if flag in OPTIONS:
            field = OPTIONS[flag][0]
            given[field] = int(value) if field in SCALAR_FIELDS else (int(value),)
    slug = name or "-".join(_slug(flag, value) for flag, value in settings)
    return Try(slug, tuple(settings), given, tuple(dict.fromkeys(lines)), changes)


def _slug(flag: str, value: str) -> str:
    if flag == SERVICE_ENV:  # spring-datasource-hikari-maximum-pool-size-40
        name, _, size = value.partition("=")
        return f"{name.lower().replace('_', '-')}-{size}"
    return f"{flag.lstrip('-')}-{value}"


def _typed(value: object) -> object:
    if isinstance(value, list):
        return tuple(_typed(item) for item in value)
    return value
