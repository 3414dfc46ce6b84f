"""The row loop over a fake target: resume, failed rows, the consecutive-failure stop, metadata and progress,
without starting any tier (after hyperfine's mock executor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vtlab.core import dimensions
from vtlab.measure import loop, neighbours
from vtlab.measure.target import OnThisMachine, Revives, RowRefused, SetsUpLate, ShowsItsRows, Target, Turn
from vtlab.core.dimensions import Row
from vtlab.plan import planner
from vtlab.results import table
from vtlab.rig import procs


def plan(rows: int = 4) -> planner.Plan:
    concurrency = (10, 20, 30, 40)[:rows // 2]
    made = planner.build("quick", planner.Overrides(concurrency=concurrency, modes=("platform", "virtual"),
                                                        reps=1, conn_modes=("released",)))
    assert len(made.rows) == rows
    return made


def measured(row: Row) -> dict[str, object]:
    return {**{column: "" for column in table.COLUMNS}, **dimensions.values(row), "throughput_rps": 100.0,
            "p99_ms": 12.0, "error_rate": 0.0, "app_cpu_pct": 50.0, "load_cpu_pct": 10.0}


class Fake:
    """A target that measures nothing: each row's outcome is told in advance ("ok", "died", "refused")."""

    def __init__(self, outcomes: list[str] | None = None):
        self.outcomes = list(outcomes or [])
        self.turns: list[Turn] = []
        self.revived: list[str] = []
        self.events: list[str] = []
        self.learned: dict[str, object] = {}

    def prepare(self, plan: planner.Plan, run_dir: Path) -> None:
        self.events.append("prepare")
        run_dir.mkdir(parents=True, exist_ok=True)

    def describe(self) -> dict[str, object]:
        return {"target": {"kind": "fake"}, **self.learned}

    def measure(self, turn: Turn, progress) -> dict[str, object]:
        self.turns.append(turn)
        outcome = self.outcomes.pop(0) if self.outcomes else "ok"
        if outcome == "died":
            raise procs.TierDied("stub", "exited with code 1", None)
        if outcome == "refused":
            raise RowRefused("service", "would not start", None, RuntimeError("the jar is wrong"))
        self.learned = {"service": {"jdkVersion": "25"}}
        return measured(turn.row)

    def close(self) -> None:
        self.events.append("close")


class Reviving(Fake):
    def revive(self, died: procs.TierDied) -> None:
        self.revived.append(died.tier)


class Recorded:
    """A reporter that keeps what it was told."""

    def __init__(self):
        self.lines: list[str] = []

    def resumed(self, measured: int, planned: int) -> None:
        self.lines.append(f"resumed {measured}/{planned}")

    def begin(self, turn: Turn) -> None:
        self.lines.append(f"begin {turn.index} {turn.position}")

    def tick(self, load_started: float, ok_per_s: float, failed_per_s: float = 0.0, hold_ended: bool = False) -> None:
        pass

    def failed(self, died: procs.TierDied) -> None:
        self.lines.append(f"failed {died.tier}")

    def end(self, values: dict[str, object]) -> None:
        self.lines.append("end")


class Shown(Reviving):
    def __init__(self, outcomes: list[str] | None = None):
        super().__init__(outcomes)
        self.reporter_ = Recorded()

    def reporter(self, rows: int) -> Recorded:
        return self.reporter_


def test_the_fakes_are_targets_with_the_capabilities_they_declare():
    fake: Target = Fake()
    assert not isinstance(fake, Revives) and not isinstance(fake, OnThisMachine)
    assert isinstance(Reviving(), Revives) and isinstance(Shown(), ShowsItsRows)


def test_every_row_is_measured_in_turn_with_the_first_one_warmed_longer(tmp_path, capsys):
    the_plan, target = plan(), Fake()
    outcome = loop.run(target, the_plan, tmp_path / "run")
    assert outcome.failed_rows == 0 and outcome.csv == tmp_path / "run" / table.CSV_NAME
    assert [(t.row, t.position, t.index) for t in target.turns] == [(r, i, i) for i, r in enumerate(the_plan.rows)]
    assert [t.warmup_s for t in target.turns] == [the_plan.warmup_s + loop.FIRST_ROW_EXTRA_WARMUP_S] + \
        [the_plan.warmup_s] * 3
    assert target.events == ["prepare", "close"]
    assert len(table.read_rows(outcome.csv)) == 4
    out = capsys.readouterr().out  # the live line, as a pipe shows it
    assert f"[1/4] {dimensions.label(the_plan.rows[0])}" in out and out.count("req/s ok, p99 12 ms") == 4


def test_a_resumed_run_skips_the_rows_measured_and_measures_the_failed_ones_again(tmp_path, capsys):
    the_plan, run_dir = plan(), tmp_path / "run"
    assert loop.run(Reviving(["ok", "died"]), the_plan, run_dir).failed_rows == 1
    again = Reviving()
    capsys.readouterr()
    assert loop.run(again, the_plan, run_dir).failed_rows == 0
    assert "vtlab: resuming: 3 of 4 rows already measured" in capsys.readouterr().out
    assert [(t.position, t.index) for t in again.turns] == [(1, 0)]
    assert again.turns[0].warmup_s == the_plan.warmup_s + loop.FIRST_ROW_EXTRA_WARMUP_S  # a first row again
    assert len(table.done_keys(run_dir / table.CSV_NAME)) == 4


