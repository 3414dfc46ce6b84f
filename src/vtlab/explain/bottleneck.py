"""The bottleneck: one name for what held a row back, named only where the row showed that wall saturated (see
evidence.py), most decisive first; `unexplained`, with the gap and what was checked, where none was."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from vtlab.core.measures import given
from vtlab.explain import evidence
from vtlab.explain.evidence import Seen
from vtlab.explain.generatorprice import priced
from vtlab.explain.model import Ceilings, Context
from vtlab.explain.validity import CEILING_EXCEEDED, OUT_OF_MEMORY, out_of_memory_seen, stall_seen
from vtlab.results.rows import MeasuredRow

BOTTLENECKS = ("out-of-memory", "connection-limit", "stall", "client-pool", "load-generator", "failures", "overload",
               "gc", "connection-pool", "cpu", "thread-pool", "vu-cap", "downstream", "users", "unexplained")
# which limit's ceiling stands behind each wall's name: a wall whose ceiling the row passed is never named
CEILING_OF = {"connection-limit": "connection-limit", "connection-pool": "connection-pool", "cpu": "cpu",
              "client-pool": "client-pool",
              "thread-pool": "thread-pool", "downstream": "concurrency", "users": "concurrency"}


class Wall(NamedTuple):
    """The row's bottleneck, the evidence that names it (or, unexplained, what was checked), and the flags the
    decision adds: the ceilings the row passed, k6's VU cap."""
    name: str
    evidence: str
    flags: tuple[str, ...] = ()


def bottleneck(row: MeasuredRow, ctx: Context, limit: str, flags: Sequence[str], ceilings: Ceilings,
               ceiling_rps: float, service_ms: float, passed: tuple[str, ...]) -> Wall:
    """One name for what held the row back, from what the row showed saturated, most decisive first; `passed`:
    the ceilings the row exceeded (evidence.exceeded), never named and flagged as wrong predictions."""
    found = _named(row, ctx, limit, tuple(flags), service_ms, passed)
    extra = tuple(f"{CEILING_EXCEEDED}{name}" for name in passed)
    if isinstance(found, Wall):
        return found._replace(flags=found.flags + extra)
    return Wall("unexplained", _gap(row, ceilings, ceiling_rps, passed, found), extra)


def _named(row: MeasuredRow, ctx: Context, limit: str, flags: tuple[str, ...], service_ms: float,
           passed: tuple[str, ...]) -> Wall | list[str]:
    """The first wall the row showed saturated, or what each check read where none was (one text a check)."""
    # the heap's end first: a JVM that ran out of it also stalls, fails its requests and burns its CPU collecting
    out_of_memory = out_of_memory_seen(row, ctx)
    if out_of_memory:
        return Wall(OUT_OF_MEMORY, out_of_memory)
    # before the stall: a service that cannot take another connection stalls the users left outside it
    limited = evidence.connection_limit(row, ctx)
    if limited.saturated and "connection-limit" not in passed:
        return Wall("connection-limit", limited.text)
    stalled = stall_seen(row, ctx)
    if stalled:
        return Wall("stall", stalled)
    failing, refusing = evidence.failures(row, ctx)
    pool, threads = evidence.connection_pool(row, ctx), evidence.thread_pool(row, ctx)
    cpu = evidence.cpu(row, ctx, evidence.queued(row, ctx, service_ms))
    host_full = given(row.host_cpu_pct, 0) >= ctx.rig.saturated_share * 100
    client = evidence.client_pool(row, ctx)
    load, mostly_wait = evidence.load(row, ctx, service_ms)
    closed = row.load_model != "open"
    price = priced(row, ctx) if not {"generator-saturated", "dropped-iterations"} & set(flags) else None
    checks = (
        # A downstream client's pool seen full with requests waiting holds the row at its connections ÷ the call,
        # whatever else happened: ahead of the failures (a pool with a bounded queue, Reactor Netty's, refuses the calls
        # beyond it, the requests fail for it) and of the generator (k6 spins on those quick failures and fills the
        # CPU: measured, Reactor's default pool at 1,000 users, 96% 502s, the host 98-100% busy). The row's flags
        # still say it is not valid.
        # a call held longer by a queue for the CPU: said only where it decides, never among what was checked
        ("cpu", Seen(True, cpu.text) if client.saturated and host_full and limit == "cpu" else Seen(False, "")),
        ("client-pool", client),
        ("load-generator", evidence.generator(row, ctx, flags)),
        # k6's cost on the shared cores priced and bounded (generatorprice): the host full is the wall, with who
        # shared it, where k6 unbounded would have been named above
        ("cpu", Seen(True, evidence.shared_cpu(row, ctx, price)) if price and price.bounded and host_full
         else Seen(False, "")),
        ("failures", failing),
        ("overload", refusing),
        ("gc", evidence.gc(row, ctx)),
        # With every CPU busy a connection is held longer than its query needs (the thread that holds it waits for
        # a core), so the queue for connections is a symptom: more of them would not help.
        ("cpu", Seen(pool.saturated and host_full and limit == "cpu", cpu.text)),
        ("connection-pool", pool),
        ("cpu", Seen(cpu.saturated and limit == "cpu", cpu.text)),  # e.g. CPU-bound work on a pool sized to cores
        ("thread-pool", threads),
        ("cpu", cpu),
        ("vu-cap", evidence.vus(row, ctx)),
        ("downstream" if closed and mostly_wait else "users", load),
    )
    checked: list[str] = [limited.text] if limited.text else []  # what an unexplained row read of its connections
    for name, seen in checks:
        if seen.saturated and CEILING_OF.get(name) not in passed:
            return Wall(name, seen.text, ("vu-cap",) if name == "vu-cap" else ())
        text = seen.text + (" (saturated, but the row passed its ceiling: not named)" if seen.saturated else "")
        if seen.text and text not in checked:
            checked.append(text)
    return checked


def _gap(row: MeasuredRow, ceilings: Ceilings, ceiling_rps: float, passed: tuple[str, ...],
         checked: list[str]) -> str:
    """An unexplained row's evidence: how far it stayed below its smallest ceiling it did not pass, and each check
    that saw nothing saturated."""
    standing = [(name, value) for name, value in (("concurrency", ceilings.concurrency),
                                                  ("thread-pool", ceilings.threads),
                                                  ("connection-pool", ceilings.pool), ("cpu", ceilings.cpu),
                                                  ("connection-limit", ceilings.connections),
                                                  ("client-pool", ceilings.client_pool))
                if name not in passed and not math.isnan(value)]
    throughput = given(row.throughput_rps, 0)
    if standing:
        name, value = min(standing, key=lambda pair: pair[1])
        share = throughput / value * 100 if value and not math.isinf(value) else math.nan
        gap = f"attained {evidence.number(share)}% of the {name} ceiling {evidence.number(value)} req/s"
    else:
        gap = f"no ceiling computed ({evidence.number(ceiling_rps)} req/s)"
    return f"{gap}; no wall named: " + "; ".join(checked)
