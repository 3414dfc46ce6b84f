"""Explain every row: its Little's-law ceiling, the limit that sets it, the bottleneck the measurements point at,
and whether the row can be trusted. Pure: CSV rows in, an `Analysis` (typed, immutable verdicts and aggregates,
see model.py) out, no I/O.

This module puts the steps together; each lives in a module of its own: what a row says (facts), where a request
can wait (queues), the ceilings and the limit (ceilings), the flags (validity), the bottleneck (bottleneck), the
repetitions combined (repetitions).

Inputs are CSV rows as read (strings); any CSV with the published rig's 23 leading columns can be
analysed, and the extra vtlab columns sharpen the verdict where present.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from vtlab.core import cores
from vtlab.core.measures import given
from vtlab.explain import repetitions, scrape
from vtlab.explain.bottleneck import bottleneck
from vtlab.explain.ceilings import ceilings_of, cpu_ms_per_request, cpu_points, limit_of, lowest_load_rows, service_time
from vtlab.explain.evidence import exceeded
from vtlab.explain.facts import all_rps
from vtlab.explain.generatorprice import GENERATOR_PRICED, priced
from vtlab.explain.model import MEASURED_NUMBERS, Analysis, Context, Failure, Measured, Verdict
from vtlab.explain.queues import queued
from vtlab.explain.queues import JEP491_JDK, pins_every_request  # noqa: F401  the report reads them here
from vtlab.explain.validity import invalidating, validity_flags
from vtlab.results.record import RunRecord
from vtlab.results.rows import MeasuredRow, all_typed


def analyse(lines: Sequence[MeasuredRow | Mapping[str, object]], run: RunRecord) -> Analysis:
    """A verdict per measured row and an aggregate per scenario; rows a dead tier ended (failed_tier set)
    get a failed verdict and reach nothing else: not the service times, the aggregates nor any story. `lines` are
    matrix.csv's rows as read (typed), or a replay's or a test's cells, typed here."""
    rows = all_typed(lines)
    measured_rows = [row for row in rows if not row.failed]
    ctx = context(measured_rows, run)
    every = [failed_verdict(row) if row.failed else analyse_row(row, ctx) for row in rows]  # the CSV's order
    # a paired run's blocks stand as their pairs do (explain.pairs) before their arms' figures are aggregated
    every, aggregates, paired = repetitions.combined(every, ctx.rig, run.plan.arms if run.plan else None)
    verdicts = tuple(verdict for verdict in every if not verdict.failed)
    return Analysis(ctx, verdicts, aggregates, tuple(verdict for verdict in every if verdict.failed), paired,
                    run.plan.aa_floor if run.plan and paired else None, run.plan.not_helped if run.plan else ())


def analyse_row(row: MeasuredRow, ctx: Context) -> Verdict:
    """One measured row's verdict, in steps: the service time, the ceilings it implies, the lowest of them
    (the limit; a ceiling the row passed is a wrong prediction and limits nothing), the validity flags, and the
    bottleneck the measurements name."""
    throughput = given(row.throughput_rps, 0)
    cpu_ms = cpu_ms_per_request(row, ctx, all_rps(row))
    service_s, source = service_time(row, ctx)
    ceilings = ceilings_of(row, ctx, service_s, source, cpu_ms, throughput)
    noise = repetitions.noise_half(throughput, row.throughput_ci95_rps, ctx.rig)
    passed = exceeded(throughput, noise, ceilings, ctx.rig.ceiling_exceeded_margin)
    limit, ceiling = limit_of(ceilings, passed)
    flags = validity_flags(row, ctx, throughput)
    wall = bottleneck(row, ctx, limit, flags, ceilings, ceiling, service_s * 1000, passed)
    if "vu-cap" in wall.flags:  # k6 dropped the arrivals for want of users, not for a service that fell behind
        flags = [flag for flag in flags if flag != "offered-above-capacity"]
    flags = [*flags, *wall.flags]
    price = priced(row, ctx) if any(flag.startswith(GENERATOR_PRICED) for flag in flags) else None
    without = price.without(throughput) if price else (math.nan,) * 3
    return Verdict(
        row=row.dims, measured=measured(row), service_time_ms=service_s * 1000,
        service_time_source=source, cpu_ms_per_req=cpu_ms, ceilings=ceilings, ceiling_rps=ceiling, limit=limit,
        attained=throughput / ceiling if ceiling and not math.isinf(ceiling) else math.nan,
        bottleneck=wall.name, evidence=wall.evidence,
        valid=not invalidating(flags),
        flags=tuple(flags), queued=queued(row, ctx.rig),
        noise_half_rps=noise, without_generator_rps=without[0], without_generator_low_rps=without[1],
        without_generator_high_rps=without[2])


