"""The downstream client: the JDK's HttpClient against Apache HttpClient 5, Reactor Netty and Jetty's, each with its
own default pool or a sized one, and which of them became the row's wall."""

from __future__ import annotations

import math

from vtlab.explain.facts import client_hold_s
from vtlab.explain.model import Analysis
from vtlab.explain.validity import ERROR_THRESHOLD
from vtlab.report.scenarios.common import (Label, Line, Section, TABLE_COLUMNS, against, chart_of, fmt,
                                           matching_baseline, rps_text, table_of)

CLIENT_COLUMNS = [("client_pool", "client pool per route"), ("leased", "leased mean"),
                  ("waiting", "waiting mean · max"), ("cpu_ms", "app CPU ms/req")]
NAMES = {"jdk": "the JDK's HttpClient", "apache": "Apache HttpClient 5", "reactor": "Reactor Netty",
         "jetty": "Jetty's client"}
ORDER = ("jdk", "apache", "reactor", "jetty")


def section(analysis: Analysis, mode_label: Label) -> Section | None:
    analysed = analysis.lines
    chosen = [a for a in analysed if a.row.http_client != "jdk"]
    if not chosen:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms", "load_model")
    lines = sorted([*matching_baseline(analysed, chosen, same), *chosen],
                   key=lambda a: (a.row.thread_mode != "platform", a.row.concurrency,
                                  ORDER.index(a.row.http_client) if a.row.http_client in ORDER else len(ORDER),
                                  a.row.client_pool))
    margin = analysis.rig.ceiling_exceeded_margin
    verdict = [_line_sentence(a, margin) for a in lines]

    def variant(a: Line) -> str:
        return f"{mode_label(a.row)}, {a.row.http_client}" + (f" ({a.row.client_pool})" if a.row.client_pool else "")

    table = table_of(lines, mode_label, variant)
    for a, cells in zip(lines, table, strict=True):
        m = a.measured
        cells.update(client_pool=_pool_words(a), leased=fmt(m.client_leased_mean, 1),
                     waiting=f"{fmt(m.client_pending_mean, 1)} · {fmt(m.client_pending_max)}")
    return Section("clients", "Downstream clients: JDK, Apache, Reactor Netty, Jetty", verdict, table,
                   chart_of(lines, [variant(a) for a in lines]), [*TABLE_COLUMNS, *CLIENT_COLUMNS])


def _pool_words(a: Line) -> str:
    size = a.measured.client_pool_max
    if math.isnan(size):
        return f"{a.row.client_pool} (not measured)" if a.row.client_pool else "not measured"
    return "no limit" if size < 0 else fmt(size) + ("" if a.row.client_pool else " (its default)")


def _line_sentence(a: Line, margin: float) -> str:
    """One row: what it delivered, and whether its client's pool was the wall, with the pool's ceiling and where the
    throughput stood against it; a pool that did not fill is said with what it carried."""
    m = a.measured
    head = (f"{a.row.thread_mode}, {NAMES.get(a.row.http_client, a.row.http_client)}, {a.row.concurrency} users: "
            f"{rps_text(a)} req/s, p99 {fmt(m.p99_ms)} ms")
    invalid = "" if a.valid else f" The row is not valid ({';'.join(a.flags)})."
    size, ceiling = m.client_pool_max, a.ceilings.client_pool
    if math.isnan(size):
        return f"{head}; its client's pool was not measured; bottleneck {a.bottleneck}.{invalid}"
    if size < 0:
        return f"{head}; the client has no connection limit; bottleneck {a.bottleneck}.{invalid}"
    pool = (f"{fmt(size)} connections per route ({'sized' if a.row.client_pool else 'its default'}) ÷ "
            f"{fmt(client_hold_s(a.row) * 1000)} ms a request = {fmt(ceiling, 1)} req/s")
    if a.bottleneck == "client-pool":
        standing = against(a, ceiling, margin)
        where = {"at": "within reach of it", "below": "below it", "above": "above it"}.get(standing, "")
        statuses = m.errors_by_status or "statuses not recorded"
        refused = (f"; {fmt(m.error_rate * 100, 1)}% of requests failed ({statuses})"
                   if m.error_rate > ERROR_THRESHOLD else "")
        return (f"{head}; its pool was the wall: {pool}, the row {where} (leased {fmt(m.client_leased_mean, 1)} "
                f"mean, {fmt(m.client_pending_mean, 1)} requests waiting for a connection){refused}.{invalid}")
    return (f"{head}; its pool ({pool}) did not fill: leased {fmt(m.client_leased_mean, 1)} mean; bottleneck "
            f"{a.bottleneck}.{invalid}")
