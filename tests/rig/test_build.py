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
