"""A row's raw series, kept next to its CSV line so that any window can be cut again without measuring:
k6's requests, VUs and dropped iterations as vtlab's k6 output wrote them (`<slug>.k6.csv.gz`: one line
per request), and every reading of the CPU and meter samplers (`<slug>.samples.csv.gz`).

Both are on one clock: seconds since k6 was started. The hold the CSV reports is the requests k6 tagged
`phase=hold` (those that started in it) and the samplers' readings inside it; `cut` computes the same
figures for it or for any other window, with k6's own percentile rule, so the CSV's aggregates and a
re-cut of the same window are the same numbers.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.series.loadresult import FAILURE_STATUSES, LoadResult
from vtlab.series.windows import Series

K6_SUFFIX = ".k6.csv.gz"
SAMPLES_SUFFIX = ".samples.csv.gz"
SOURCES = ("cpu", "meters")
# The column line under the header of vtlab's k6 output (load/k6build/series), as it writes it.
K6_COLUMNS = "# r,end_ms,duration_ms,status,phase,half,expected[,entry] | v,t_ms,vus | d,t_ms,scenario,count\n"


@dataclass(frozen=True)
class Request:
    end_s: float          # when the response ended (or the request failed), on the series' clock
    duration_ms: float    # k6's http_req_duration, to the bit
    status: str           # "0": no response at all
    phase: str            # the phase the request started in (k6's tag): warmup, hold, cooldown
    half: str             # the hold's half it started in (a, b) or "none"
    ok: bool              # k6's expected_response
    entry: str = ""       # the request mix's entry it was made for ("": a script or vtlab's own load)

    @property
    def start_s(self) -> float:
        return self.end_s - self.duration_ms / 1000


@dataclass
class K6Series:
    requests: list[Request] = field(default_factory=list)
    vus: list[tuple[float, int]] = field(default_factory=list)
    dropped: list[tuple[float, str, int]] = field(default_factory=list)  # (t, scenario, count)


def k6_path(series_dir: Path, slug: str) -> Path:
    return series_dir / f"{slug}{K6_SUFFIX}"


def samples_path(series_dir: Path, slug: str) -> Path:
    return series_dir / f"{slug}{SAMPLES_SUFFIX}"


def read_k6(path: Path, offset_s: float = 0.0) -> K6Series:
    """The k6 output's lines, times moved by `offset_s` (the output's start on the series' clock)."""
    found = K6Series()
    for line in complete_lines(path):
        if line.startswith("#"):
            continue
        parts = line.rstrip("\n").split(",")
        at = float(parts[1]) / 1000 + offset_s
        if parts[0] == "r":
            found.requests.append(Request(at, float(parts[2]), parts[3], parts[4], parts[5], parts[6] == "true",
                                          parts[7] if len(parts) > 7 else ""))
        elif parts[0] == "v":
            found.vus.append((at, int(parts[2])))
        elif parts[0] == "d":
            found.dropped.append((at, parts[2], int(parts[3])))
    return found


def complete_lines(path: Path) -> Iterator[str]:
    """The file's complete lines; a k6 killed hard leaves its gzip stream cut short: what came before counts."""
    with gzip.open(path, "rt") as handle:
        try:
            for line in handle:
                if line.endswith("\n"):
                    yield line
        except (EOFError, zlib.error):
            return


def k6_start_unix_s(path: Path) -> float:
    """When vtlab's k6 output started (its header), in Unix seconds."""
    return k6_start_unix_ms(path) / 1000


def k6_start_unix_ms(path: Path) -> int:
    with gzip.open(path, "rt") as handle:
        header = handle.readline()
    return int(header.split("start_unix_ms=")[1].split()[0])


def merge(parts: Sequence[Path], into: Path) -> None:
    """One series from several runners' (load.runner_arguments): every line of every part, each part's times
    moved onto the clock of the part that started first (the headers' start_unix_ms). Counts are then sums and
    percentiles are computed over all requests, exactly as for one process. A part cut short by a killed runner
    contributes its complete lines, as a single runner's would."""
    starts = [k6_start_unix_ms(part) for part in parts]
    origin = min(starts)
    vus: list[dict[int, tuple[float, int]]] = []  # per part: second -> its last reading (t_ms, VUs) in it
    with gzip.open(into, "wt") as out:
        out.write(f"# vtlab series v1 start_unix_ms={origin} merged_from={len(parts)}\n{K6_COLUMNS}")
        for part, start in zip(parts, starts, strict=True):
            vus.append({})
            for line in complete_lines(part):
                if line.startswith("#"):
                    continue
                kind, at, rest = line.split(",", 2)
                at_ms = float(at) + start - origin
                if kind == "v":
                    vus[-1][math.floor(at_ms / 1000)] = (at_ms, int(rest))
                else:
                    out.write(f"{kind},{at_ms:.3f},{rest}")
        # k6's active VUs are each runner's own: the whole load's are their sum, second by second (a runner
        # without a reading in a second still has the VUs of its last one)
        last = [0] * len(vus)
        for second in sorted(set().union(*vus)):
            readings = [part.get(second) for part in vus]
            last = [reading[1] if reading else before for reading, before in zip(readings, last, strict=True)]
            at_ms = max(reading[0] for reading in readings if reading)
            out.write(f"v,{at_ms:.3f},{sum(last)}\n")


