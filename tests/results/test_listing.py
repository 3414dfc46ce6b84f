"""Reading a run folder for the listing: what each recorded run measured, and every damaged file named while the
rest is still read. Expected values read by hand from tests/recorded/."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from vtlab.report import html, jsonfile, render
from vtlab.results import listing

RECORDED = Path(__file__).resolve().parents[1] / "recorded"


def _copy(recorded: str, to: Path) -> Path:
    shutil.copytree(RECORDED / recorded, to)
    return to


def test_the_report_files_are_named_as_the_report_writes_them():
    assert (listing.ANALYSIS_NAME, listing.REPORT_JSON_NAME, listing.REPORT_HTML_NAME) == (
        render.ANALYSIS_NAME, jsonfile.NAME, html.NAME)


def test_a_users_service_is_named_by_its_jar_and_script():
    run = listing.read(RECORDED / "users-script" / "script")
    assert run.measured == ("--service services/app/target/app.jar · "
                            "--script /tmp/vtlab-rec/test_a_users_k6_script_runs_in0/two-calls.js")
    assert run.finished is True and run.rows == 1 and run.damage == ()


def test_valid_rows_come_from_the_analysis_and_failed_rows_are_rows():
    run = listing.read(RECORDED / "faults" / "run")  # four rows, a tier died in two of them; one valid
    assert (run.rows, run.valid_rows) == (4, 1)
    assert run.headline is None and run.report is None  # recorded without report.json and report.html


def test_a_report_json_of_another_shape_is_damage_and_the_rest_is_read(tmp_path):
    run_dir = _copy("overload/run", tmp_path / "run")
    (run_dir / "report.json").write_text(json.dumps({"headline": [{"scenario": "x"}]}))
    run = listing.read(run_dir)
    assert run.headline is None
    assert run.damage == ("report.json cannot be read (KeyError: 'text')",)
    assert (run.rows, run.valid_rows, run.measured) == (1, 0, "quick")


def test_an_analysis_without_its_valid_column_and_a_row_of_another_width_are_damage(tmp_path):
    run_dir = _copy("tiny-matrix/run", tmp_path / "run")
    (run_dir / "analysis.csv").write_text("thread_mode,throughput_rps\nvirtual,1\n")
    with open(run_dir / "matrix.csv", "a") as matrix:
        matrix.write("platform,tomcat\n")
    run = listing.read(run_dir)
    assert run.rows == 2 and run.valid_rows is None
    assert run.damage == ("matrix.csv: 1 row(s) without the header's 159 columns",
                          "analysis.csv has no valid column")


def test_a_csv_alone_is_a_run_whose_record_says_nothing(tmp_path):
    (tmp_path / "run").mkdir()
    shutil.copy(RECORDED / "spike" / "run" / "matrix.csv", tmp_path / "run" / "matrix.csv")
    run = listing.read(tmp_path / "run")
    assert (run.measured, run.started, run.finished, run.rows, run.damage) == ("not recorded", None, None, 2, ())


def test_a_recut_is_listed_right_after_its_run_and_says_what_it_was_cut_from(tmp_path):
    run_dir = _copy("overload/run", tmp_path / "run")
    recut = _copy("overload/run", run_dir / "recut-4-8")
    metadata = json.loads((recut / "metadata.json").read_text())
    metadata["recut"] = {"from_run": "run", "hold_from_s": 4, "hold_to_s": 8}
    (recut / "metadata.json").write_text(json.dumps(metadata))
    _copy("tiny-matrix/run", tmp_path / "a-later")
    assert [(run.folder.relative_to(tmp_path).as_posix(), run.measured) for run in listing.runs(tmp_path)] == [
        ("a-later", "quick"), ("run", "quick"), ("run/recut-4-8", "quick, re-cut 4–8 s of run")]
