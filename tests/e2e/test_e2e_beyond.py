"""Beyond one machine, proved on one: every tier on an address of its own, and one row's load on several k6
processes (k6's execution segments, the k6-operator's mechanism) merged into the same figures as one process's.

The whole module runs its tiers on different loopback addresses (the service on 127.0.0.4, the stub on
127.0.0.2, PostgreSQL on 127.0.0.3): each binds only its own, so a code path that assumed 127.0.0.1 would be
refused a connection and fail its row.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import proofs
import pytest
import recordings
from liverig import REPO, isolated_rig

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


def run(env: dict[str, str], run_dir: Path, *flags: str) -> Path:
    result = subprocess.run([str(REPO / "vtlab"), "run", "--out", str(run_dir), *flags], env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    return run_dir


def test_three_runners_on_execution_segments_merge_to_one_processs_counts_and_percentiles(apart_env, tmp_path,
                                                                                          request):
    one = run(apart_env, tmp_path / "one", *MERGE_LOAD)
    three = run(apart_env, tmp_path / "three", *MERGE_LOAD, "--runners", "3")
    proofs.runners_merged(one, three)
    recordings.keep(request, "runners-merged", one, three)


def test_every_tier_on_an_address_of_its_own_measures_a_valid_row(apart_env, tmp_path, request):
    # the order-summary workload reaches PostgreSQL and the stub; --db-latency also routes through the proxy. At a
    # 200 ms downstream and a 14 s warm-up: at 100 ms and 5 s this VM's row still climbed through its 8 s hold (JIT;
    # 2026-11-27 in CI: 155 then 178 req/s a second in its halves, not-steady, the host 65% busy)
    run_dir = run(apart_env, tmp_path / "apart", "--modes", "virtual", "--conc", "20", "--ramp", "2", "--warmup",
                  "14", "--hold", "8", "--reps", "1", "--conn-mode", "released", "--stub-delay", "200",
                  "--db-latency", "0,5")
    proofs.tiers_apart(run_dir)
    pg_log = (Path(apart_env["VTLAB_PGDATA"]) / "server.log").read_text()
    assert 'listening on IPv4 address "127.0.0.3"' in pg_log and '"127.0.0.1"' not in pg_log
    recordings.keep(request, "tiers-apart", run_dir)