def write_k6(path: Path, k6: K6Series, start_unix_ms: int, note: str = "") -> None:
    """A series in the form vtlab's k6 output writes it (times in ms since `start_unix_ms`): a block cut from a run
    that measured several (measure.turns), kept as a row's own so that a re-cut reads it like any other."""
    with gzip.open(path, "wt") as out:
        out.write(f"# vtlab series v1 start_unix_ms={start_unix_ms}{' ' + note if note else ''}\n{K6_COLUMNS}")
        for r in k6.requests:
            out.write(f"r,{r.end_s * 1000:.3f},{r.duration_ms!r},{r.status},{r.phase},{r.half},"
                      f"{'true' if r.ok else 'false'}{',' + r.entry if r.entry else ''}\n")
        for at, vus in k6.vus:
            out.write(f"v,{at * 1000:.3f},{vus}\n")
        for at, scenario, count in k6.dropped:
            out.write(f"d,{at * 1000:.3f},{scenario},{count}\n")


def write_samples(path: Path, cpu: Series, meters: Series, origin_unix_s: float) -> None:
    """Every sampler reading, long form (source, t, name, value), t already in seconds since k6 started and
    written to the bit, so that a re-cut computes on exactly the numbers the row did; the header keeps that
    moment in Unix time to place k6's own clock on this one."""
    with gzip.open(path, "wt", newline="") as handle:
        handle.write(f"# vtlab samples v1 origin_unix_s={origin_unix_s!r}\n")
        writer = csv.writer(handle)
        writer.writerow(("source", "t_s", "name", "value"))
        for source, readings in zip(SOURCES, (cpu, meters), strict=True):
            for t, reading in readings.points:
                for name, value in reading.items():
                    writer.writerow((source, repr(t), name, repr(value)))


def since(readings: Series, origin: float) -> Series:
    """A sampler's series on the clock of k6's start (`origin`, monotonic)."""
    return Series([(t - origin, reading) for t, reading in readings.points])


def read_samples(path: Path) -> tuple[Series, Series, float]:
    """The samplers' series (t in seconds since k6 started) and that moment in Unix time."""
    with gzip.open(path, "rt", newline="") as handle:
        origin_unix_s = float(handle.readline().split("origin_unix_s=")[1])
        points: dict[str, dict[float, dict[str, float]]] = {source: {} for source in SOURCES}
        for record in csv.DictReader(io.StringIO(handle.read())):
            t = float(record["t_s"])
            points[record["source"]].setdefault(t, {})[record["name"]] = float(record["value"])
    cpu, meters = (Series(sorted(points[source].items())) for source in SOURCES)
    return cpu, meters, origin_unix_s


def percentile(ordered: Sequence[float], pct: float) -> float:
    """k6's rule (TrendSink.P): linear interpolation between the closest ranks; NaN for no values (k6 says 0,
    but the latency of nothing is missing, not 0 ms)."""
    if not ordered:
        return math.nan
    i = pct * (len(ordered) - 1)
    low, high = ordered[math.floor(i)], ordered[math.ceil(i)]
    return low + (high - low) * (i - math.floor(i))


def in_window(requests: Sequence[Request], window: tuple[float, float] | None) -> list[Request]:
    """The hold's requests: those k6 tagged hold (None), or those that started inside a window."""
    if window is None:
        return [r for r in requests if r.phase == "hold"]
    start, end = window
    return [r for r in requests if start <= r.start_s < end]


