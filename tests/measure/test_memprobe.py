"""The memory probe reads jcmd's outputs as JDK 25 writes them, and a live JVM's."""

import math
import subprocess

import pytest

from vtlab.measure import memprobe
from vtlab.rig import prereqs

HISTOGRAM = """4242:
 num     #instances         #bytes  class name (module)
-------------------------------------------------------
   1:         50419        3014736  [B (java.base@25.0.3)
   2:         48784        1170816  java.lang.String (java.base@25.0.3)
   3:          9000        4194304  jdk.internal.vm.StackChunk (java.base@25.0.3)
3399:             1             16  tools.jackson.databind.node.JsonNodeFactory
Total        108204        8379872
"""

NMT = """4242:

Native Memory Tracking:

Total: reserved=1923587KB, committed=210011KB
-                    Thread (reserved=23628KB, committed=1612KB)
                            (threads #23)
                            (stack: reserved=23552KB, committed=1536KB, peak=1536KB)
                            (malloc=52KB tag=Thread #139) (peak=60KB #143)
"""


def test_the_histogram_gives_the_live_bytes_and_the_largest_classes_first():
    total, classes = memprobe.parse_histogram(HISTOGRAM)
    assert total == 8379872
    assert list(classes) == ["jdk.internal.vm.StackChunk", "[B", "java.lang.String",
                             "tools.jackson.databind.node.JsonNodeFactory"]
    assert classes["jdk.internal.vm.StackChunk"] == 4.0
    with pytest.raises(ValueError):
        memprobe.parse_histogram("no histogram here")


def test_the_native_memory_summary_gives_the_threads_and_their_stacks():
    assert memprobe.parse_threads(NMT) == (23, 23552.0, 1536.0)
    with pytest.raises(ValueError):
        memprobe.parse_threads(NMT.replace("Thread (", "Threads ("))


def test_a_live_jvm_is_probed_and_a_missing_one_says_why(tmp_path):
    java = prereqs.find_jdk()
    source = tmp_path / "Wait.java"
    source.write_text("class Wait { public static void main(String[] a) throws Exception {"
                      " byte[][] kept = new byte[64][]; for (int i = 0; i < 64; i++) kept[i] = new byte[1 << 20];"
                      " System.out.println(\"kept\"); Thread.sleep(60_000); System.out.println(kept.length); } }")
    jvm = subprocess.Popen([str(java.java), "-XX:NativeMemoryTracking=summary", "-Xmx256m", str(source)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        jcmd = java.home / "bin" / "jcmd"
        assert jvm.stdout.readline().strip() == "kept"  # its 64 MB allocated and still referenced
        probe = memprobe.take(jcmd, jvm.pid, 7, tracked=True)
    finally:
        jvm.kill()
        jvm.wait()
    assert probe.problem == "" and probe.in_flight == 7
    assert probe.heap_live_mb >= 64 and probe.top_classes["[B"] >= 64  # the 64 MB it keeps, after a full collection
    assert probe.rss_mb >= 64 and probe.threads >= 5 and probe.stack_reserved_mb > probe.stack_committed_mb > 0
    gone = memprobe.take(jcmd, jvm.pid, 7, tracked=True)
    assert math.isnan(gone.heap_live_mb) and "heap:" in gone.problem and "rss:" in gone.problem
