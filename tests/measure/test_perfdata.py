"""HotSpot's performance counters: the file's layout, built here byte by byte, and a real JVM's."""

import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest

from vtlab.measure import perfdata

JDK25 = Path("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java")


def perfdata_file(counters: dict[str, int | str], little_endian: bool = True) -> bytes:
    """A perfdata file as HotSpot lays it out (perfMemory.hpp): a 32-byte prologue, then one entry per counter —
    a 20-byte header, the name NUL-terminated, the value (a jlong, or a byte vector for a string)."""
    order = "<" if little_endian else ">"
    entries = b""
    for name, value in counters.items():
        raw_name = name.encode() + b"\0"
        if isinstance(value, int):
            kind, vector, data = ord("J"), 0, struct.pack(order + "q", value)
        else:
            kind, vector, data = ord("B"), len(value) + 1, value.encode() + b"\0"
        name_offset = 20
        data_offset = (name_offset + len(raw_name) + 7) // 8 * 8  # jlongs aligned
        body = raw_name + b"\0" * (data_offset - name_offset - len(raw_name)) + data
        length = (20 + len(body) + 7) // 8 * 8
        header = struct.pack(order + "iiibbbbi", length, name_offset, vector, kind, 0, 0, 0, data_offset)
        entries += (header + body).ljust(length, b"\0")
    prologue = (b"\xca\xfe\xc0\xc0" + bytes([1 if little_endian else 0, 2, 0, 1])
                + struct.pack(order + "iiqii", 32 + len(entries), 0, 0, 32, len(counters)))
    return prologue + entries


@pytest.mark.parametrize("little_endian", [True, False])
def test_every_scalar_counter_is_read_in_the_files_byte_order(little_endian):
    data = perfdata_file({"java.ci.totalTime": 1_801_572_659, "sun.ci.lastMethod": "Spin main",
                          "sun.ci.totalCompiles": 1263}, little_endian)
    assert perfdata.parse(data) == {"java.ci.totalTime": 1_801_572_659, "sun.ci.lastMethod": "Spin main",
                                    "sun.ci.totalCompiles": 1263}


def test_compilation_in_seconds_from_the_high_resolution_timers_ticks(tmp_path):
    path = tmp_path / "1234"
    path.write_bytes(perfdata_file({"java.ci.totalTime": 3_000_000, "sun.os.hrt.frequency": 1_000_000,
                                    "sun.ci.totalCompiles": 77}))
    assert perfdata.compilation(path) == perfdata.Compilation(3.0, 77)


def test_a_file_that_is_not_perfdata_or_lacks_the_counters_reads_as_nothing(tmp_path):
    (tmp_path / "junk").write_bytes(b"not perfdata at all, just some bytes here")
    (tmp_path / "partial").write_bytes(perfdata_file({"sun.ci.totalCompiles": 5}))
    assert perfdata.compilation(tmp_path / "junk") is None
    assert perfdata.compilation(tmp_path / "partial") is None
    assert perfdata.compilation(tmp_path / "missing") is None


@pytest.mark.skipif(not JDK25.exists() or shutil.which("jcmd") is None and not JDK25.with_name("jcmd").exists(),
                    reason="needs the JDK 25 the rig runs on")
def test_a_running_jvms_counters_read_as_jcmd_prints_them(tmp_path):
    source = tmp_path / "Idle.java"
    source.write_text("public class Idle { public static void main(String[] a) throws Exception {"
                      " Thread.sleep(30_000); } }")
    jvm = subprocess.Popen([str(JDK25), str(source)])
    try:
        path = perfdata.path_of(jvm.pid)
        deadline = time.monotonic() + 20
        while perfdata.compilation(path) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        before = perfdata.parse(path.read_bytes())
        printed = subprocess.run([str(JDK25.with_name("jcmd")), str(jvm.pid), "PerfCounter.print"],
                                 capture_output=True, text=True, check=True).stdout
        counters = perfdata.parse(path.read_bytes())
        expected = dict(line.split("=", 1) for line in printed.splitlines() if "=" in line)
        # the frequency never changes; the JVM compiles on (jcmd's attach too), so jcmd's count lies between ours
        assert counters["sun.os.hrt.frequency"] == int(expected["sun.os.hrt.frequency"])
        assert 0 < before["sun.ci.totalCompiles"] <= int(expected["sun.ci.totalCompiles"]) \
            <= counters["sun.ci.totalCompiles"]
        assert len(counters) >= 100
    finally:
        jvm.kill()
        jvm.wait()
