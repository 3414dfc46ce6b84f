"""What k6 measured over a row's hold, as one value: the type both k6's own summary (measure.load.read_summary)
and the row's kept series (series.store.load_result) give, so a re-cut reads exactly like a measurement."""

from __future__ import annotations

from dataclasses import dataclass

# The statuses orders.js counts failures under (its FAILURE_STATUSES).
FAILURE_STATUSES = ("0", "400", "404", "500", "502", "503", "504", "other")


@dataclass(frozen=True)
class LoadResult:
    ok_requests: int
    ok_half_a: int
    ok_half_b: int
    requests: int
    error_rate: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float
    mean_ms: float                 # successful responses; with the rate, Little's law gives the requests in flight
    p99_all_ms: float              # every response of the hold, failed ones too
    failures_by_status: dict[str, int]   # the hold's failed requests; "0": no response at all
    dropped_iterations: int
    exit_code: int
    acknowledged_writes: int = 0   # write workload: every 201 of the run, all phases
    ok_per_second: tuple[int, ...] = ()  # the hold's successful requests by the second they started in

    def throughput(self, hold_s: int) -> float:
        return self.ok_requests / hold_s
