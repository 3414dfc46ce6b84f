"""The machine's other processes, watched while a run sets up: a process outside the run's trees is a neighbour
over the whole window, the run's own tiers (started meanwhile, named at the end) are not."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from vtlab.measure import neighbours
import pytest

pytestmark = pytest.mark.alone  # it reads the whole machine's CPU: another test beside it would be a neighbour

SPIN = ["python3", "-c", "while True: pass"]


def orphan_spinner() -> int:
    """A process burning a core that is not this test's descendant: its parent shell exits at once."""
    shell = subprocess.run(["sh", "-c", f"{' '.join(SPIN[:2])} '{SPIN[2]}' >/dev/null 2>&1 & echo $!"],
                           capture_output=True, text=True, check=True)
    return int(shell.stdout.strip())


def test_a_neighbour_busy_through_the_set_up_is_seen_and_the_runs_own_tiers_are_not():
    neighbour = orphan_spinner()
    watching = neighbours.Watch()
    tier = orphan_spinner()  # started during the set-up, then named as the run's own
    try:
        time.sleep(1.0)  # the set-up's own time counts: the watch then waits only the rest of WATCH_S
        started = time.monotonic()
        host = watching.done({tier})
        waited = time.monotonic() - started
    finally:
        os.kill(neighbour, signal.SIGKILL)
        os.kill(tier, signal.SIGKILL)
    assert neighbours.WATCH_S <= host.watched_s < neighbours.WATCH_S + 1
    assert waited < neighbours.WATCH_S - 0.5
    assert [n.pid for n in host.top][:1] == [neighbour], host.top
    assert tier not in [n.pid for n in host.top]
    # a spinning core on this machine's cores, over the whole window (whatever else the machine ran)
    assert host.top[0].cpu_pct > 50 and host.busy_pct >= 100 / (os.cpu_count() or 1) * 0.5, host
    assert host.record()["watched_s"] == round(host.watched_s, 1)


def test_a_tier_that_ran_before_the_watch_and_is_the_runs_own_is_no_neighbour():
    tier = orphan_spinner()
    watching = neighbours.Watch()
    try:
        host = watching.done({tier})
    finally:
        os.kill(tier, signal.SIGKILL)
    assert tier not in [n.pid for n in host.top]
