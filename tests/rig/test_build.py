import re
import subprocess
import sys
import threading
import time

import pytest

from vtlab.rig import build, procs


def test_a_builds_output_goes_to_its_log_not_the_terminal(tmp_path, capfd):
    log = tmp_path / "logs" / "build-k6.log"
    build._logged([sys.executable, "-c", "import sys; print('go: downloading a v1'); "
                   "print('go: downloading b v2', file=sys.stderr)"], log)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert sorted(log.read_text().splitlines()) == ["go: downloading a v1", "go: downloading b v2"]


def test_a_failed_build_shows_its_last_lines_and_raises_as_subprocess_run_does(tmp_path, capfd):
    log = tmp_path / "build-jars.log"
    lines = build.FAILED_TAIL_LINES + 5
    command = [sys.executable, "-c", f"for n in range({lines}): print(f'line {{n}}')\nraise SystemExit(3)"]
    with pytest.raises(subprocess.CalledProcessError) as failed:
        build._logged(command, log)
    assert failed.value.returncode == 3 and failed.value.cmd == command
    err = capfd.readouterr().err
    assert "line 4\n" not in err and "line 5\n" in err and f"line {lines - 1}\n" in err
    assert str(log) in err
    assert len(log.read_text().splitlines()) == lines  # the whole output kept


def test_a_build_in_a_thread_is_stopped_with_the_run_and_says_nothing_of_it(tmp_path, capfd):
    # only the main thread hears a signal: its procs.stop_all must reach a build a thread of tools() waits on
    log = tmp_path / "build-k6.log"
    failed: list[BaseException] = []

    def build_for_a_minute() -> None:
        try:
            build._logged(["sh", "-c", "echo started; sleep 60 & wait"], log)
        except subprocess.CalledProcessError as err:
            failed.append(err)

    worker = threading.Thread(target=build_for_a_minute)
    worker.start()
    deadline = time.monotonic() + 10
    while "started" not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.05)
    began = time.monotonic()
    procs.stop_all()
    worker.join(timeout=15)
    assert not worker.is_alive() and time.monotonic() - began < 10
    assert len(failed) == 1 and failed[0].returncode < 0  # ended by the signal, the group's sleep with it
    assert capfd.readouterr().err == ""


def test_a_go_build_collects_less_often_unless_the_user_set_gogc_and_never_links_cgo(monkeypatch):
    monkeypatch.delenv("GOGC", raising=False)
    monkeypatch.setenv("CGO_ENABLED", "1")
    assert (build.go_env()["GOGC"], build.go_env()["CGO_ENABLED"]) == ("400", "0")
    monkeypatch.setenv("GOGC", "150")
    assert build.go_env()["GOGC"] == "150"


def _holding(lock, then: str = "") -> subprocess.Popen:
    """Another process that holds `lock` until its stdin closes, then runs `then` (Python) before it lets go."""
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys\n"
                               f"lock = open({str(lock)!r}, 'a'); fcntl.flock(lock, fcntl.LOCK_EX)\n"
                               "print('held', flush=True); sys.stdin.read()\n" + then],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    return holder


@pytest.fixture
def k6_here(tmp_path, monkeypatch):
    """build_k6's paths in tmp_path, its sources' digest "sources", Go found; a build of its own fails the test."""
    monkeypatch.setattr(build, "K6_BIN", tmp_path / "k6")
    monkeypatch.setattr(build, "K6_STAMP", tmp_path / "k6.sources")
    monkeypatch.setattr(build, "K6_LOCK", tmp_path / "k6.lock")
    monkeypatch.setattr(build, "_k6_sources_digest", lambda: "sources")
    monkeypatch.setattr(build.prereqs, "find_go", lambda: tmp_path / "go")

    def built_again(go):
        raise AssertionError("k6 built a second time")
    monkeypatch.setattr(build, "_build_k6", built_again)
    return tmp_path


def test_a_k6_another_vtlab_is_building_is_waited_for_and_used(k6_here, capsys):
    holder = _holding(k6_here / "k6.lock", f"open({str(k6_here / 'k6')!r}, 'w').write('binary')\n"
                                           f"open({str(k6_here / 'k6.sources')!r}, 'w').write('sources')\n")
    threading.Timer(1.0, holder.stdin.close).start()  # the other build ends a second from now
    began = time.monotonic()
    assert build.build_k6() == k6_here / "k6"
    assert time.monotonic() - began >= 0.9 and holder.wait(timeout=10) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("vtlab: waiting for k6")
    assert re.fullmatch(r"vtlab: k6 v\S+ built, after a wait of \d+ s", lines[1])


def test_a_k6_another_build_left_unbuilt_is_built_here(k6_here, monkeypatch):
    holder = _holding(k6_here / "k6.lock")  # a build that failed: no binary, no stamp
    built = []
    monkeypatch.setattr(build, "_build_k6", lambda go: built.append(go) or k6_here / "k6")
    threading.Timer(0.5, holder.stdin.close).start()
    assert build.build_k6() == k6_here / "k6" and built == [k6_here / "go"]
    holder.wait(timeout=10)


def test_a_wait_for_another_build_ends_when_the_run_stops(k6_here):
    holder = _holding(k6_here / "k6.lock")
    failed: list[BaseException] = []

    def wait_for_k6() -> None:
        try:
            build.build_k6()
        except RuntimeError as err:
            failed.append(err)

    worker = threading.Thread(target=wait_for_k6)
    worker.start()
    time.sleep(0.5)
    began = time.monotonic()
    procs.stop_all()  # what a signal to the run does
    worker.join(timeout=5)
    holder.stdin.close()
    holder.wait(timeout=10)
    assert not worker.is_alive() and time.monotonic() - began < 2
    assert len(failed) == 1 and "k6.lock" in str(failed[0])