def test_a_failed_row_is_written_as_failed_and_the_run_goes_on_after_a_revive(tmp_path):
    target = Reviving(["ok", "died", "ok", "ok"])
    outcome = loop.run(target, plan(), tmp_path / "run")
    rows = table.read_rows(outcome.csv)
    assert outcome.failed_rows == 1 and target.revived == ["stub"]
    assert [row["failed_tier"] for row in rows] == ["", "stub", "", ""]
    assert rows[1]["failure"] == "exited with code 1" and rows[1]["throughput_rps"] == ""
    assert len(target.turns) == 4


def test_a_run_stops_after_too_many_failed_rows_in_a_row(tmp_path):
    target = Reviving(["died"] * 4)
    with pytest.raises(RuntimeError, match=f"{loop.MAX_CONSECUTIVE_FAILURES} rows in a row failed"):
        loop.run(target, plan(), tmp_path / "run")
    assert len(target.turns) == loop.MAX_CONSECUTIVE_FAILURES
    assert len(target.revived) == loop.MAX_CONSECUTIVE_FAILURES - 1  # no revive for a run that stops
    assert len(table.read_rows(tmp_path / "run" / table.CSV_NAME)) == loop.MAX_CONSECUTIVE_FAILURES
    assert target.events[-1] == "close"


def test_a_success_resets_the_count_and_a_refused_row_stops_with_its_own_reason(tmp_path):
    target = Reviving(["died", "died", "ok", "died"])
    assert loop.run(target, plan(), tmp_path / "a").failed_rows == 3
    with pytest.raises(RuntimeError, match="^the jar is wrong$"):
        loop.run(Reviving(["refused"] * 3), plan(), tmp_path / "b")


def test_a_target_that_revives_nothing_goes_on_whatever_fails(tmp_path):
    target = Fake(["died"] * 4)
    assert loop.run(target, plan(), tmp_path / "run").failed_rows == 4
    assert target.revived == []


def written_metadata(run_dir: Path) -> dict:
    """metadata.json as the loop wrote it, read as plain JSON: the test checks the file, not its reader."""
    return json.loads((run_dir / table.METADATA_NAME).read_text())


def test_metadata_holds_the_targets_description_and_what_its_rows_taught_it(tmp_path, monkeypatch):
    written: list[dict] = []
    real = table.write_metadata
    monkeypatch.setattr(table, "write_metadata", lambda run_dir, meta: (written.append(dict(meta)),
                                                                        real(run_dir, meta)))
    the_plan, run_dir = plan(), tmp_path / "run"
    loop.run(Fake(), the_plan, run_dir)
    meta = written_metadata(run_dir)
    assert set(meta) == {"target", "service", "plan", "started", "finished"}
    assert meta["target"] == {"kind": "fake"} and meta["plan"]["profile"] == the_plan.describe()["profile"]
    # once as the run starts, once when the first row taught the target its runtime, once as it ends
    assert len(written) == 3 and "service" not in written[0] and "finished" not in written[1]


def test_a_target_on_this_machine_has_its_neighbours_watched_before_the_first_row(tmp_path, monkeypatch):
    class Local(Fake):
        def own_pids(self) -> set[int]:
            return {4242}

    watched: list[set[int]] = []
    monkeypatch.setattr(neighbours, "before_run",
                        lambda watching, ours: (watched.append(ours), neighbours.HostLoad(1.0, []))[1])
    loop.run(Local(), plan(), tmp_path / "run")
    assert watched == [{4242}]
    assert written_metadata(tmp_path / "run")["host_before_run"]["busy_pct"] == 1.0
    loop.run(Fake(), plan(), tmp_path / "other")
    assert "host_before_run" not in written_metadata(tmp_path / "other")


def test_a_target_that_shows_its_rows_is_given_their_turns(tmp_path):
    target = Shown(["ok", "died"])
    loop.run(target, plan(), tmp_path / "run")
    assert target.reporter_.lines == ["begin 0 0", "end", "begin 1 1", "failed stub", "begin 2 2", "end",
                                      "begin 3 3", "end"]
    again = Shown()
    loop.run(again, plan(), tmp_path / "run")
    assert again.reporter_.lines == ["resumed 3/4", "begin 0 1", "end"]


def test_a_target_is_closed_when_its_preparation_fails(tmp_path):
    class Broken(Fake):
        def prepare(self, plan: planner.Plan, run_dir: Path) -> None:
            raise RuntimeError("no PostgreSQL")

    target = Broken()
    with pytest.raises(RuntimeError, match="no PostgreSQL"):
        loop.run(target, plan(), tmp_path / "run")
    assert target.events == ["close"] and not (tmp_path / "run" / table.CSV_NAME).exists()


def test_a_target_that_sets_up_late_does_so_after_the_runs_files_exist_so_a_failed_set_up_resumes(tmp_path):
    class Late(Fake):
        fail = True

        def set_up(self) -> None:
            self.events.append("set_up")
            if self.fail:
                raise RuntimeError("the seed Job failed twice")

    run_dir, the_plan = tmp_path / "run", plan()
    first = Late()
    assert isinstance(first, SetsUpLate)
    with pytest.raises(RuntimeError, match="seed Job"):
        loop.run(first, the_plan, run_dir)
    # the run's files are there, started before the set-up: the next call is a --resume like any other
    assert first.events == ["prepare", "set_up", "close"] and first.turns == []
    assert (run_dir / table.CSV_NAME).exists() and "started" in written_metadata(run_dir)
    second = Late()
    second.fail = False
    loop.run(second, the_plan, run_dir)
    assert second.events == ["prepare", "set_up", "close"] and len(second.turns) == len(the_plan.rows)
