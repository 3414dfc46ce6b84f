"""What to change before you flip, from each scenario's evidence (issue 57): for every valid line whose wall is a
setting — the request threads of platform threads, the connection pool, the downstream client's pool — the setting
as the service ran it, the size that carries what the users ask (Little's law: the setting scales with the rate it
must carry, at the time each request holds it), the ceiling then predicted (the next wall's, or the users' own), the
flag to try at the size that carries that ceiling (smaller than the users' where the next wall is below their rate),
and the limit that size meets where the rig knows one. A CPU wall gets no setting: the cores the asked rate needs
are said instead. A connection held across the downstream call is named as the code's shape.

Only valid lines are advised, and only walls the evidence named: an invalid line, or one whose wall is unexplained,
gets no advice and says why not. Nothing here is measured anew: `vtlab compare --service A --vs B` (or a run with the
flag) is how a change is shown to help."""

from __future__ import annotations

import math
from dataclasses import replace

from vtlab.core.settings import (DB_MAX_CONNECTIONS, DB_RESERVED_CONNECTIONS, USER_POOL_SETTING,
                                 USER_THREADS_SETTING)
from vtlab.core.triedbefore import covering
from vtlab.explain.model import LIMITS, Advice, Aggregate, Analysis
from vtlab.explain.queues import pinned_carriers_wall
from vtlab.explain.validity import CEILING_EXCEEDED
from vtlab.results import cells

# The walls a setting sizes, each with its Ceilings field
SETTING_WALLS = {"thread-pool": "threads", "connection-pool": "pool", "client-pool": "client_pool"}
# A platform thread's stack, reserved for each (the JVM's default -Xss on Linux x64): what more threads cost
THREAD_STACK_MIB = 1
# Walls that are the users' own wait: nothing of the service to change, so no advice and nothing to say
USERS_OWN = ("concurrency", "downstream", "users")


def advise(analysis: Analysis) -> tuple[Advice, ...]:
    """Each aggregate's advice, in the analysis's order, then each valid line's pinned frames; the users' own wait
    needs none and gets none. A line whose flag a try on this machine found no help at its point carries that try
    (core.triedbefore): it is told as tried, not suggested again."""
    walls = tuple(found for line in analysis.aggregates if (found := _one(line, analysis)) is not None)
    told = (*walls, *(pin for line in analysis.aggregates if line.valid for pin in pinned(line)))
    return tuple(replace(advice, not_helped=covering(analysis.not_helped, advice.row, advice.flag))
                 if analysis.not_helped else advice for advice in told)


# What each kind of pin needs (measure.jfr's kinds): JEP 491 (JDK 24) lets a virtual thread park holding a monitor;
# a class initializer and a native frame still pin on every JDK
PIN_FIX = {"monitor": ("JDK 24+ removes it (JEP 491: a virtual thread parks holding a monitor)", "--jdk 25"),
           "monitor-inferred": ("a monitor, as JDK 21's event names no reason and the stack shows neither a class "
                                "initializer nor a native frame: JDK 24+ lets a virtual thread park holding one (JEP "
                                "491)", "--jdk 25"),
           "other": ("a reason JEP 491 does not name: unexplained", ""),
           "class-init": ("no JDK removes it: a class initializer pins; move the blocking out of the static "
                          "initializer", ""),
           "native": ("no JDK removes it: a native frame pins; do not block under it (a java.util.concurrent lock "
                      "outside it)", "")}


def pinned(line: Aggregate) -> tuple[Advice, ...]:
    """The line's pinned frames (JFR's jdk.VirtualThreadPinned by the first frame below the JDK's own), each with
    what removes it: on a JDK before 24 a monitor's pin goes with JDK 25; a class initializer's or a native frame's
    with the code alone."""
    told = []
    for frame, kind, count, total_ms, max_ms in cells.parse_frames(line.line.measured.pinned_frames):
        fix, flag = PIN_FIX.get(kind, ("", ""))
        if kind in ("monitor", "monitor-inferred") and line.row.jdk >= 24:
            fix, flag = (f"a monitor pinned on JDK {line.row.jdk}, which JEP 491 should have let it leave: "
                         "unexplained"), ""
        told.append(Advice(line.row, "pinning", frame, count, flag=flag, shape=fix, pin_kind=kind,
                           pinned_ms=total_ms, longest_ms=max_ms))
    return tuple(told)


