"""The JVM's compiler threads read beside the tiers' CPU through the whole row, on a made-up /proc: their CPU
seconds so far in each reading, a thread the JVM adds counted, nothing added where the JVM is not ours or gone."""

import os
import shutil

import pytest

from vtlab.measure import jit
from vtlab.series import holdstats

TICKS = os.sysconf("SC_CLK_TCK")  # /proc's ticks a second on this machine


def thread(proc, tid, comm, utime, stime, pid=42):
    task = proc / str(pid) / "task" / str(tid)
    task.mkdir(parents=True, exist_ok=True)
    (task / "comm").write_text(comm + "\n")
    fields = ["S", "1"] + ["0"] * 9 + [str(utime), str(stime)] + ["0"] * 10
    (task / "stat").write_text(f"{tid} ({comm}) " + " ".join(fields) + "\n")


def tiers():
    return {"app_ticks": 900.0}


def test_each_reading_carries_the_compiler_threads_cpu_seconds_so_far(tmp_path):
    thread(tmp_path, 42, "java", 500, 100)
    thread(tmp_path, 43, "C2 CompilerThre", 1000, 200)
    thread(tmp_path, 44, "C1 CompilerThre", 40, 10)
    thread(tmp_path, 45, "http-nio-8080-e", 300, 10)
    read = jit.with_compiler_cpu(tiers, 42, proc=tmp_path)
    reading = read()
    # 1,200 + 50 ticks of the two compiler threads; the main and request threads are not the compiler's
    assert reading[holdstats.JIT_CPU] == pytest.approx(1250 / TICKS)
    assert reading["app_ticks"] == 900.0  # the tiers' reading as it was
    thread(tmp_path, 43, "C2 CompilerThre", 1100, 200)
    thread(tmp_path, 46, "C2 CompilerThre", 30, 0)  # the JVM added a compiler thread as its queue grew
    shutil.rmtree(tmp_path / "42" / "task" / "44")  # and retired one: its CPU still counts
    assert read()[holdstats.JIT_CPU] == pytest.approx((1300 + 50 + 30) / TICKS)


def test_a_threads_name_is_read_once(tmp_path):
    # at 4 Hz a platform JVM's 200 request threads would cost 800 reads a second: a name, once known, is kept
    thread(tmp_path, 43, "C2 CompilerThre", 100, 0)
    thread(tmp_path, 45, "http-nio-8080-e", 300, 10)
    read = jit.with_compiler_cpu(tiers, 42, proc=tmp_path)
    assert read()[holdstats.JIT_CPU] == pytest.approx(100 / TICKS)
    (tmp_path / "42" / "task" / "45" / "comm").write_text("C1 CompilerThre\n")
    assert read()[holdstats.JIT_CPU] == pytest.approx(100 / TICKS)


def test_a_service_not_ours_or_gone_adds_no_compiler_reading(tmp_path):
    assert jit.with_compiler_cpu(tiers, None) is tiers  # a --url service: no process of vtlab's to read
    gone = jit.with_compiler_cpu(tiers, 99, proc=tmp_path)
    assert gone() == {"app_ticks": 900.0}  # /proc has no such process: the reading goes without it
