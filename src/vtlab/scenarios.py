"""The report's scenario sections (sleep, cpu, pinning): for each scenario present in a run, a
table and a verdict in words, computed from the analysis alone. Pure: no I/O, no drawing."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from vtlab import analyze, sample

TABLE_COLUMNS = [("variant", "variant"), ("load", "load"), ("rps", "req/s"), ("p50", "p50 ms"),
                 ("p99", "p99 ms"), ("ceiling", "ceiling req/s"), ("bottleneck", "bottleneck")]
PINNED_COLUMN = ("pinned", "pinned events (reasons)")
WRITES_COLUMN = ("writes", "stored / acknowledged")

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
    built = [_writes(analysed, mode_label), _offload(analysed, mode_label), _sleep(analysed, mode_label),
             _cpu(analysed, mode_label), _pinning(analysed, mode_label)]
    return [section for section in built if section is not None]


def _fmt(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) or math.isinf(value) else f"{value:,.{digits}f}"


def _n(line: Line, column: str) -> float:
    return analyze.num(line, column)


def _table(lines: Sequence[Line], mode_label: Callable[[Line], str], variant: Callable[[Line], str] | None = None
           ) -> list[dict[str, str]]:
    return [{"variant": (variant or mode_label)(a), "load": f"{a['concurrency']} users",
             "rps": _fmt(_n(a, "throughput_rps"), 1) + ("" if a["valid"] else " (invalid)"),
             "p50": _fmt(_n(a, "p50_ms")), "p99": _fmt(_n(a, "p99_ms")), "ceiling": _fmt(_n(a, "ceiling_rps"), 1),
             "bottleneck": str(a["bottleneck"]),
             "pinned": _fmt(_n(a, "pinned_events")) + (f" ({a['pinned_reasons']})" if a.get("pinned_reasons") else ""),
             "writes": f"{_fmt(_n(a, 'rows_inserted'))} / {_fmt(_n(a, 'writes_acknowledged'))}"} for a in lines]


def _chart(lines: Sequence[Line], labels: Sequence[str]) -> dict[str, list]:
    return {"labels": list(labels), "throughput_rps": [_n(a, "throughput_rps") for a in lines],
            "p99_ms": [_n(a, "p99_ms") for a in lines]}


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
                f"(median {_fmt(_n(a, 'p50_ms') / 1000, 1)} s, {_fmt(_n(a, 'p50_ms') / 1000 / sleep_s, 1)}× the sleep).")
        else:
            verdict.append(
                f"{mode_label(a)}: {_fmt(_n(a, 'throughput_rps'), 1)} req/s, median {_fmt(_n(a, 'p50_ms') / 1000, 2)} s "
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
    lines = _ordered([a for a in analysed if analyze.workload(a) == "order-summary"
                      and a.get("path_mode") != "normal"])
    if not lines:
        return None
    lines = _ordered([a for a in analysed if analyze.workload(a) == "order-summary"
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
                           f"{_fmt(control)} jdk.VirtualThreadPinned events on virtual threads ({reasons(control_reasons)}).")
        else:
            verdict.append("The pinning capture is BROKEN: the pinned-control path recorded no jdk.VirtualThreadPinned "
                           "events, so the zeros elsewhere in this run prove nothing.")
    if not math.isnan(monitor):
        if monitor == 0:
            verdict.append("Blocking inside synchronized recorded 0 pinned events on virtual threads: JEP 491 "
                           "(JDK 24+) lets a virtual thread unmount while it holds a monitor."
                           + ("" if not math.isnan(control) else
                              " Without a pinned-control row this zero is unverified (add --path-mode pinned-control)."))
        else:
            verdict.append(f"Blocking inside synchronized still pinned {_fmt(monitor)} times ({reasons(monitor_reasons)}): "
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


def _ratio_sentence(lines: Sequence[Line]) -> list[str]:
    platform = [a for a in lines if a["thread_mode"] == "platform"]
    virtual = [a for a in lines if a["thread_mode"] == "virtual"]
    if not platform or not virtual:
        return []
    p, v = max(_n(a, "throughput_rps") for a in platform), max(_n(a, "throughput_rps") for a in virtual)
    return [f"Virtual threads deliver {_fmt(v / p if p else math.nan, 1)}× the platform throughput here."] if p else []
