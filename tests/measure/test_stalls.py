import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from vtlab.measure import livecounts, stalls
from vtlab.core.settings import Java


def watch(tmp_path, jcmd_dir: Path | None = None) -> stalls.Watch:
    return stalls.Watch(quiet_s=5, java=Java(jcmd_dir or tmp_path / "nojdk"), pid=os.getpid(),
                        dump=tmp_path / "threads" / "row.json")


def test_a_low_rate_during_the_ramp_or_for_a_moment_is_no_stall(tmp_path):
    w = watch(tmp_path)
    for second in range(0, 5):
        w.observe(second, 0.0)  # the ramp
    for second in range(5, 30):
        w.observe(second, 0.0 if second % 4 == 0 else 20.0)  # a pinned row that still completes carriers ÷ call
    assert w.record(tmp_path) == {"stall": "", "thread_dump": ""}


def test_users_waiting_while_nothing_completes_is_a_stall_said_once(tmp_path):
    w = watch(tmp_path)
    for second in range(0, 20):
        w.observe(second, 300.0 if second < 8 else 0.2)
    record = w.record(tmp_path)
    assert record["stall"].startswith("stalled 8 s after its users began: 0.2 req/s completed for 5 s")
    assert "no thread dump (no jcmd in the service's runtime)" in record["stall"] and record["thread_dump"] == ""


@pytest.mark.skipif(not Path("/usr/lib/jvm").exists(), reason="needs a JDK")
def test_the_dump_is_json_from_jcmd_of_a_live_jvm(tmp_path):
    from vtlab.rig import prereqs
    java = prereqs.find_jdk()
    source = tmp_path / "Idle.java"
    source.write_text("class Idle { public static void main(String[] a) throws Exception { Thread.sleep(60_000); } }")
    proc = subprocess.Popen([str(java.java), str(source)])
    try:
        time.sleep(4)  # compiled and started: the attach listener answers
        dump = tmp_path / "threads" / "idle.json"
        assert stalls.take_dump(proc.pid, dump, [java.home / "bin" / "jcmd"]) == ""
        threads = json.loads(dump.read_text())["threadDump"]
        assert threads["threadContainers"]
    finally:
        proc.kill()
        proc.wait()


def test_nothing_is_judged_before_the_first_answer_could_come(tmp_path):
    # a step on an 8 s downstream ramped over 8 s: no request can have completed before 8 s, none is a stall
    watch = stalls.Watch(quiet_s=8, java=Java(tmp_path / "nojdk"), pid=os.getpid(), dump=tmp_path / "d.json")
    for second in range(0, 8):
        watch.observe(second, 0.0)
    assert watch.stall == ""
    for second in range(8, 14):
        watch.observe(second, 0.0)
    assert watch.stall.startswith("stalled 8 s after its users began")


def test_the_users_begin_at_k6s_first_running_iteration_not_its_process_start():
    # front8's 10,000-user step: k6 wrote its live line a second with no user running for 5 s while it set them up
    lines = [livecounts.Live(100.0 + second, 0, 0, 0, 0) for second in range(5)]
    lines += [livecounts.Live(105.0 + second, 0, 0, 0, 1250 * (second + 1)) for second in range(3)]
    assert livecounts.users_began([lines]) == 105.0
    assert livecounts.users_began([lines[:5]]) is None
    # several runners: the first of any to run
    assert livecounts.users_began([lines, [livecounts.Live(103.5, 0, 0, 0, 7)]]) == 103.5