def load_result(k6: K6Series, exit_code: int, window: tuple[float, float] | None = None,
                acknowledged_writes: int = 0) -> LoadResult:
    """The hold's figures as k6's summary gives them, from the series: the same requests, the same values,
    the same percentile rule. A window splits into halves at its middle; the tagged hold by k6's tags."""
    chosen = in_window(k6.requests, window)
    ok = sorted(r.duration_ms for r in chosen if r.ok)
    every = sorted(r.duration_ms for r in chosen)
    if window is None:
        half_a = sum(1 for r in chosen if r.ok and r.half == "a")
        half_b = sum(1 for r in chosen if r.ok and r.half == "b")
        # the open model runs its hold as a scenario of its own: drops before it are the warm-up's
        open_model = any(scenario in ("warmup", "hold") for _, scenario, _ in k6.dropped)
        dropped = [d for d in k6.dropped if d[1] == "hold"] if open_model else k6.dropped
    else:
        middle = (window[0] + window[1]) / 2
        half_a = sum(1 for r in chosen if r.ok and r.start_s < middle)
        half_b = len(ok) - half_a
        dropped = [d for d in k6.dropped if window[0] <= d[0] < window[1]]
    failures = Counter(r.status if r.status in FAILURE_STATUSES else "other" for r in chosen if not r.ok)
    return LoadResult(
        ok_requests=len(ok), ok_half_a=half_a, ok_half_b=half_b, requests=len(chosen),
        error_rate=(len(chosen) - len(ok)) / len(chosen) if chosen else 0.0,
        p50_ms=percentile(ok, 0.50), p95_ms=percentile(ok, 0.95), p99_ms=percentile(ok, 0.99),
        p999_ms=percentile(ok, 0.999), max_ms=ok[-1] if ok else math.nan, mean_ms=sum(ok) / len(ok) if ok else math.nan,
        p99_all_ms=percentile(every, 0.99), failures_by_status=dict(sorted(failures.items())),
        dropped_iterations=sum(count for _, _, count in dropped), exit_code=exit_code,
        acknowledged_writes=acknowledged_writes, ok_per_second=ok_per_second(chosen, window))


def ok_per_second(chosen: Sequence[Request], window: tuple[float, float] | None) -> tuple[int, ...]:
    """Successful requests by the whole second of the hold they started in; a last, partial second is left
    out (it would read as a drop at the end). The tagged hold starts at its first request."""
    if not chosen:
        return ()
    start, end = window if window else (min(r.start_s for r in chosen), max(r.start_s for r in chosen))
    counts = [0] * int(end - start)
    for r in chosen:
        second = math.floor(r.start_s - start)
        if r.ok and 0 <= second < len(counts):
            counts[second] += 1
    return tuple(counts)


def hold_start_s(k6: K6Series, planned_s: float) -> float:
    """When k6's hold began on the series' clock. k6 counts its phases from its own start, which follows the
    process's (and this clock's) start by its VUs' initialisation: ~0.1 s for 50 users, more for thousands.
    The first request tagged hold started at the hold's start, up to one gap between arrivals later; the
    plan's moment stands in when there is none, or when it would be earlier (the tag says it cannot be)."""
    first = phase_bounds(k6).get("hold", (math.inf, math.inf))[0]
    return first if planned_s <= first < math.inf else planned_s


def phase_bounds(k6: K6Series) -> dict[str, tuple[float, float]]:
    """Where each phase's requests started, first to last: the phases as the series saw them."""
    bounds: dict[str, tuple[float, float]] = {}
    for r in k6.requests:
        low, high = bounds.get(r.phase, (math.inf, -math.inf))
        bounds[r.phase] = (min(low, r.start_s), max(high, r.start_s))
    return bounds


def per_second(k6: K6Series) -> list[dict[str, float]]:
    """Per second of completion: successful and failed requests, latency p50/p90/p99/max of the successful
    ones that completed in it, and k6's active VUs (the last reading in it)."""
    by_second: dict[int, list[Request]] = {}
    for r in k6.requests:
        by_second.setdefault(math.floor(r.end_s), []).append(r)
    vus = {math.floor(t): n for t, n in k6.vus}
    seconds = sorted(set(by_second) | set(vus))
    lines = []
    last_vus = 0
    for second in range(seconds[0], seconds[-1] + 1) if seconds else ():
        done = by_second.get(second, [])
        ok = sorted(r.duration_ms for r in done if r.ok)
        last_vus = vus.get(second, last_vus)
        lines.append({"t_s": second, "ok": len(ok), "failed": len(done) - len(ok),
                      "p50_ms": percentile(ok, 0.5) if ok else math.nan,
                      "p90_ms": percentile(ok, 0.9) if ok else math.nan,
                      "p99_ms": percentile(ok, 0.99) if ok else math.nan,
                      "max_ms": ok[-1] if ok else math.nan, "vus": last_vus})
    return lines
