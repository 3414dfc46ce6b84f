"""What a row shows about each wall: whether it was seen saturated, and the numbers that say so or not.

Each check returns a `Seen`: saturated or not, and a short text of what was read ("in flight 400 > threads 200").
The bottleneck names a wall only where its check saw it saturated; the texts of the checks that did not are what an
`unexplained` row says was looked at. Nothing here is decided by elimination.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from vtlab.core import noisefloor
from vtlab.core import measures
from vtlab.core.measures import given
from vtlab.explain.facts import client_pool_size, in_flight, latency_ms, pool_size, user_service, vu_cap, wait_s
from vtlab.explain.generatorprice import PRICED_AGAINST, Priced, generator_cost, priced
from vtlab.explain.model import Ceilings, Context
from vtlab.explain.queues import pool_was_the_queue, request_thread_cap
from vtlab.results.cells import parse_reasons
from vtlab.results.rows import MeasuredRow

# Statuses that are the service refusing work it cannot take in time (a full queue, a borrow that timed out):
# an overload. Every other failure (a 500, a connection error's status 0, a 4xx) is a failure, not a wall.
REFUSALS = ("503", "504")


class Seen(NamedTuple):
    """One wall's check: whether the row showed it saturated, and what was read ("" where there was nothing to
    read: no failure, the closed model's VU cap)."""
    saturated: bool
    text: str


def number(value: float) -> str:
    """A number as the evidence says it: whole above 10, one decimal below."""
    if math.isnan(value):
        return "?"
    if math.isinf(value):
        return "∞"
    return f"{value:.0f}" if abs(value) >= 10 or value == round(value) else f"{value:.1f}"


def generator(row: MeasuredRow, ctx: Context, flags: tuple[str, ...] | list[str]) -> Seen:
    """k6 was the wall: its CPU at its allotment's peak, or (cores shared, the host busy) the throughput its CPU
    cost the row, by the cross-check against wrk, beyond the between-run noise floor where that cost cannot be
    bounded (generatorprice; a bounded one is carried as a correction, and the wall is the CPU)."""
    peak = given(row.load_cpu_pct_max, row.load_cpu_pct)
    if "generator-saturated" in flags or "dropped-iterations" in flags:
        return Seen(True, f"k6 CPU peak {number(peak)}% ≥ {number(ctx.rig.saturated_share * 100)}% of its "
                          f"{number(ctx.load_cpus)} cores")
    cost, floor, price = generator_cost(row, ctx), noisefloor.half_share(ctx.rig), priced(row, ctx)
    if cost > 0:
        share = given(row.load_cpu_pct, 0) / ctx.host_cpus
        unbounded = price is not None and not price.bounded  # validity's test, on the numbers the text quotes
        return Seen(unbounded,
                    f"shared cores, host {number(row.host_cpu_pct)}% busy (≥ "
                    f"{number(ctx.rig.generator_host_busy_pct)}%): k6 took "
                    f"{number(share)}% of the machine, costing the row ~{number(cost * 100)}% of its throughput "
                    f"(cross-checked against wrk) against a between-run noise of ±{number(floor * 100)}%"
                    + (f"; not bounded: {price.unbounded}" if unbounded and price else ""))
    return Seen(False, f"k6 CPU peak {number(peak)}%")


# The tiers that share the cores, as the evidence names them, by their CPU column (100% = one core).
SHARERS = tuple(zip(measures.declared("app_cpu_pct", "load_cpu_pct", "pg_cpu_pct", "stub_cpu_pct", "proxy_cpu_pct"),
                    ("the service", "k6", "PostgreSQL", "the stub", "Toxiproxy"), strict=True))


def shared_cpu(row: MeasuredRow, ctx: Context, price: Priced) -> str:
    """The CPU wall of a host the service shared with k6 whose cost was priced: who took the machine, and what
    the service would serve without k6 on its cores."""
    host = given(row.host_cpu_pct, 0)
    shares = ", ".join(f"{name} {number(getattr(row, column) / ctx.host_cpus)}%" for column, name in SHARERS
                       if not math.isnan(getattr(row, column)))
    more, low, high = (value * 100 for value in price.more())
    loss, half = price.loss * 100, price.half * 100
    return (f"host {number(host)}% busy (wall at {number(ctx.rig.saturated_share * 100)}%), shared by {shares} of "
            f"the machine; k6 took {number(price.share * 100)}% of the machine, costing the service ~{loss:.0f}% "
            f"[{loss - half:.0f}%, {loss + half:.0f}%] of its throughput: without it the service would serve "
            f"~{more:.0f}% more [{low:+.0f}%, {high:+.0f}%] ({PRICED_AGAINST})")