def context(rows: Sequence[MeasuredRow], run: RunRecord) -> Context:
    # the CPUs the tiers could use: the host's, or fewer where a cgroup's quota bound the rig (its rows say so)
    quota = max((given(row.cpu_quota_cores, 0) for row in rows), default=0.0)
    host_cpus = run.cpus_available or run.cpu_count or _guess_cpus(rows)
    host_cpus = min(host_cpus, quota) if quota > 0 else host_cpus
    core_map = run.core_map
    sets = {part.split("=", 1)[1] for part in core_map.split() if "=" in part}
    load_set = next((p.split("=", 1)[1] for p in core_map.split() if p.startswith("load=")), "")
    rig = run.rig
    # a cluster run's tiers have nodes of their own, and its runners the CPU their limits give them
    shared = len(sets) <= 1 and not run.on_cluster
    load_cpus = (run.cluster_load_cpus if run.cluster_load_cpus
                 else len(cores.parse_cpu_list(load_set)) if load_set else host_cpus)
    lowest = lowest_load_rows(rows, rig)
    return Context(host_cpus, shared, load_cpus,
                   {key: seconds for key, (_, seconds, _) in lowest.items()}, rig,
                   {key: (mode, users) for key, (users, _, mode) in lowest.items()}, cpu_points(rows, shared, rig),
                   bool(run.user_service and run.user_service.url),
                   (run.plan.stub_jitter_ms if run.plan else 0) / 2000,
                   run.user_service is None or run.user_service.db == "vtlab")


def _guess_cpus(rows: Sequence[MeasuredRow]) -> int:
    return int(max((given(r.app_cpus, 0) for r in rows), default=0)) or 1


def measured(row: MeasuredRow) -> Measured:
    """The figures the report and the scenario sections quote beside the verdict, as they were measured but for the
    service's CPU and allocation per request: its own, the rig's scrape taken out where the row counted it."""
    numbers = {**{name: getattr(row, name) for name in MEASURED_NUMBERS}, **scrape.service_own(row, all_rps(row))}
    return Measured(**{**numbers, "throughput_rps": given(row.throughput_rps, 0),
                       "error_rate": given(row.error_rate, 0)},
                    pinned_reasons=row.pinned_reasons, writes_ok=row.writes_ok,
                    pinned_frames=row.pinned_frames,
                    errors_by_status=row.errors_by_status,
                    steps_rps=row.steps_rps, steps_p99_ms=row.steps_p99_ms,
                    jdk_version=row.jdk_version, stall=row.stall,
                    thread_dump=row.thread_dump,
                    probe_top_classes=row.probe_top_classes,
                    taken_in_turns=row.taken_in_turns)


def failed_verdict(row: MeasuredRow) -> Verdict:
    """A failed row's line: its dimensions and how it ended, no numbers, no bottleneck, never valid."""
    tier = row.failed_tier
    return Verdict(row=row.dims, measured=Measured(), valid=False, flags=(f"failed:{tier}",),
                   failure=Failure(tier, row.failure, row.failure_log))
