"""async-profiler's kinds and options, and a real profile of a real JVM: started, stopped, kept as flame graphs."""

import gzip
import subprocess
import time

import pytest

from vtlab.measure import profiler
from vtlab.rig import build, prereqs


def test_kinds_are_named_in_a_fixed_order_and_an_unknown_one_is_refused():
    assert profiler.parse_kinds("wall, cpu") == ("cpu", "wall")
    with pytest.raises(ValueError, match="unknown profile kind heap; accepted: cpu, alloc, lock, wall"):
        profiler.parse_kinds("cpu,heap")
    with pytest.raises(ValueError, match="accepted"):
        profiler.parse_kinds(",")


def test_one_session_records_every_kind_the_first_as_its_event():
    assert profiler.asprof_options(("cpu", "alloc", "lock", "wall")) == [
        "-e", "cpu", "-i", "10ms", "--alloc", "512k", "--lock", "10us", "--wall", "20ms"]
    assert profiler.asprof_options(("alloc", "lock")) == ["-e", "alloc", "--alloc", "512k", "--lock", "10us"]
    assert profiler.asprof_options(("wall",)) == ["-e", "wall", "-i", "20ms"]


SPIN = """
public class Spin {
    public static void main(String[] args) throws Exception {
        long sum = 0;
        while (true) {
            for (int i = 0; i < 100_000; i++) sum += new int[8].length + spinOnce(i);
            Thread.sleep(1);
        }
    }
    static int spinOnce(int i) { return Integer.toString(i).hashCode() & 1; }
}
"""


def test_a_running_jvm_is_profiled_between_start_and_stop_and_kept_per_kind(tmp_path):
    java = prereqs.find_jdk()
    source = tmp_path / "Spin.java"
    source.write_text(SPIN)
    jvm = subprocess.Popen([str(java.java), str(source)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)  # compiled and running
        tool = profiler.Tool(java.java, build.fetch_profiler(), tmp_path / "extracted", java.jfr, ("cpu", "alloc"))
        profile = profiler.RowProfile(tool, jvm.pid, tmp_path / "profiles", "row", start_s=1.0, stop_s=3.0)
        profile.tick(0.5)
        assert profile.started_at is None  # the warm-up is not profiled
        profile.tick(1.0)
        time.sleep(2)
        profile.tick(3.0)
        cells = profile.close()
    finally:
        jvm.kill()
        jvm.wait()
    assert cells["profile_problem"] == "" and cells["profiles"] == "cpu,alloc" and cells["profile_s"] == 2.0
    assert cells["profile_cpu_engine"] in ("perf_events", "ctimer", "itimer")
    for kind in ("cpu", "alloc"):
        with gzip.open(tmp_path / "profiles" / f"row-{kind}.collapsed.gz", "rt") as handle:
            assert "Spin.main" in handle.read(), kind
        assert (tmp_path / "profiles" / f"row-{kind}.html").read_text().startswith("<!DOCTYPE html>")


def test_a_jvm_that_is_gone_leaves_a_problem_not_a_crash(tmp_path):
    java = prereqs.find_jdk()
    gone = subprocess.Popen(["true"])
    gone.wait()
    tool = profiler.Tool(java.java, build.fetch_profiler(), tmp_path / "extracted", java.jfr, ("cpu",))
    profile = profiler.RowProfile(tool, gone.pid, tmp_path / "profiles", "row", start_s=0.0, stop_s=1.0)
    profile.tick(0.0)
    profile.tick(1.0)
    cells = profile.close()
    assert cells["profile_problem"].startswith("asprof start") and cells["profiles"] == ""
