"""Run k6 for one row and read back what it measured during the hold."""

from __future__ import annotations

import json
import math
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

from vtlab.rig import machine, procs
from vtlab.core import constants, shapes
from vtlab.core.settings import LOAD
from vtlab.measure import livecounts, settle
from vtlab.series.loadresult import FAILURE_STATUSES, LoadResult

SCRIPT = LOAD / "orders.js"

@dataclass(frozen=True)
class LoadSpec:
    base_url: str
    model: str            # closed | open
    concurrency: int      # closed: VUs; open: pre-allocated VUs
    rate: int             # open model: iterations per second (0 for closed)
    ramp_s: int
    warmup_s: int
    hold_s: int
    max_id: int
    cooldown_s: int = 3   # long enough for requests started in the hold to finish
    workload: str = "order-summary"
    sleep_ms: int = 0
    cpu_work: int = 0
    max_customer_id: int = 1
    shape: shapes.Shape = shapes.Shape()
    script: Path = SCRIPT                       # a user's service: the entry script around theirs (userservice.Call)
    script_env: tuple[tuple[str, str], ...] = ()  # what that script reads besides the rig's phases
    # the warm-up ends when the row has settled (measure.settle), warmup_s its upper bound; otherwise it is fixed
    settles: bool = False
    # a later step of a staircase, on the JVM the steps before warmed: its warm-up judged over shorter windows
    # (settle.STEP_WINDOW_S; its ramp is the plan's Plan.ramp_for)
    warm_step: bool = False

    @property
    def duration_s(self) -> int:
        return self.ramp_s + self.warmup_s + self.hold_s + self.scheduled_cooldown_s

    @property
    def scheduled_cooldown_s(self) -> int:
        """k6's own cool-down. When the harness decides the hold (settles), the harness stops k6, whenever that
        hold ends: a hold decided at the bound begins after k6's start slack, a tick and the decision's lead
        later than k6's schedule has it, its last iterations may run the plan's cool-down and a grace beyond it,
        and the requests in flight when the row ends another grace. A schedule that ended first drew the users
        away under the hold's slowest requests (seen here: the rows that reached their bound were all ended by
        k6, none by the harness)."""
        if not self.settles:
            return self.cooldown_s
        late = constants.CURRENT.k6_start_slack_s + 1 + settle.LEAD_S
        return self.cooldown_s + math.ceil(late + 2 * settle.GRACE_S)

    @property
    def hold_start_s(self) -> int:
        return self.ramp_s + self.warmup_s

    @property
    def load(self) -> int:
        """What the shape moves: users (closed model) or arrivals per second (open model)."""
        return self.rate if self.model == "open" else self.concurrency

    def stages(self) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
        """k6's stages for the ramp and warm-up, and for the hold and cool-down, at the shape's loads."""
        start = self.shape.start_load(self.load)
        before = [{"duration": f"{self.ramp_s}s", "target": start}, {"duration": f"{self.warmup_s}s", "target": start}]
        hold = [{"duration": f"{seconds}s", "target": target}
                for seconds, target in self.shape.hold_targets(self.load, self.hold_s, self.scheduled_cooldown_s)]
        return before, hold


def env_for(spec: LoadSpec, summary: Path, cpus: set[int] | None = None) -> dict[str, str]:
    """k6's environment: this one's, its Go runtime's settings (go_runtime_env) for the `cpus` it runs on (None: this
    process's), and what the load scripts read (script_env)."""
    count = len(cpus) if cpus else len(os.sched_getaffinity(0))
    return {**os.environ, **go_runtime_env(os.environ, machine.memory_gib(), count), **script_env(spec, str(summary))}


# k6 is a Go program, and the CPU it spends is CPU the service it measures does not get: at the hero point (2,000
# users, 1 s downstream, 2 CPUs) Go's defaults cost it ~0.19 ms a request (2026-11-26). Two settings cut that:
# - GOGC: at Go's default (collect when the heap has doubled) its collector took ~27% of k6's CPU; letting the heap
#   grow to 5x the live data between collections does a quarter as many. GOMEMLIMIT, a quarter of the machine's
#   memory, keeps that from costing the other tiers theirs: near it Go collects as often as it must.
# - GOMAXPROCS: every request is handed between goroutines (the VU, its connection's reader and writer); spread over
#   every CPU each handoff wakes another one (k6 spent ~20% of its CPU being scheduled). Half the CPUs it may run on,
#   at least one: 0.117 and 0.123 ms a request against 0.142 and 0.147 on both of this machine's CPUs (hero, 2 reps
#   each, one sitting), and room to spare (k6 drew ~25% of one CPU at ~1,900 req/s).
K6_GOGC = 400
K6_MEMORY_SHARE = 0.25


