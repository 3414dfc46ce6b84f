"""Before you flip, tried: a seeded wall on vtlab's own service advised from its rows, then re-measured with the
setting advised (`vtlab advise RUN --try`), the try told against the run.

Held connections on a pool of 10: 30 users, each holding a connection across the 1 s downstream call, ask ~29
req/s of a pool that carries ~9.5. The advice sizes the pool to the users (Little's law: 10 × 29 ÷ 9.5 = 30) and
names the held pattern; the try at that size reaches the predicted ceiling within its interval. 30 users, not more:
each waits (30 ÷ 10 − 1) × 1.05 s ≈ 2 s for a connection, inside the service's 5 s borrow timeout (50 users on 10
failed 1–2.5% of their requests with 503s, 2026-12-02)."""

from __future__ import annotations

import json
import subprocess

import pytest
from liverig import REPO, isolated_rig

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def rig_env():
    yield from isolated_rig()


def vtlab(env, *argv):
    done = subprocess.run([str(REPO / "vtlab"), *argv], env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_a_pool_of_10_held_across_the_call_is_sized_to_the_users_and_the_try_reaches_its_ceiling(rig_env, tmp_path):
    run_dir = tmp_path / "held"
    vtlab(rig_env, "run", "--conc", "30", "--pools", "10", "--conn-mode", "held", "--hold", "30", "--out",
          str(run_dir))
    advised = [a for a in json.loads((run_dir / "report.json").read_text())["advice"] if a["wall"] == "connection-pool"]
    assert {a["row"]["thread_mode"] for a in advised} == {"platform", "virtual"}
    for advice in advised:
        assert advice["value"] == 10 and 28 <= advice["needed"] <= 31, advice
        assert "held across the downstream call" in advice["shape"]
    vtlab(rig_env, "advise", str(run_dir), "--try")
    tries = json.loads((run_dir / "tries.json").read_text())["tries"]
    assert [t["settings"] for t in tries] == [[["--pools", str(advised[0]["needed"])]]]
    assert tries[0]["verdict"] == "helped"
    for line in tries[0]["lines"]:
        assert line["verdict"] == "better" and line["new_rps"] > 2.5 * line["base_rps"], line
        assert line["reached"] == "reached", line
    assert "Tried (tries/pools-" in (run_dir / "report.md").read_text()