def failures(row: MeasuredRow, ctx: Context) -> tuple[Seen, Seen]:
    """(failures, overload): requests that failed for a reason other than refusal (a 500, status 0, a 4xx), and
    refusals under load (503/504, borrows that timed out), each above error_rate_max of the hold's requests.
    Without a breakdown by status (older CSVs) every failure is a failure: refusal is not assumed."""
    requests = given(row.http_reqs, 0)
    by_status = parse_reasons(row.errors_by_status)
    failed = max(given(row.error_rate, 0) * requests, float(sum(by_status.values())))
    shed = float(sum(by_status.get(status, 0) for status in REFUSALS))
    timeouts = given(row.pool_timeouts, 0)
    # a borrow that timed out answers 503 from vtlab's service (counted in shed) but may answer 500 from a user's:
    # refusal either way, never also a failure
    other = max(failed - max(shed, timeouts), 0.0)
    limit = ctx.rig.error_rate_max * requests
    statuses = f" ({row.errors_by_status})" if by_status else ", statuses not recorded"
    failing = Seen(other > limit and other >= max(shed, timeouts),
                   f"{number(other)} of {number(requests)} requests failed other than by refusal{statuses}"
                   if other > 0 else "")
    refusing = Seen(shed > limit or timeouts > limit,
                    f"{number(shed)} refused (503/504), {number(timeouts)} pool borrows timed out of {number(requests)}"
                    if shed > 0 or timeouts > 0 else "")
    return failing, refusing


def gc(row: MeasuredRow, ctx: Context) -> Seen:
    """GC pauses a large share of the hold's wall time (the service's GC meters over the hold)."""
    pause_ms, hold_s = row.gc_pause_ms, row.hold_s
    if math.isnan(pause_ms) or not hold_s > 0:
        return Seen(False, "GC pauses not measured")
    share = pause_ms / (hold_s * 1000)
    return Seen(share >= ctx.rig.gc_pause_share,
                f"GC paused {number(share * 100)}% of the hold ({number(pause_ms)} ms of {number(hold_s)} s; "
                f"wall at {number(ctx.rig.gc_pause_share * 100)}%)")


def connection_limit(row: MeasuredRow, ctx: Context) -> Seen:
    """The service could not take or open another connection: its open files at their limit, or "Too many open
    files" in its log; or Tomcat's connections at its max with more users than that. Files near the limit without
    either are no wall: measured at 10,000 users on 800 ms, 19,815 of 20,000 files, no error, the CPU 99% busy. The
    connects the kernel dropped with an accept queue full are said beside, never decisive."""
    said, saturated = [], False
    files, limit, fd_errors = row.open_files_max, row.open_files_limit, given(row.fd_errors, 0)
    if not math.isnan(files) and limit > 0:
        full = files >= limit or fd_errors > 0
        saturated |= full
        said.append(f"open files {number(files)} of {number(limit)} at the peak"
                    + (f", {number(fd_errors)} lines of its log name 'Too many open files'" if fd_errors else ""))
    elif fd_errors > 0:
        saturated = True
        said.append(f"{number(fd_errors)} lines of its log name 'Too many open files'")
    most, connections, users = (row.max_connections, row.tomcat_connections_max,
                                float(row.concurrency))
    if most > 0 and not math.isnan(connections):
        at_max = connections >= ctx.rig.saturated_share * most and users > most
        saturated |= at_max
        said.append(f"Tomcat connections {number(connections)} of {number(most)} at the peak for {number(users)} users")
    overflows = given(row.listen_overflows, 0)
    if overflows > 0:
        # said, never decisive: the kernel counts them for the whole host (the stub's and the database's listeners,
        # a neighbour's), and a connect it dropped is retried
        backlog = min(given(row.accept_count, math.inf), given(row.somaxconn, math.inf))
        said.append(f"{number(overflows)} connects dropped on the host with an accept queue full (the service's "
                    f"backlog {number(backlog)})")
    return Seen(saturated, "; ".join(said))


def connection_pool(row: MeasuredRow, ctx: Context) -> Seen:
    """Every connection out and a thread waiting for one, by the pool's timers (samples where it keeps none)."""
    pool = pool_size(row)
    out, waiting = row.pool_out_mean, row.pool_waiting_mean
    if not math.isnan(waiting):
        text = f"pool {number(pool)}: out {number(out)} mean, waiters {number(waiting)} mean (timers)"
    else:
        share = row.hikari_pending_share * 100
        text = (f"pool {number(pool)}: out {number(row.hikari_active_max)} max, waiters "
                f"{number(row.hikari_pending_max)} max in {number(share)}% of samples")
    return Seen(pool_was_the_queue(row, pool, ctx.rig), text)