def _one(line: Aggregate, analysis: Analysis) -> Advice | None:
    verdict, wall, row = line.line, line.bottleneck, line.row
    if not line.valid:
        return Advice(row, wall, why_not="no valid row: no advice is taken from an invalid one")
    if wall == "unexplained":
        return Advice(row, wall, why_not="its wall is unexplained: nothing measured says what to change")
    if wall in USERS_OWN:
        return None
    asked = verdict.ceilings.concurrency
    if wall == "cpu":
        return _cpu(line, analysis, asked)
    field = SETTING_WALLS.get(wall)
    if pinned_carriers_wall(row, wall):
        return Advice(row, wall, why_not="its carriers, each request pinning one: no size moves them; what pinned "
                                         "them is told with its frame")
    if field is None or (wall == "thread-pool" and row.thread_mode != "platform" and not _offloaded(row, math.nan)):
        # gc, overload, a stall, the heap, a virtual thread's carriers or server cap: no size vtlab can compute
        return Advice(row, wall, why_not=f"no setting vtlab sizes moves a {wall} wall: its section says what held it")
    value = _value(wall, line)
    ceiling = getattr(verdict.ceilings, field)
    if not (value > 0 and math.isfinite(value) and ceiling > 0 and math.isfinite(asked)):
        return Advice(row, wall, value=value, why_not=f"not computed: its {_SETTING[wall]} or the users' rate "
                                                           "was not measured")
    needed = math.ceil(round(value * asked / ceiling, 6))  # 100.00000000000001 connections are 100
    # the next wall: every other ceiling the row computed but one it passed (a prediction its throughput proved wrong)
    passed = {flag.removeprefix(CEILING_EXCEEDED) for flag in verdict.flags if flag.startswith(CEILING_EXCEEDED)}
    others = [(name, getattr(verdict.ceilings, f)) for name, f in LIMITS if f != field and name not in passed
              and not math.isnan(getattr(verdict.ceilings, f))]
    if wall == "thread-pool":  # the same ceiling's other cap, at its own size: Tomcat's threads or the offload pool
        others += [("thread-pool", ceiling * other / value) for other in _other_caps(row, value)]
    next_wall, predicted = min(others, key=lambda pair: pair[1]) if others else ("concurrency", asked)
    own = row.workload != "service"
    if wall == "thread-pool" and _offloaded(row, value):  # the work's own pool is the narrower cap (queues)
        return Advice(row, wall, "offload pool", value, needed, asked, predicted, next_wall,
                      f"--offload-pool {needed}")
    # what carries the rate the next wall then allows: where that wall is below the users' own, a smaller size lifts
    # the wall as far as any larger one would (pc1's 400 users: 393–405 connections asked, 21–24 carry the CPU's rate)
    enough = math.ceil(round(value * predicted / ceiling, 6)) if predicted < asked else needed
    if enough <= value:  # a next wall below what the setting carried: the row, which the setting held, says not
        enough = needed
    # the size to try is that one: a larger lifts nothing past the next wall and costs a connection or a thread
    # each (pc1, 2026-12-02: pools of 95 for each arm put 190 backends on PostgreSQL beside a CPU that carries ~300)
    together = bool(analysis.paired)  # a paired run's two arms hold two pools at once
    return Advice(row, wall, _SETTING[wall], value, needed, asked, predicted, next_wall, _flag(wall, enough, own),
                  _beyond(wall, enough, own, together, analysis.context.vtlab_database), _shape(wall, row, own),
                  enough=enough)


def _cpu(line: Aggregate, analysis: Analysis, asked: float) -> Advice:
    """A CPU wall: no setting, the cores its users' rate needs at its CPU a request (the cores it had: the host's
    where the tiers share them, as explain.ceilings counts them)."""
    verdict, row = line.line, line.row
    own_cores = verdict.measured.app_cpus
    cores = analysis.context.host_cpus if analysis.context.shared_cores or not own_cores > 0 else own_cores
    needed = asked * verdict.cpu_ms_per_req / 1000
    if not (needed > 0 and math.isfinite(needed)):
        return Advice(row, "cpu", why_not="not computed: the users' rate or the CPU a request was not measured")
    return Advice(row, "cpu", asked_rps=asked, needed=needed, value=cores,
                  shape=f"no setting and no thread model lifts a CPU wall: {verdict.cpu_ms_per_req:.3f} ms of CPU a "
                        f"request on the service's cores, so the {_rate(asked)} its users ask need {needed:.1f} "
                        f"cores (it had {cores:g})")


