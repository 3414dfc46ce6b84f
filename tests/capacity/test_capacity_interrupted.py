"""A search cut short keeps what it found: capacity.json is rewritten after every point, marked incomplete, and once
more with what cut it short (Ctrl-C, a signal, a failure); the summary, the report and `vtlab compare` say a search
did not finish, and the gate never passes one."""

import json
import math

import pytest
from simulated import Service

from vtlab.capacity import search, summary
from vtlab.cli import capacitylive
from vtlab.cli.main import main
from vtlab.core import objective
from vtlab.report import capacity as capacity_section
from vtlab.results import capacityfile
from vtlab.results.capacityfile import CapacityRun, ModeCapacity

SETTINGS = search.Settings(objective.parse("p99<=1500ms"), budget_s=3600.0)


class CutShort:
    """The simulated queue (no model: the staircase doubles from 50), cut short by `error` at its `at`th point."""

    def __init__(self, at: int, error: BaseException):
        self.service, self.at, self.error = Service(ceiling_rps=math.nan), at, error

    def __call__(self, mode, load):
        if len(self.service.calls) + 1 == self.at:
            raise self.error
        return self.service(mode, load)


def test_a_search_interrupted_at_its_fourth_point_keeps_the_three_before_it_and_their_bracket_marked_incomplete(
        tmp_path):
    with pytest.raises(KeyboardInterrupt):
        capacitylive.searched(tmp_path, ("platform",), 50, CutShort(4, KeyboardInterrupt()), SETTINGS)
    written = json.loads((tmp_path / "capacity.json").read_text())
    assert written["complete"] is False
    [mode] = written["modes"]
    # 50 and 100 passed, 200 failed (p99 60 s past the 200 req/s wall); the bisection's 141 never measured
    assert [(p["load"], p["outcome"]) for p in mode["points"]] == [(50, "pass"), (100, "pass"), (200, "fail")]
    assert (mode["bracket_low"], mode["bracket_high"]) == (100, 200)
    assert mode["stop"] == "interrupted after 3 point(s): Ctrl-C"
    assert not list(tmp_path.glob(".*.tmp"))  # written whole, then renamed over


def test_a_finished_search_s_capacity_json_is_marked_complete(tmp_path):
    found = capacitylive.searched(tmp_path, ("platform",), 50, Service(ceiling_rps=math.nan), SETTINGS)
    assert found.complete and capacityfile.read(tmp_path) == found
    assert json.loads((tmp_path / "capacity.json").read_text())["complete"] is True


def test_every_point_rewrites_what_a_search_killed_outright_would_leave():
    heard: list[CapacityRun] = []
    search.search(["platform"], 50, Service(ceiling_rps=math.nan), SETTINGS, on_point=heard.append)
    assert [len(run.modes[0].points) for run in heard[:3]] == [1, 2, 3]
    assert not any(run.complete for run in heard)
    assert heard[2].modes[0].stop == "interrupted after 3 point(s)"  # no chance to say more: a kill -9


def test_a_search_cut_short_in_its_second_mode_keeps_the_first_whole_and_names_the_signal(tmp_path):
    service = Service(ceiling_rps=math.nan)

    def measure(mode, load):
        if mode == "virtual":  # as its JVM starts
            raise SystemExit(143)  # the rig's SIGTERM handler: 128 + 15
        return service(mode, load)

    with pytest.raises(SystemExit):
        capacitylive.searched(tmp_path, ("platform", "virtual"), 50, measure, SETTINGS)
    read = capacityfile.read(tmp_path)
    platform, virtual = read.modes
    assert not read.complete
    assert "within 5%" in platform.stop                     # finished before the signal
    assert virtual.stop == "interrupted after 0 point(s): signal SIGTERM"
    assert not virtual.points and math.isnan(virtual.capacity)


def test_a_failure_mid_point_is_named_as_what_cut_the_search_short(tmp_path):
    with pytest.raises(RuntimeError):
        capacitylive.searched(tmp_path, ("platform",), 50, CutShort(2, RuntimeError("postgres exited")), SETTINGS)
    assert capacityfile.read(tmp_path).modes[0].stop == "interrupted after 1 point(s): RuntimeError: postgres exited"


def _incomplete() -> CapacityRun:
    mode = ModeCapacity("platform", 100.0, 100.0, 200.0, "interrupted after 3 point(s): Ctrl-C")
    return CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0, (mode,), complete=False)


def test_the_summary_and_the_report_say_a_search_did_not_finish():
    said = summary.lines(_incomplete())
    assert said[1].startswith("  INCOMPLETE: the search did not finish")
    section = capacity_section.section(_incomplete())
    assert section.title == "Capacity at p99<=1500ms (incomplete)"
    assert section.sentences[0].startswith("Incomplete: this search did not finish")
    assert "interrupted after 3 point(s): Ctrl-C" in " ".join(section.sentences)


def _folder(tmp_path, name, run):
    capacityfile.write(tmp_path / name, run)
    return str(tmp_path / name)


def test_compare_fails_the_gate_on_a_search_that_did_not_finish_and_says_so_without_one(tmp_path, capsys):
    finished = ModeCapacity("platform", 100.0, 100.0, 104.0, "bracket within 5%")
    base = _folder(tmp_path, "base", CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0, (finished,)))
    cut = _folder(tmp_path, "cut", _incomplete())
    assert main(["compare", base, cut, "--fail-on", "capacity<-5%"]) == 1   # no change beyond the brackets: cut short
    out = capsys.readouterr().out
    assert "NEW's search is INCOMPLETE" in out and "the gate FAILS: it passes only finished searches" in out
    gate = json.loads((tmp_path / "cut" / "capacity-compare.json").read_text())["gate"]
    assert gate == {"failed": True, "breaches": [], "incomplete": ["NEW"]}
    assert main(["compare", base, cut]) == 0
    out = capsys.readouterr().out
    assert "NEW's search is INCOMPLETE" in out and "gate" not in out