def client_pool(row: MeasuredRow, ctx: Context) -> Seen:
    """Every connection of the downstream client's pool leased (its mean at least saturated_share of them) while
    requests waited for one through the hold — in at least pool_queue_sample_share of the samples, or
    pool_queue_waiters waiting on average — by the client's gauges: a waiter in one sample is a hiccup, not the wall.
    A client without a limit says nothing; one without the gauges is said not measured."""
    size = client_pool_size(row)
    client = "the service's client" if user_service(row) else f"{row.http_client or 'jdk'} client"
    if math.isinf(size):
        return Seen(False, "")
    leased, waiting = row.client_leased_mean, row.client_pending_mean
    if math.isnan(size) or math.isnan(leased):
        return Seen(False, "" if math.isnan(size) else f"{client} pool: not measured")
    share = given(row.client_pending_share, 0)
    errors = given(row.error_rate, 0)
    failed = (f"; {number(errors * 100)}% of requests failed ({row.errors_by_status or 'statuses not recorded'})"
              if errors > ctx.rig.error_rate_max else "")
    queued = share >= ctx.rig.pool_queue_sample_share or (not math.isnan(waiting)
                                                          and waiting >= ctx.rig.pool_queue_waiters)
    return Seen(size > 0 and leased >= ctx.rig.saturated_share * size and queued,
                f"{client} pool {number(size)} per route: leased {number(leased)} mean, waiting "
                f"{number(waiting)} mean ({number(row.client_pending_max)} max, in {number(share * 100)}% of "
                f"samples){failed}")


def cpu(row: MeasuredRow, ctx: Context, queued: bool = True) -> Seen:
    """The host or the service at least saturated_share busy (the service against its own cores' allotment); short
    of it, the tiers seen queueing for a CPU (cpu_pressure) where the requests waited too (`queued`: the latency
    beyond the unloaded one's margin). A closed-model row whose latency is its unloaded one is at its users'
    ceiling whatever the kernel saw: its users, not the CPU, set its rate."""
    app_allotment = (ctx.host_cpus if ctx.shared_cores else given(row.app_cpus, ctx.host_cpus)) * 100
    host, app, full = given(row.host_cpu_pct, 0), given(row.app_cpu_pct, 0), ctx.rig.saturated_share
    saturated = host >= full * 100 or app >= full * app_allotment
    quota = given(row.cpu_quota_cores, 0)
    host_of = f" of the {number(quota)} cores its CPU quota allows" if quota > 0 else ""
    busy = (f"host {number(host)}%{host_of}, service {number(app / app_allotment * 100)}% of its cores (wall at "
            f"{number(full * 100)}%)")
    pressure = cpu_pressure(row, ctx)
    if pressure.saturated and queued and not saturated:
        return pressure
    return Seen(saturated, f"{busy}; {pressure.text}" if pressure.text else busy)


def cpu_pressure(row: MeasuredRow, ctx: Context) -> Seen:
    """The tiers queued for a CPU: for at least cpu_pressure_wall_pct of the hold a runnable thread waited for one
    (the kernel's PSI, cpu_pressure_pct), on a host at least cpu_pressure_host_min_pct busy whose cores the tiers
    shared: the pressure is the host's, and on cores of their own it may be another tier's queue, not the
    service's. Nothing to say where the kernel's pressure was not read."""
    pressure, host = row.cpu_pressure_pct, given(row.host_cpu_pct, 0)
    if math.isnan(pressure):
        return Seen(False, "")
    wall, least = ctx.rig.cpu_pressure_wall_pct, ctx.rig.cpu_pressure_host_min_pct
    if pressure >= wall and host >= least and ctx.shared_cores:
        return Seen(True, f"host {number(host)}% busy, and for {number(pressure)}% of the hold a runnable thread "
                          f"waited for a CPU (PSI; wall at {number(wall)}% on a host ≥ {number(least)}% busy)")
    return Seen(False, f"a runnable thread waited for a CPU {number(pressure)}% of the hold (PSI; wall at "
                       f"{number(wall)}% on a host ≥ {number(least)}% busy)")