def go_runtime_env(environ: Mapping[str, str], memory_gib: float | None, cpus: int) -> dict[str, str]:
    """GOGC, GOMEMLIMIT and GOMAXPROCS for k6 on `cpus` CPUs, each unless the user's environment sets it (GOGC and
    GOMEMLIMIT together: they are one policy)."""
    env = {"GOMAXPROCS": str(max(1, cpus // 2))}
    if memory_gib is not None:  # without the machine's memory there is no limit to keep a larger heap within
        env.update({"GOGC": str(K6_GOGC), "GOMEMLIMIT": f"{int(memory_gib * 1024 * K6_MEMORY_SHARE)}MiB"})
    own = {"GOGC", "GOMEMLIMIT"} if {"GOGC", "GOMEMLIMIT"} & environ.keys() else set()
    own |= {"GOMAXPROCS"} & environ.keys()
    return {key: value for key, value in env.items() if key not in own}


def script_env(spec: LoadSpec, summary: str) -> dict[str, str]:
    """What the load scripts read: the rig's phases and model (phases.js), the workload, the user's settings.
    `summary`: where handleSummary writes k6's summary (a file, or "stdout")."""
    before, hold = spec.stages()
    return {
        "BASE_URL": spec.base_url, "MODEL": spec.model, "MAX_ID": str(spec.max_id),
        "RAMP_S": str(spec.ramp_s), "WARMUP_S": str(spec.warmup_s), "HOLD_S": str(spec.hold_s),
        "COOLDOWN_S": str(spec.scheduled_cooldown_s), "VUS": str(spec.concurrency), "RATE": str(spec.rate),
        "WORKLOAD": spec.workload, "SLEEP_MS": str(spec.sleep_ms), "CPU_WORK": str(spec.cpu_work),
        "MAX_CUSTOMER_ID": str(spec.max_customer_id),
        "WARMUP_STAGES": json.dumps(before), "HOLD_STAGES": json.dumps(hold),
        "SUMMARY": summary, "K6_NO_USAGE_REPORT": "true", **dict(spec.script_env),
    }


# Several k6 processes share one row's load by execution segments: `--execution-segment 1/4:2/4` runs that
# quarter of every scenario's VUs or arrivals, and `--execution-segment-sequence` names all the segments so
# the quarters add up to the whole. It is what the k6-operator gives the runners of a TestRun with
# `parallelism: N`. Their summaries stand alone (percentiles cannot be averaged): vtlab merges their raw
# series instead (series.store.merge).

def segment_sequence(count: int) -> str:
    """k6's --execution-segment-sequence for `count` equal runners, e.g. 0,1/3,2/3,1."""
    return ",".join(str(Fraction(i, count)) for i in range(count + 1))


def segment(index: int, count: int) -> str:
    """Runner `index` (0-based) of `count`: its --execution-segment, e.g. 1/3:2/3."""
    return f"{Fraction(index, count)}:{Fraction(index + 1, count)}"


def runner_arguments(index: int, count: int) -> list[str]:
    """The k6 flags that make one process runner `index` of `count` (none for a single runner)."""
    if count == 1:
        return []
    return ["--execution-segment", segment(index, count), "--execution-segment-sequence", segment_sequence(count)]


@dataclass(frozen=True)
class Turns:
    """A k6 that takes turns with another (measure.turns): its users wait for its arm's turn, written to `file` (vtlab's
    k6 module reads it), begin each turn spread over `spread_ms`, and run for at most `duration_s`."""
    file: Path
    spread_ms: int
    duration_s: int

    def env(self) -> dict[str, str]:
        return {"VTLAB_TURN_FILE": str(self.file), "TURN_SPREAD_MS": str(self.spread_ms),
                "TURNS_S": str(self.duration_s)}


@dataclass(frozen=True)
class Runner:
    """One k6 process of a row and its files: its series, its summary, its log, and its live counts (a line a
    second: measure.livecounts)."""
    proc: subprocess.Popen
    series: Path
    summary: Path
    log: Path

    @property
    def live(self) -> Path:
        return live_path(self.series)


def live_path(series: Path) -> Path:
    return series.with_name(series.name + ".live")


class LiveReading(NamedTuple):
    ok_per_s: float
    failed_per_s: float
    users_began: float | None   # Unix s of the first running user; None before one


def live_reading(runners: Sequence[Runner]) -> LiveReading:
    """The row's successes and failures a second lately and when its users began, from one read of k6's own live
    counts, every runner's (measure.livecounts): what the live line shows, whatever the service, and the stall
    watch's clock."""
    lines = livecounts.read([runner.live for runner in runners])
    return LiveReading(livecounts.ok_rate(lines), livecounts.failed_rate(lines), livecounts.users_began(lines))


def start_runners(k6: Path, spec: LoadSpec, count: int, summary: Path, log: Path, cpus: set[int] | None,
                  series: Path, dashboard: Path | None = None, hold_file: Path | None = None,
                  turns: Turns | None = None) -> list[Runner]:
    """The row's `count` k6 processes, each on its execution segment. One writes the row's own files; several each
    their own beside them (`<name>.runner-2-of-3.<ext>`), for the caller to merge (series.store.merge) and keep.
    `hold_file`: where the harness will write the hold's start (a warm-up that settles), which every runner reads;
    `turns`: the runner's users take turns with another's."""
    def own(path: Path, index: int) -> Path:
        stem, ext = ((path.name.removesuffix(".k6.csv.gz"), ".csv.gz") if path.name.endswith(".k6.csv.gz")
                     else (path.stem, path.suffix))
        return path if count == 1 else path.with_name(f"{stem}.runner-{index + 1}-of-{count}{ext}")

    runners = []
    for index in range(count):
        paths = own(series, index), own(summary, index), own(log, index)
        for stale in (*paths[:2], live_path(paths[0])):
            stale.unlink(missing_ok=True)
        runners.append(Runner(start(k6, spec, paths[1], paths[2], cpus, paths[0], dashboard, (index, count),
                                    hold_file, live=True, turns=turns), *paths))
    return runners


def start(k6: Path, spec: LoadSpec, summary: Path, log: Path, cpus: set[int] | None, series: Path,
          dashboard: Path | None = None, runner: tuple[int, int] = (0, 1), hold_file: Path | None = None,
          live: bool = False, turns: Turns | None = None):
    """k6 for one row: its summary to `summary`, every request to `series` (vtlab's k6 output), and k6's own
    web dashboard exported to `dashboard` as its self-contained HTML report (no server: port -1). `runner`:
    this process's index and the number of processes sharing the row's load (runner_arguments). `hold_file`:
    the hold begins when the harness writes its start there (vtlab's k6 module). `live`, or a `hold_file`: k6
    writes its live counts beside the series (live_path), for the harness to decide the hold and show the rate."""
    env = env_for(spec, summary, cpus)
    if live or hold_file is not None:
        env["VTLAB_LIVE_FILE"] = str(live_path(series))
    if hold_file is not None:
        env["VTLAB_HOLD_FILE"] = str(hold_file)
    if turns is not None:
        env.update(turns.env())
    if dashboard is not None:
        # a point per second, like vtlab's own series (k6's default of 10 s skips a short row's report)
        env.update({"K6_WEB_DASHBOARD": "true", "K6_WEB_DASHBOARD_PORT": "-1", "K6_WEB_DASHBOARD_PERIOD": "1s",
                    "K6_WEB_DASHBOARD_EXPORT": str(dashboard)})
    argv = [str(k6), "run", "--quiet", "--no-color", "--address", "127.0.0.1:0", "--out", f"vtlab={series}",
            *runner_arguments(*runner), str(spec.script)]
    return procs.spawn(argv, env=env, log=log, cpus=cpus)



def read_summary(summary: Path, exit_code: int) -> LoadResult:
    metrics = json.loads(summary.read_text())["metrics"]

    def value(metric: str, key: str) -> float:
        return float(metrics.get(metric, {}).get("values", {}).get(key, 0.0))

    latency = "http_req_duration{phase:hold,expected_response:true}"
    half_a = int(value("http_reqs{half:a,expected_response:true}", "count"))
    half_b = int(value("http_reqs{half:b,expected_response:true}", "count"))
    requests = int(value("http_reqs{phase:hold}", "count"))

    def latency_of(metric: str, key: str, count: int) -> float:
        # k6 gives a trend of no samples as 0 ms: the latency of nothing is missing, not 0
        return value(metric, key) if count > 0 else math.nan
    return LoadResult(
        ok_requests=half_a + half_b,
        ok_half_a=half_a,
        ok_half_b=half_b,
        requests=requests,
        error_rate=value("http_req_failed{phase:hold}", "rate"),
        p50_ms=latency_of(latency, "p(50)", half_a + half_b),
        p95_ms=latency_of(latency, "p(95)", half_a + half_b),
        p99_ms=latency_of(latency, "p(99)", half_a + half_b),
        p999_ms=latency_of(latency, "p(99.9)", half_a + half_b),
        max_ms=latency_of(latency, "max", half_a + half_b),
        mean_ms=latency_of(latency, "avg", half_a + half_b),
        p99_all_ms=latency_of("http_req_duration{phase:hold}", "p(99)", requests),
        failures_by_status={status: count for status in FAILURE_STATUSES
                            if (count := int(value(f"vtlab_failed{{status:{status}}}", "count")))},
        # the open model's hold is a scenario of its own: the warm-up's drops are the ramp's, not the row's
        dropped_iterations=int(value("dropped_iterations{scenario:hold}", "count")
                               if "dropped_iterations{scenario:hold}" in metrics
                               else value("dropped_iterations", "count")),
        exit_code=exit_code,
        acknowledged_writes=int(value("vtlab_created", "count")),
    )


def k6_version(k6: Path) -> str:
    out = subprocess.run([str(k6), "version"], capture_output=True, text=True, check=True).stdout
    return out.split()[1] if len(out.split()) > 1 else out.strip()
