"""Beyond one machine, proved on one: every tier on an address of its own, and one row's load on several k6
processes (k6's execution segments, the k6-operator's mechanism) merged into the same figures as one process's.

The whole module runs its tiers on different loopback addresses (the service on 127.0.0.4, the stub on
127.0.0.2, PostgreSQL on 127.0.0.3): each binds only its own, so a code path that assumed 127.0.0.1 would be
refused a connection and fail its row.
"""

from __future__ import annotations

import csv
import gzip
import json
import subprocess
from pathlib import Path

import pytest
from test_e2e import isolated_rig

from vtlab.series import store

REPO = Path(__file__).resolve().parents[2]
ADDRESSES = {"VTLAB_APP_HOST": "127.0.0.4", "VTLAB_STUB_HOST": "127.0.0.2", "VTLAB_PG_HOST": "127.0.0.3"}
# Pure waiting (the service sleeps 1,000 ms a request, the hero point's downstream): a latency the generator's
# split cannot move, at a load (300 users, ~300 req/s) far below what the service, the host or k6 would queue
# at. The host's jitter adds a few milliseconds to the tail whatever the wait: against 1,000 ms they are
# ~0.5% (measured: p99 1,003.9-1,005.8 ms over six runs, three of one runner and three of three), where a
# 200 ms wait's p99 spread over 211.2-214.4 ms here, and was once 3.8% apart in CI with nothing wrong in the merge.
MERGE_LOAD = ["--modes", "virtual", "--workload", "sleep", "--sleep-ms", "1000", "--conc", "300", "--pools", "10",
              "--ramp", "2", "--warmup", "5", "--hold", "12", "--reps", "1"]

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def apart_env():
    yield from isolated_rig(ADDRESSES)


def run(env: dict[str, str], run_dir: Path, *flags: str) -> list[dict[str, str]]:
    result = subprocess.run([str(REPO / "vtlab"), "run", "--out", str(run_dir), *flags], env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    with open(run_dir / "matrix.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with open(run_dir / "analysis.csv", newline="") as handle:
        verdicts = list(csv.DictReader(handle))
    assert len(verdicts) == len(rows)
    for row, verdict in zip(rows, verdicts, strict=True):
        row.update(valid=verdict["valid"], flags=verdict["flags"])
    return rows


def hold_count(summary: Path) -> int:
    return int(json.loads(summary.read_text())["metrics"]["http_reqs{phase:hold}"]["values"]["count"])


def hold_percentile(summary: Path, pct: str) -> float:
    metrics = json.loads(summary.read_text())["metrics"]
    return float(metrics["http_req_duration{phase:hold,expected_response:true}"]["values"][pct])


def test_three_runners_on_execution_segments_merge_to_one_processs_counts_and_percentiles(apart_env, tmp_path):
    one = run(apart_env, tmp_path / "one", *MERGE_LOAD)[0]
    three = run(apart_env, tmp_path / "three", *MERGE_LOAD, "--runners", "3")[0]
    for row in (one, three):
        assert row["valid"] == "true" and float(row["error_rate"]) == 0, row

    # counts: the merged row holds exactly every runner's own count of the hold (k6's summary of each)
    slug = next((tmp_path / "three" / "k6").glob("*.runner-1-of-3.json")).name.replace(".runner-1-of-3.json", "")
    summaries = [tmp_path / "three" / "k6" / f"{slug}.runner-{i}-of-3.json" for i in (1, 2, 3)]
    counts = [hold_count(summary) for summary in summaries]
    assert all(count > 0 for count in counts)
    assert int(three["http_reqs"]) == sum(counts), (three["http_reqs"], counts)
    merged = store.read_k6(store.k6_path(tmp_path / "three" / "series", slug))
    # the three runners' users add up to the plan's 300 (100 each), second by second
    assert max(n for _, n in merged.vus) == 300

    for column, pct in (("p50_ms", "p(50)"), ("p99_ms", "p(99)")):
        # percentiles over every runner's requests: a percentile of the union lies within the runners' own, as
        # k6 computed each from its part (within a rank's width: k6 interpolates between ranks)
        own = [hold_percentile(summary, pct) for summary in summaries]
        assert min(own) - 0.5 <= float(three[column]) <= max(own) + 0.5, (column, three[column], own)
        # and within 2% of the single process's at the same total load
        assert abs(float(three[column]) / float(one[column]) - 1) <= 0.02, (column, one[column], three[column])
    assert abs(float(three["throughput_rps"]) / float(one["throughput_rps"]) - 1) <= 0.03
    with gzip.open(store.k6_path(tmp_path / "three" / "series", slug), "rt") as handle:
        assert "merged_from=3" in handle.readline()


def test_every_tier_on_an_address_of_its_own_measures_a_valid_row(apart_env, tmp_path):
    # the order-summary workload reaches PostgreSQL and the stub; --db-latency also routes through the proxy. At a
    # 200 ms downstream and a 14 s warm-up: at 100 ms and 5 s this VM's row still climbed through its 8 s hold (JIT;
    # 2026-11-27 in CI: 155 then 178 req/s a second in its halves, not-steady, the host 65% busy)
    rows = run(apart_env, tmp_path / "apart", "--modes", "virtual", "--conc", "20", "--ramp", "2", "--warmup", "14",
               "--hold", "8", "--reps", "1", "--conn-mode", "released", "--stub-delay", "200",
               "--db-latency", "0,5")
    assert len(rows) == 2
    for row in rows:
        assert row["valid"] == "true" and float(row["error_rate"]) == 0 and int(row["http_reqs"]) > 0, row
        assert float(row["p50_ms"]) >= 200  # the stub's delay: the service reached the stub on 127.0.0.2
        # and PostgreSQL on 127.0.0.3: a connection borrowed for each request (the pool's exact count)
        assert float(row["pool_borrows_per_s"]) >= 0.8 * float(row["throughput_rps"]) > 0
    meta = json.loads((tmp_path / "apart" / "metadata.json").read_text())
    assert meta["host"]["addresses"] == {"service": "127.0.0.4", "stub": "127.0.0.2", "PostgreSQL": "127.0.0.3"}
    pg_log = (Path(apart_env["VTLAB_PGDATA"]) / "server.log").read_text()
    assert 'listening on IPv4 address "127.0.0.3"' in pg_log and '"127.0.0.1"' not in pg_log