def _other_caps(row: object, cap: float) -> list[float]:
    """The request threads' caps beside the one that held the row (explain.queues.request_thread_cap): Tomcat's
    threads and an offload workload's platform pool, each larger than `cap`."""
    caps = [float(getattr(row, "tomcat_max_threads", 0) or 0)]
    if getattr(row, "workload", "") == "offload" and getattr(row, "offload_executor", "") == "platform":
        caps.append(float(getattr(row, "offload_pool", 0) or 0))
    return [other for other in caps if other > cap]


def _offloaded(row: object, threads: float) -> bool:
    """Whether the request threads' cap is the offload workload's fixed platform pool (explain.queues); with `threads`
    NaN, whether the row hands its work to one at all."""
    offloads = getattr(row, "workload", "") == "offload" and getattr(row, "offload_executor", "") == "platform"
    return offloads and (math.isnan(threads) or getattr(row, "offload_pool", 0) == threads)


_SETTING = {"thread-pool": "request threads", "connection-pool": "connection pool",
            "client-pool": "downstream client's connections per route"}


def _value(wall: str, line: Aggregate) -> float:
    """The setting as the service ran it: the request threads from their own ceiling (threads ÷ the service time,
    explain.ceilings), the pool as the row set it (a user's service: as its meters read it), the client's pool as its
    meters read it (-1 there: no limit)."""
    verdict, row = line.line, line.row
    if wall == "thread-pool":
        cap = verdict.ceilings.threads * verdict.service_time_ms / 1000
        return round(cap) if math.isfinite(cap) else math.nan  # a user's service that exposes no thread limit
    if wall == "connection-pool":
        return verdict.measured.pool_max if row.workload == "service" else row.hikari_pool
    size = verdict.measured.client_pool_max
    return math.inf if size < 0 else size


def _flag(wall: str, needed: int, own: bool) -> str:
    if own:
        return {"thread-pool": f"--tomcat-threads {needed}", "connection-pool": f"--pools {needed}",
                "client-pool": f"--client-pool {needed}"}[wall]
    if wall == "thread-pool":
        return f"--service-env {USER_THREADS_SETTING}={needed}"
    if wall == "connection-pool":
        return f"--service-env {USER_POOL_SETTING}={needed}"
    return f"your HTTP client's connections per route: {needed}"


def _beyond(wall: str, size: int, own: bool, together: bool = False, vtlab_database: bool = True) -> str:
    """The limit the setting at `size` meets, or what it costs, where the rig knows it; `together`: a paired run,
    whose two arms' JVMs hold two pools at once; `vtlab_database`: the pools are vtlab's PostgreSQL's to hold (its own
    service's, or a user's with --db)."""
    room = (DB_MAX_CONNECTIONS - DB_RESERVED_CONNECTIONS) // (2 if together else 1)
    if wall == "connection-pool":
        if vtlab_database and size > room:
            held = "each of the two arms' pools up together" if together else "the pool"
            return (f"beyond what vtlab's PostgreSQL takes ({room} for {held}, of its {DB_MAX_CONNECTIONS} "
                    "connections): it cannot grow that far here")
        if own:
            return ""
        return "the database's max_connections must hold it, every JVM's pool at once" + (
            f" (vtlab's PostgreSQL here: {room})" if vtlab_database else "")
    if wall == "thread-pool":
        return f"each platform thread reserves a stack: ~{size * THREAD_STACK_MIB:,} MiB of address space at -Xss1m"
    return ""


def _shape(wall: str, row: object, own: bool) -> str:
    """What no setting fixes, where the row shows it: a connection held across the downstream call."""
    if wall == "connection-pool" and own and getattr(row, "conn_mode", "") == "held":
        return ("the connection is held across the downstream call: every request in flight keeps one, so the pool "
                "must match the users; releasing it before the call (--conn-mode released) leaves it the query's time "
                "alone")
    return ""


def _rate(rps: float) -> str:
    return f"{rps:,.0f} req/s"
