"""The AOT cache's key and the JVM's own word on whether it used one."""

from pathlib import Path

from vtlab.core.settings import Java
from vtlab.rig import aot

USED_LOG = """[0.005s][info][aot] trying to map /x/app.aot
[0.005s][info][aot] Opened AOT cache /x/app.aot.
[0.006s][info][aot] Core region alignment: 4096
"""
# what JDK 25 wrote when the cache was trained without JFR and the row ran with it
MISMATCH_LOG = (
    "[0.005s][info][aot] Opened AOT cache /x/app.aot.\n"
    "[0.024s][error][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.\n"
    "[0.024s][error][aot] Mismatched values for property jdk.module.addmods: jdk.jfr specified during runtime but "
    "not during dump time\n")


def test_the_jvms_log_says_whether_it_used_the_cache(tmp_path):
    log = tmp_path / "aot.log"
    log.write_text(USED_LOG)
    assert aot.outcome(log) == aot.USED
    log.write_text(MISMATCH_LOG)
    assert aot.outcome(log) == ("not used: An error has occurred while processing the AOT cache. Run with -Xlog:aot "
                                "for details.")
    log.write_text("[0.005s][info][aot] trying to map /x/app.aot\n")
    assert aot.outcome(log) == "not used: never opened"
    assert aot.outcome(tmp_path / "missing.log") == "no AOT log"


def test_a_cache_is_keyed_by_everything_that_makes_it_valid(tmp_path):
    home = tmp_path / "jdk"
    home.mkdir()
    (home / "release").write_text('JAVA_RUNTIME_VERSION="25.0.3+9-LTS"\n')
    jar = tmp_path / "app.jar"
    jar.write_bytes(b"one build")
    java = Java(home)

    def key(options=("-Xmx1g",), mode="virtual", workload="order-summary") -> Path:
        return aot.cache_for(java, jar, list(options), mode, workload).path

    first = key()
    assert key() == first and first.name.startswith("app-virtual-order-summary-") and first.suffix == ".aot"
    assert len({first, key(options=("-Xmx1g", "-XX:+UseParallelGC")), key(mode="platform"),
                key(workload="write")}) == 4
    jar.write_bytes(b"another build")
    assert key() != first
    jar.write_bytes(b"one build")
    (home / "release").write_text('JAVA_RUNTIME_VERSION="25.0.4+7-LTS"\n')
    assert key() != first


def test_the_training_writes_beside_the_cache_never_over_it(tmp_path):
    cache = aot.Cache(tmp_path / "app-virtual-x.aot")
    assert not cache.trained
    assert cache.training_flags() == [f"-XX:AOTCacheOutput={tmp_path / 'app-virtual-x.training.aot'}"]
    log = tmp_path / "aot.log"
    assert cache.flags(log) == [f"-XX:AOTCache={cache.path}", f"-Xlog:aot=info:file={log}"]
