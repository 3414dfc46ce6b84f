"""The report's scenario sections (writes, offload, fan-out, sleep, cpu, pinning, pools, latency,
request context, the reactive twin): for each scenario present in a run, a table and a verdict in
words, computed from the analysis alone. Pure: no I/O, no drawing."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from vtlab import analyze, sample

TABLE_COLUMNS = [("variant", "variant"), ("load", "load"), ("rps", "req/s"), ("p50", "p50 ms"),
                 ("p99", "p99 ms"), ("ceiling", "ceiling req/s"), ("bottleneck", "bottleneck")]
PINNED_COLUMN = ("pinned", "pinned events (reasons)")
WRITES_COLUMN = ("writes", "stored / acknowledged")
POOL_COLUMNS = [("pending", "pool waiters max"), ("pinned", "pinned events (reasons)")]
MEMORY_COLUMNS = [("rss", "RSS max MB"), ("heap", "heap max MB"), ("gc", "GC pauses · ms")]
MODEL_COLUMNS = [("threads", "JVM threads max"), ("rss", "RSS max MB"), ("cpu_ms", "app CPU ms/req")]

Line = Mapping[str, object]


@dataclass
class Section:
    key: str
    title: str
    verdict: list[str]
    table: list[dict[str, str]]
    chart: dict[str, list] = field(default_factory=dict)  # labels, throughput, p99: what the chart draws
    columns: list[tuple[str, str]] = field(default_factory=lambda: list(TABLE_COLUMNS))


def sections(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> list[Section]:
    built = [_writes(analysed, mode_label), _offload(analysed, mode_label), _fanout(analysed, mode_label),
             _sleep(analysed, mode_label), _cpu(analysed, mode_label), _pinning(analysed, mode_label),
             _pools(analysed, mode_label), _latency(analysed, mode_label), _context(analysed, mode_label),
             _reactive(analysed, mode_label)]
    return [section for section in built if section is not None]


def _fmt(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) or math.isinf(value) else f"{value:,.{digits}f}"


def _n(line: Line, column: str, default: float = math.nan) -> float:
    return analyze.num(line, column, default)


def _table(lines: Sequence[Line], mode_label: Callable[[Line], str], variant: Callable[[Line], str] | None = None
           ) -> list[dict[str, str]]:
    return [{"variant": (variant or mode_label)(a), "load": f"{a['concurrency']} users",
             "rps": _fmt(_n(a, "throughput_rps"), 1) + ("" if a["valid"] else " (invalid)"),
             "p50": _fmt(_n(a, "p50_ms")), "p99": _fmt(_n(a, "p99_ms")), "ceiling": _fmt(_n(a, "ceiling_rps"), 1),
             "bottleneck": str(a["bottleneck"]),
             "pinned": _fmt(_n(a, "pinned_events")) + (f" ({a['pinned_reasons']})" if a.get("pinned_reasons") else ""),
             "writes": f"{_fmt(_n(a, 'rows_inserted'))} / {_fmt(_n(a, 'writes_acknowledged'))}",
             "pending": _fmt(_n(a, "hikari_pending_max")), "rss": _fmt(_n(a, "rss_mb_max")),
             "heap": _fmt(_n(a, "heap_used_mb_max")),
             "gc": f"{_fmt(_n(a, 'gc_pauses'))} · {_fmt(_n(a, 'gc_pause_ms'))}",
             "threads": _fmt(_n(a, "jvm_threads_max")), "cpu_ms": _fmt(_n(a, "app_cpu_ms_per_req"), 2)} for a in lines]


def _chart(lines: Sequence[Line], labels: Sequence[str], draw: tuple[str, str] | None = None) -> dict[str, list]:
    chart = {"labels": list(labels), "throughput_rps": [_n(a, "throughput_rps") for a in lines],
             "p99_ms": [_n(a, "p99_ms") for a in lines]}
    if draw:
        chart.update({key: [_n(a, key) for a in lines] for key in draw})
        chart["draw"] = list(draw)
    return chart


def _ordered(lines: Sequence[Line]) -> list[Line]:
    return sorted(lines, key=lambda a: (a["thread_mode"] != "platform", _n(a, "tomcat_max_threads"),
                                        _n(a, "concurrency"), str(a.get("rep"))))


def _writes(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = _ordered([a for a in analysed if analyze.workload(a) == "write"])
    if not lines:
        return None
    verdict = []
    for a in lines:
        acknowledged, inserted = _n(a, "writes_acknowledged"), _n(a, "rows_inserted")
        if str(a.get("writes_ok")).lower() == "true":
            check = f"all {_fmt(acknowledged)} acknowledged writes are in the database, none doubled"
        elif math.isnan(acknowledged):
            check = "the write check did not run"
        elif inserted < acknowledged:
            check = (f"LOST WRITES: {_fmt(acknowledged - inserted)} of {_fmt(acknowledged)} acknowledged orders "
                     "are not in the database")
        else:
            check = (f"{_fmt(inserted - acknowledged)} stored orders were never acknowledged to the client "
                     "(it gave up before the answer came)")
        verdict.append(f"{mode_label(a)} at {a['concurrency']} users: {_fmt(_n(a, 'throughput_rps'), 1)} writes/s "
                       f"({a['bottleneck']}); {check}.")
    verdict += _ratio_sentence(lines)

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {a.get('conn_mode')}"

    return Section("writes", "Writes: every acknowledged order must be stored once", verdict,
                   _table(lines, mode_label, variant), _chart(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, WRITES_COLUMN])


def _offload(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = sorted((a for a in analysed if analyze.workload(a) == "offload"),
                   key=lambda a: (a["thread_mode"] != "platform", a.get("offload_executor") != "platform",
                                  _n(a, "concurrency")))
    if not lines:
        return None

    def variant(a: Line) -> str:
        executor = (f"{_fmt(_n(a, 'offload_pool'))} platform threads" if a.get("offload_executor") == "platform"
                    else "virtual threads")
        return f"{mode_label(a)} Tomcat → {executor}"

    def cap_words(a: Line) -> str:
        caps = []
        if a["thread_mode"] == "platform":
            caps.append(f"Tomcat's {_fmt(_n(a, 'tomcat_max_threads'))} threads")
        if a.get("offload_executor") == "platform":
            caps.append(f"the {_fmt(_n(a, 'offload_pool'))}-thread offload pool")
        return " and ".join(caps) if caps else "no thread pool (only users, connections and CPU)"

    verdict = [f"{variant(a)}: {_fmt(_n(a, 'throughput_rps'), 1)} req/s at {a['concurrency']} users, p99 "
               f"{_fmt(_n(a, 'p99_ms'))} ms — capped by {cap_words(a)}, ceiling {_fmt(_n(a, 'ceiling_rps'), 1)} "
               f"req/s ({a['bottleneck']})." for a in lines]
    best = max(lines, key=lambda a: _n(a, "throughput_rps"))
    verdict.append(f"Every request thread waits for its offloaded task, so the narrowest pool on the path sets the "
                   f"wall: only {variant(best)} had none below the users ({_fmt(_n(best, 'throughput_rps'), 1)} "
                   "req/s). A virtual-thread executor behind platform Tomcat still stops at Tomcat's threads.")
    return Section("offload", "Explicit executors: offloading the work from the request thread", verdict,
                   _table(lines, mode_label, variant), _chart(lines, [variant(a) for a in lines]))


def _sleep(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = _ordered([a for a in analysed if analyze.workload(a) == "sleep"])
    if not lines:
        return None
    verdict = []
    for a in lines:
        sleep_s = analyze.wait_s(a)
        users = _n(a, "concurrency")
        if a["thread_mode"] == "platform":
            threads = _n(a, "tomcat_max_threads")
            verdict.append(
                f"{mode_label(a)}: {_fmt(_n(a, 'throughput_rps'), 1)} req/s with {_fmt(users)} users sleeping "
                f"{_fmt(sleep_s, 1)} s each — Tomcat's {_fmt(threads)} threads ÷ {_fmt(sleep_s, 1)} s = "
                f"{_fmt(threads / sleep_s if sleep_s else math.nan, 1)} req/s, so a user waits for a thread "
                f"(median {_fmt(_n(a, 'p50_ms') / 1000, 1)} s, "
                f"{_fmt(_n(a, 'p50_ms') / 1000 / sleep_s, 1)}× the sleep).")
        else:
            verdict.append(
                f"{mode_label(a)}: {_fmt(_n(a, 'throughput_rps'), 1)} req/s, "
                f"median {_fmt(_n(a, 'p50_ms') / 1000, 2)} s "
                f"— about the sleep itself: every user gets a thread, so the ceiling is users ÷ sleep = "
                f"{_fmt(users / sleep_s if sleep_s else math.nan, 1)} req/s.")
    verdict += _ratio_sentence(lines)
    return Section("sleep", "Sleep: pure waiting, no database, no downstream", verdict,
                   _table(lines, mode_label), _chart(lines, [mode_label(a) for a in lines]))


def _cpu(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = _ordered([a for a in analysed if analyze.workload(a) == "cpu"])
    if not lines:
        return None
    rps = [_n(a, "throughput_rps") for a in lines]
    best, worst = max(rps), min(rps)
    best_line = lines[rps.index(best)]
    spread = (best - worst) / best if best else math.nan
    cpu_ms = _n(best_line, "service_time_ms")
    verdict = [
        f"Pure computation: {_fmt(cpu_ms, 2)} ms of the service's CPU per request, no I/O. "
        + "; ".join(f"{mode_label(a)} {_fmt(_n(a, 'throughput_rps'), 1)} req/s ({a['bottleneck']}, "
                    f"host CPU {_fmt(_n(a, 'host_cpu_pct'))}%)" for a in lines) + ".",
        f"The CPU is the wall — cores ÷ CPU per request of every tier ≈ {_fmt(_n(best_line, 'ceiling_cpu_rps'), 0)} "
        "req/s — and neither more threads nor virtual ones can add work the cores do not have. "
        + (f"The thread model moves throughput by only {_fmt(spread * 100)}%: a platform pool sized to the "
           "cores is enough." if spread < analyze.SPREAD_WARNING else
           f"The thread model still moves throughput by {_fmt(spread * 100)}% (best: {mode_label(best_line)}): "
           "at this CPU per request that is each model's own overhead per request, not concurrency."),
    ]
    starved = [a for a in lines if a["thread_mode"] == "virtual" and "missing-samples" in str(a.get("flags"))]
    if starved:
        verdict.append("The virtual row's meter samples went missing: a CPU-bound virtual thread keeps its carrier "
                       "until it blocks or ends (no time slicing), so the actuator's scrapes — on virtual threads "
                       "too — waited behind the computation. Platform threads are time-sliced by the OS.")
    return Section("cpu", "CPU-bound work: computation only", verdict, _table(lines, mode_label),
                   _chart(lines, [mode_label(a) for a in lines]))


def _pinning(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = _ordered([a for a in analysed if analyze.workload(a) == "order-summary" and not analyze.is_variant(a)
                      and a.get("path_mode") != "normal"])
    if not lines:
        return None
    lines = _ordered([a for a in analysed if analyze.workload(a) == "order-summary" and not analyze.is_variant(a)
                      and str(a.get("concurrency")) in {str(b.get("concurrency")) for b in lines}
                      and a.get("conn_mode") in {b.get("conn_mode") for b in lines}])
    lines.sort(key=lambda a: (str(a.get("path_mode")) != "normal", str(a.get("path_mode")), a["thread_mode"]))

    def events(path: str, mode: str) -> tuple[float, dict[str, int]]:
        chosen = [a for a in lines if a.get("path_mode") == path and a["thread_mode"] == mode]
        counts: dict[str, int] = {}
        for a in chosen:
            for reason, count in sample.parse_reasons(str(a.get("pinned_reasons") or "")).items():
                counts[reason] = counts.get(reason, 0) + count
        total = sum(_n(a, "pinned_events") for a in chosen) if chosen else math.nan
        return total, counts

    def reasons(counts: dict[str, int]) -> str:
        return ", ".join(f"“{reason}” × {count}" for reason, count in counts.items()) or "none"

    verdict = []
    control, control_reasons = events("pinned-control", "virtual")
    monitor, monitor_reasons = events("synchronized", "virtual")
    if not math.isnan(control):
        if control > 0:
            verdict.append(f"The capture works: the pinned-control path (blocking under a native frame) recorded "
                           f"{_fmt(control)} jdk.VirtualThreadPinned events on virtual threads "
                           f"({reasons(control_reasons)}).")
        else:
            verdict.append("The pinning capture is BROKEN: the pinned-control path recorded no jdk.VirtualThreadPinned "
                           "events, so the zeros elsewhere in this run prove nothing.")
    if not math.isnan(monitor):
        if monitor == 0:
            verdict.append("Blocking inside synchronized recorded 0 pinned events on virtual threads: JEP 491 "
                           "(JDK 24+) lets a virtual thread unmount while it holds a monitor."
                           + ("" if not math.isnan(control) else
                              " Without a pinned-control row this zero is unverified (add --path-mode "
                              "pinned-control)."))
        else:
            verdict.append(f"Blocking inside synchronized still pinned {_fmt(monitor)} times "
                           f"({reasons(monitor_reasons)}): "
                           "this JDK predates JEP 491 or something else holds the carrier.")
    by_path = {(a.get("path_mode"), a["thread_mode"]): a for a in lines}
    pinned_v, normal_v = by_path.get(("pinned-control", "virtual")), by_path.get(("normal", "virtual"))
    if pinned_v and normal_v and _n(normal_v, "throughput_rps") > 0:
        verdict.append(
            f"What pinning costs: on the control path virtual threads serve {_fmt(_n(pinned_v, 'throughput_rps'), 1)} "
            f"req/s against {_fmt(_n(normal_v, 'throughput_rps'), 1)} on the normal path — each blocked request holds "
            f"one of the {_fmt(_n(pinned_v, 'vt_parallelism'))} carrier threads for the whole downstream call, so "
            f"the carriers are the pool: {_fmt(_n(pinned_v, 'vt_parallelism'))} ÷ "
            f"{_fmt(_n(pinned_v, 'service_time_ms'))} ms = {_fmt(_n(pinned_v, 'ceiling_threads_rps'), 1)} req/s.")
    if pinned_v and "missing-samples" in str(pinned_v.get("flags")):
        verdict.append("The control row's meter samples went missing as well: the service's actuator runs on "
                       "virtual threads too, and its scrapes waited for a carrier like every request did.")

    def variant(a: Line) -> str:
        return f"{a.get('path_mode')} / {mode_label(a)}"

    return Section("pinning", "Pinning: JEP 491 and its positive control", verdict,
                   _table(lines, mode_label, variant), _chart(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, PINNED_COLUMN])


def _fanout(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    lines = sorted((a for a in analysed if analyze.workload(a) == "fanout"),
                   key=lambda a: (a["thread_mode"] != "platform", a.get("fanout") != "sequential",
                                  _n(a, "concurrency")))
    if not lines:
        return None
    call_ms = _n(lines[0], "stub_delay_ms") + 2 * _n(lines[0], "downstream_latency_ms", 0)
    verdict = [f"Each request reads the order and makes two downstream calls of {_fmt(call_ms)} ms: one after the "
               f"other that is ≥ {_fmt(2 * call_ms)} ms (the sum), all at once it can be "
               f"{_fmt(call_ms)} ms (the slowest)."]
    def in_service_ms(a: Line) -> float:
        # More users than threads: the median also counts the wait for a thread; the time in service is
        # the analysis' service time (from a row of the same fan-out that did not queue).
        return _n(a, "service_time_ms") if analyze.queued(a) else _n(a, "p50_ms")

    for mode in ("platform", "virtual"):
        by = {a.get("fanout"): a for a in lines if a["thread_mode"] == mode}
        seq, par = by.get("sequential"), by.get("structured")
        if seq and par:
            par_ms = in_service_ms(par)
            queue = (f" (their medians, {_fmt(_n(seq, 'p50_ms'))} and {_fmt(_n(par, 'p50_ms'))} ms, add the wait for "
                     f"one of {_fmt(_n(par, 'tomcat_max_threads'))} threads)" if analyze.queued(par) else "")
            verdict.append(
                f"{mode}: {_fmt(in_service_ms(seq))} ms in service sequential vs {_fmt(par_ms)} ms structured{queue}, "
                f"{_fmt(par_ms / call_ms if call_ms else math.nan, 2)}× the slowest call — "
                + ("latency approaches the slowest call, not the sum" if par_ms < 1.5 * call_ms
                   else "the structured fan-out did NOT approach the slowest call")
                + f"; throughput {_fmt(_n(seq, 'throughput_rps'), 1)} → {_fmt(_n(par, 'throughput_rps'), 1)} req/s "
                f"({seq['bottleneck']} → {par['bottleneck']}).")
    if any(a["thread_mode"] == "platform" for a in lines):
        verdict.append("With platform Tomcat a request still holds its thread for the whole fan-out, so halving its "
                       "time doubles what 200 threads carry; the forked calls themselves run on virtual threads "
                       "(StructuredTaskScope's default) either way.")

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {a.get('fanout')}"

    return Section("fanout", "Fan-out: two calls and a lookup, one after the other or with StructuredTaskScope",
                   verdict, _table(lines, mode_label, variant), _chart(lines, [variant(a) for a in lines]))


def _matching_baseline(analysed: Sequence[Line], chosen: Sequence[Line], same: Sequence[str]) -> list[Line]:
    """The plain rows (no variant) that share `same` columns with a chosen variant row: its loopback,
    HikariCP, no-context or blocking counterpart."""
    keys = {tuple(str(a.get(c)) for c in same) for a in chosen}
    return [a for a in analysed if analyze.workload(a) == "order-summary" and not analyze.is_variant(a)
            and tuple(str(a.get(c)) for c in same) in keys]


def _pools(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    agroal = [a for a in analysed if a.get("pool_impl") == "agroal"]
    if not agroal:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms")
    lines = sorted([*agroal, *_matching_baseline(analysed, agroal, same)],
                   key=lambda a: (a["thread_mode"] != "platform", a.get("pool_impl") != "hikari", _n(a, "concurrency")))
    verdict = []
    for mode in ("platform", "virtual"):
        by = {a.get("pool_impl") or "hikari": a for a in lines if a["thread_mode"] == mode}
        hikari, other = by.get("hikari"), by.get("agroal")
        if hikari and other:
            base_rps = _n(hikari, "throughput_rps")
            ratio = _n(other, "throughput_rps") / base_rps if base_rps else math.nan
            verdict.append(
                f"{mode}, {other.get('conn_mode')}, pool {other.get('hikari_pool')}, {other.get('concurrency')} users: "
                f"HikariCP {_fmt(_n(hikari, 'throughput_rps'), 1)} req/s (p99 {_fmt(_n(hikari, 'p99_ms'))} ms) vs "
                f"Agroal {_fmt(_n(other, 'throughput_rps'), 1)} req/s (p99 {_fmt(_n(other, 'p99_ms'))} ms): "
                + (f"within {analyze.SPREAD_WARNING * 100:.0f}% — the same wall"
                   if abs(ratio - 1) < analyze.SPREAD_WARNING else f"Agroal at {_fmt(ratio, 2)}× HikariCP")
                + f"; bottleneck {hikari['bottleneck']} / {other['bottleneck']}."
                + _tail_sentence(_n(hikari, "p99_ms"), _n(other, "p99_ms")))
        elif other:
            verdict.append(f"{mode}: Agroal {_fmt(_n(other, 'throughput_rps'), 1)} req/s ({other['bottleneck']}); no "
                           "HikariCP row at the same settings to compare with.")
    pinned = [a for a in agroal if a["thread_mode"] == "virtual" and _n(a, "pinned_events") > 0]
    verdict.append(f"Agroal pinned virtual threads {_fmt(sum(_n(a, 'pinned_events') for a in pinned))} times "
                   f"({', '.join(str(a.get('pinned_reasons')) for a in pinned)}): its borrow still blocks a carrier."
                   if pinned else "Neither pool pinned a virtual thread while borrowing (0 jdk.VirtualThreadPinned "
                   "events ≥ 20 ms in the Agroal rows).")

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {'Agroal' if a.get('pool_impl') == 'agroal' else 'HikariCP'}"

    return Section("pools", "Pools: HikariCP vs Agroal at the same size", verdict,
                   _table(lines, mode_label, variant), _chart(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, *POOL_COLUMNS])


def _tail_sentence(hikari_p99: float, agroal_p99: float) -> str:
    """At the same wall the pools can still differ in how evenly they hand connections to waiters."""
    if not hikari_p99 or math.isnan(hikari_p99) or math.isnan(agroal_p99):
        return ""
    change = (agroal_p99 - hikari_p99) / hikari_p99
    if abs(change) < analyze.SPREAD_WARNING:
        return " Their tails match too."
    return (f" Agroal's p99 is {_fmt(abs(change) * 100)}% {'shorter' if change < 0 else 'longer'}: the waiters "
            f"were served {'more' if change < 0 else 'less'} evenly at the same throughput.")


def _latency(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    delayed = [a for a in analysed if _n(a, "db_latency_ms", 0) > 0 or _n(a, "downstream_latency_ms", 0) > 0]
    if not delayed:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms", "workload")
    lines = sorted([*delayed, *_matching_baseline(analysed, delayed, same)],
                   key=lambda a: (a["thread_mode"] != "platform", _n(a, "db_latency_ms", 0),
                                  _n(a, "downstream_latency_ms", 0), _n(a, "concurrency")))

    def where(a: Line) -> str:
        parts = []
        for column, tier in (("db", "PostgreSQL"), ("downstream", "downstream")):
            if _n(a, f"{column}_latency_ms", 0) > 0:
                parts.append(f"{tier} +{_fmt(_n(a, f'{column}_latency_ms'))}±{_fmt(_n(a, f'{column}_jitter_ms', 0))} "
                             f"ms")
        return ", ".join(parts) + " each way" if parts else "loopback"

    verdict = ["Latency is added by a Toxiproxy between the tiers, to each direction of every connection, so "
               "every query or call pays it twice."]
    for mode in ("platform", "virtual"):
        mine = [a for a in lines if a["thread_mode"] == mode]
        base = next((a for a in mine if where(a) == "loopback"), None)
        for a in (a for a in mine if where(a) != "loopback"):
            sentence = (f"{mode} with {where(a)}: {_fmt(_n(a, 'throughput_rps'), 1)} req/s, median "
                        f"{_fmt(_n(a, 'p50_ms'))} ms ({a['bottleneck']}, ceiling {_fmt(_n(a, 'ceiling_rps'), 1)} "
                        f"req/s)")
            if base:
                moved = base["bottleneck"] != a["bottleneck"]
                sentence += (f" against {_fmt(_n(base, 'throughput_rps'), 1)} req/s on loopback ({base['bottleneck']})"
                             + (f" — the bottleneck moved from {base['bottleneck']} to {a['bottleneck']}"
                                if moved else ""))
            if a["bottleneck"] == "connection-pool" and _n(a, "throughput_rps", 0) > 0:
                # Every connection busy: Little's law gives how long each request kept one.
                hold_ms = _n(a, "hikari_pool") / _n(a, "throughput_rps") * 1000
                sentence += (f"; all {a.get('hikari_pool')} connections were busy (up to "
                             f"{_fmt(_n(a, 'hikari_pending_max'))} waiters), so each request kept one "
                             f"~{_fmt(hold_ms)} ms (connections ÷ throughput) — the "
                             f"{_fmt(analyze.db_round_trip_s(a) * 1000)} ms round trip plus the query, where on "
                             "loopback it is the query alone")
            verdict.append(sentence + ".")
    proxy = [a for a in delayed if _n(a, "proxy_cpu_pct", 0) > 0]
    if proxy:
        verdict.append(f"The proxy itself used {_fmt(max(_n(a, 'proxy_cpu_pct') for a in proxy))}% of one core at most "
                       "(sampled as its own tier, counted in the CPU ceiling).")

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {where(a)}"

    return Section("latency", "Injected network latency: the database and the downstream stop being on loopback",
                   verdict, _table(lines, mode_label, variant), _chart(lines, [variant(a) for a in lines],
                                                                       ("throughput_rps", "p50_ms")),
                   [*TABLE_COLUMNS, POOL_COLUMNS[0]])


def _context(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    carried = [a for a in analysed if str(a.get("context") or "none") != "none"]
    if not carried:
        return None
    same = ("conn_mode", "hikari_pool", "concurrency", "thread_mode", "path_mode", "stub_delay_ms", "workload")
    order = {"none": 0, "threadlocal": 1, "scopedvalue": 2}
    lines = sorted([*carried, *_matching_baseline(analysed, carried, same)],
                   key=lambda a: (a["thread_mode"] != "platform", _n(a, "concurrency"),
                                  order.get(str(a.get("context") or "none"), 3)))
    verdict = []
    for mode in ("platform", "virtual"):
        by = {str(a.get("context") or "none"): a for a in lines if a["thread_mode"] == mode}
        local, scoped = by.get("threadlocal"), by.get("scopedvalue")
        if not (local or scoped):
            continue
        kb = _n(local or scoped, "context_kb")
        parts = [f"{name} RSS {_fmt(_n(a, 'rss_mb_max'))} MB, heap max {_fmt(_n(a, 'heap_used_mb_max'))} MB, "
                 f"{_fmt(_n(a, 'gc_pauses'))} GC pauses ({_fmt(_n(a, 'gc_pause_ms'))} ms), "
                 f"{_fmt(_n(a, 'throughput_rps'), 1)} req/s"
                 for name, a in (("no context:", by.get("none")), ("ThreadLocal:", local), ("ScopedValue:", scoped))
                 if a]
        verdict.append(f"{mode} at {(local or scoped)['concurrency']} users with {_fmt(kb)} KB per request — "
                       + "; ".join(parts) + ".")
        if local and scoped:
            rss_l, rss_s = _n(local, "rss_mb_max"), _n(scoped, "rss_mb_max")
            pause_l, pause_s = _n(local, "gc_pause_ms"), _n(scoped, "gc_pause_ms")
            rss_gap = abs(rss_l - rss_s) / max(rss_l, rss_s) if max(rss_l, rss_s) else math.nan
            verdict.append(
                (f"ThreadLocal and ScopedValue end within {_fmt(rss_gap * 100)}% on RSS "
                 if rss_gap < analyze.SPREAD_WARNING else
                 f"RSS differs by {_fmt(rss_gap * 100)}% ({'ScopedValue' if rss_s < rss_l else 'ThreadLocal'} lower) ")
                + f"and GC pause time {_fmt(pause_l)} vs {_fmt(pause_s)} ms: with one thread per request the context "
                "dies with its thread either way, so the holder matters less than the context's size; ScopedValue's "
                "gains are a binding that cannot leak past the handler and one that forked subtasks inherit.")
    if len({a.get("rep") for a in lines}) == 1:
        verdict.append("One repetition: differences under ~10% here are within run-to-run noise (use --reps 3).")

    def variant(a: Line) -> str:
        return f"{mode_label(a)}, {a.get('context') or 'none'}"

    return Section("context", "Request context: ThreadLocal vs ScopedValue", verdict,
                   _table(lines, mode_label, variant),
                   _chart(lines, [variant(a) for a in lines], ("rss_mb_max", "gc_pause_ms")),
                   [*TABLE_COLUMNS, *MEMORY_COLUMNS])


def _reactive(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> Section | None:
    reactive = [a for a in analysed if a["thread_mode"] == "webflux"]
    if not reactive:
        return None
    same = ("hikari_pool", "concurrency", "stub_delay_ms", "load_model")
    keys = {tuple(str(a.get(c)) for c in same) for a in reactive}
    blocking = [a for a in analysed if analyze.workload(a) == "order-summary" and a["thread_mode"] != "webflux"
                and a.get("conn_mode") == "released" and a.get("path_mode") == "normal"
                and str(a.get("pool_impl") or "hikari") == "hikari" and str(a.get("context") or "none") == "none"
                and not _n(a, "db_latency_ms", 0) and not _n(a, "downstream_latency_ms", 0)
                and tuple(str(a.get(c)) for c in same) in keys]
    order = {"platform": 0, "virtual": 1, "webflux": 2}
    lines = sorted([*blocking, *reactive], key=lambda a: (_n(a, "concurrency"), order.get(str(a["thread_mode"]), 3)))
    verdict = []
    for users in sorted({_n(a, "concurrency") for a in reactive}):
        at = {str(a["thread_mode"]): a for a in lines if _n(a, "concurrency") == users}
        verdict.append(f"{_fmt(users)} users: " + "; ".join(
            f"{name} {_fmt(_n(a, 'throughput_rps'), 1)} req/s, p99 {_fmt(_n(a, 'p99_ms'))} ms, "
            f"{_fmt(_n(a, 'jvm_threads_max'))} JVM threads, RSS {_fmt(_n(a, 'rss_mb_max'))} MB, "
            f"{_fmt(_n(a, 'app_cpu_ms_per_req'), 2)} ms of its own CPU per request ({a['bottleneck']})"
            for name, a in at.items()) + ".")
        virtual, webflux = at.get("virtual"), at.get("webflux")
        if virtual and webflux and _n(virtual, "throughput_rps"):
            ratio = _n(webflux, "throughput_rps") / _n(virtual, "throughput_rps")
            if abs(ratio - 1) < analyze.SPREAD_WARNING:
                verdict.append("Virtual threads and WebFlux reach the same wall on this I/O-bound workload: both "
                               "hold a request without holding a thread, so the users, the downstream and the CPU "
                               "decide, not the programming model.")
            else:
                cpu_v, cpu_w = _n(virtual, "app_cpu_ms_per_req"), _n(webflux, "app_cpu_ms_per_req")
                verdict.append(
                    f"WebFlux at {_fmt(ratio, 2)}× virtual threads ({webflux['bottleneck']} vs "
                    f"{virtual['bottleneck']}): "
                    f"the twin spent {_fmt(cpu_w, 2)} ms of its own CPU per request against {_fmt(cpu_v, 2)} ms, "
                    f"with the host {_fmt(_n(webflux, 'host_cpu_pct'))}% busy — on these cores the reactive stack's "
                    "cost per request, not threads, sets its wall."
                    if cpu_w > cpu_v * (1 + analyze.SPREAD_WARNING) else
                    f"WebFlux at {_fmt(ratio, 2)}× virtual threads ({webflux['bottleneck']} vs "
                    f"{virtual['bottleneck']}).")
            if not webflux["valid"]:
                verdict.append(f"The WebFlux row is not valid ({webflux['flags']}); read it as a lower bound.")

    def variant(a: Line) -> str:
        return mode_label(a)

    return Section("reactive", "The reactive twin: WebFlux + R2DBC beside both thread models", verdict,
                   _table(lines, mode_label, variant), _chart(lines, [variant(a) for a in lines]),
                   [*TABLE_COLUMNS, *MODEL_COLUMNS])


def _ratio_sentence(lines: Sequence[Line]) -> list[str]:
    platform = [a for a in lines if a["thread_mode"] == "platform"]
    virtual = [a for a in lines if a["thread_mode"] == "virtual"]
    if not platform or not virtual:
        return []
    p, v = max(_n(a, "throughput_rps") for a in platform), max(_n(a, "throughput_rps") for a in virtual)
    return [f"Virtual threads deliver {_fmt(v / p if p else math.nan, 1)}× the platform throughput here."] if p else []