def thread_pool(row: MeasuredRow, ctx: Context) -> Seen:
    """More requests in flight than request threads (or, for platform threads, more connections open)."""
    cap = request_thread_cap(row)
    flying, connections = in_flight(row), given(row.tomcat_connections_max, 0)
    if flying > cap:
        return Seen(True, f"in flight {number(flying)} > threads {number(cap)}")
    # beyond the rig's own few (its runtime-info's, a user's reconnect): measured, 2,001 connections for 2,000 users on
    # 2,000 threads, every request at its unloaded latency, nothing waiting for a thread. The closed model's only:
    # there each connection is a user with a request out; the open model's k6 keeps a connection per VU, most of
    # them idle between arrivals (a capacity search's platform row at 100 req/s: ~400 connections, 104 in flight)
    if (row.thread_mode == "platform" and row.load_model != "open"
            and connections > cap + ctx.rig.rig_connections):
        return Seen(True, f"connections open {number(connections)} > threads {number(cap)}")
    return Seen(False, f"in flight {number(flying)} ≤ threads {number(cap)}")


def vus(row: MeasuredRow, ctx: Context) -> Seen:
    """The open model's generator cap: arrivals dropped while k6's users were all in a request (rate × latency
    at its VU cap): k6 had no user left to send them with, whatever the service could have taken."""
    if row.load_model != "open":
        return Seen(False, "")  # the closed model's users are the load itself, not a cap of the generator
    cap, flying, dropped = vu_cap(row, ctx.rig.k6_max_vus_factor), in_flight(row), given(row.dropped_iterations, 0)
    return Seen(dropped > 0 and flying >= ctx.rig.saturated_share * cap,
                f"{number(dropped)} arrivals dropped, in flight {number(flying)} of k6's {number(cap)} VUs")


def queued(row: MeasuredRow, ctx: Context, service_ms: float) -> bool:
    """Whether a closed-model row's requests waited: its latency beyond the unloaded latency's margin (not known: not
    seen). An open model's arrivals do not wait for the answers, so its latency is the question, not its rate: it
    always may have queued."""
    if row.load_model == "open":
        return True
    latency = latency_ms(row)
    return (not math.isnan(latency) and not math.isnan(service_ms)
            and latency > service_ms * (1 + ctx.rig.unloaded_latency_margin))


def load(row: MeasuredRow, ctx: Context, service_ms: float) -> tuple[Seen, bool]:
    """The load itself was the wall, and whether the time is mostly the downstream call. Closed model: latency
    within the margin of the unloaded latency (nothing queued), so users ÷ latency is the throughput; open
    model: every arrival served (nothing dropped, the offered rate reached within its interval)."""
    latency, margin = latency_ms(row), ctx.rig.unloaded_latency_margin
    if row.load_model == "open":
        target, got = float(row.target_rps), given(row.throughput_rps, 0)
        ci = given(row.throughput_ci95_rps, 0)
        ci = 0.0 if math.isnan(ci) else ci
        kept_up = (target > 0 and given(row.dropped_iterations, 0) == 0
                   and got + ci >= target * (1 - ctx.rig.ceiling_exceeded_margin))
        return Seen(kept_up, f"open model: {number(got)} of {number(target)} req/s offered, "
                             f"{number(given(row.dropped_iterations, 0))} dropped"), False
    wait_ms = wait_s(row) * 1000
    unloaded = not math.isnan(latency) and not math.isnan(service_ms) and latency <= service_ms * (1 + margin)
    mostly_wait = not math.isnan(latency) and latency > 0 and wait_ms >= ctx.rig.downstream_latency_share * latency
    text = (f"latency {number(latency)} ms vs unloaded {number(service_ms)} ms (≤ +{number(margin * 100)}%); "
            f"designed wait {number(wait_ms)} ms")
    return Seen(unloaded, text), mostly_wait


def exceeded(throughput: float, half: float, ceilings: Ceilings, margin: float) -> tuple[str, ...]:
    """The limits whose ceiling the row passed beyond its comparison half-width (repetitions.noise_half: its
    interval, at least the between-run noise floor) and the ceiling's margin: wrong predictions, never the row's
    wall. A ceiling that restates the row is its own measurement and cannot be passed."""
    low = throughput - (0.0 if math.isnan(half) else half)
    fields = (("concurrency", ceilings.concurrency), ("thread-pool", ceilings.threads),
              ("connection-pool", ceilings.pool), ("cpu", ceilings.cpu), ("connection-limit", ceilings.connections),
              ("client-pool", ceilings.client_pool))
    restated = {"concurrency": "concurrency", "connection-pool": "pool", "cpu": "cpu"}
    return tuple(name for name, ceiling in fields
                 if not math.isnan(ceiling) and not math.isinf(ceiling) and ceiling > 0
                 and restated.get(name) not in ceilings.restated and low > ceiling * (1 + margin))
