"""One rep's allocation and GC pauses compared by the between-run floor the run recorded for them, as its throughput
is: a change within t(runs − 1) × CV is `~`, one beyond it is named; a metric the reference runs never recorded has
no floor, and its `?` says so and why. Every run is the quick run's fixture (one rep a scenario), its allocation
per request set by hand."""

import csv
import json
import shutil
from pathlib import Path

from vtlab.cli.main import main
from vtlab.compare import compared, floors, render, runs
from vtlab.core.noisefloor import Floor

QUICK = Path(__file__).parent.parent / "fixtures" / "quick-run"
ALLOC = "alloc_kb_per_req"


def _run(folder, alloc_kib, rig=None):
    """The quick run with every row's allocation per request at `alloc_kib`, and `rig` recorded over its own."""
    folder.mkdir(parents=True)
    data = json.loads((QUICK / "metadata.json").read_text())
    data["rig"].update(rig or {})
    (folder / "metadata.json").write_text(json.dumps(data))
    with (QUICK / "matrix.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = [*reader.fieldnames, ALLOC], list(reader)
    with (folder / "matrix.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows({**row, ALLOC: str(alloc_kib)} for row in rows)
    return folder


# CV 5% over 5 runs: one rep's 95% half-width is t(4) × 5% = 2.776 × 5% ≈ ±13.9% of it, and a difference of two
# such reps by Welch's t about ±16% (100 against 103: se 5 and 5.15, 8.0 df, t 2.31: ±16.6 KiB)
FLOOR = {"noise_floor_alloc_cv_pct": 5.0, "noise_floor_alloc_runs": 5}


def _alloc_verdicts(document):
    return {row["changes"]["alloc"]["verdict"] for row in document["rows"]}


def test_allocation_moved_less_than_its_floor_is_within_noise(tmp_path):
    base, new = _run(tmp_path / "base", 100, FLOOR), _run(tmp_path / "new", 103, FLOOR)
    assert main(["compare", str(base), str(new), "--fail-on", "alloc>+2%"]) == 0
    document = json.loads((new / "compare.json").read_text())
    assert len(document["rows"]) == 8 and _alloc_verdicts(document) == {"~"}


def test_allocation_moved_beyond_its_floor_is_named_and_fails_the_gate(tmp_path, capsys):
    base, new = _run(tmp_path / "base", 100, FLOOR), _run(tmp_path / "new", 160, FLOOR)
    assert main(["compare", str(base), str(new), "--fail-on", "alloc>+20%"]) == 1
    document = json.loads((new / "compare.json").read_text())
    assert _alloc_verdicts(document) == {"worse"}
    assert "| allocated per request | 100.0 KiB | 160.0 KiB | +60.0% |" in capsys.readouterr().out


def test_the_same_change_with_a_wider_recorded_floor_is_within_noise(tmp_path):
    # CV 20% over 5 runs: ±55% for one rep, so +60% against +60% is no longer a change (the floor is what decides)
    wide = {"noise_floor_alloc_cv_pct": 20.0, "noise_floor_alloc_runs": 5}
    base, new = _run(tmp_path / "base", 100, wide), _run(tmp_path / "new", 160, wide)
    comparison = compared.compare(runs.load(base), runs.load(new))
    assert {row.changes["alloc"].verdict for row in comparison.rows} == {"~"}


def test_a_metric_the_reference_runs_lack_stays_unknown_and_says_why(tmp_path):
    reference = tmp_path / "reference" / "noise-floor"
    shutil.copytree(QUICK, reference / "one-sitting")  # a throughput column, no allocation column
    with (reference / "one-sitting" / "matrix.csv").open() as handle:
        assert ALLOC not in handle.readline()
    noise = floors.measured(reference)
    base, new = runs.load(_run(tmp_path / "base", 100)), runs.load(_run(tmp_path / "new", 300))
    comparison = compared.compare(base, new, noise)
    alloc = {(row.changes["alloc"].verdict, row.changes["alloc"].why) for row in comparison.rows}
    assert alloc == {("?", "no floor measured for alloc_kb_per_req: the reference runs (reference/noise-floor/) have "
                           "no alloc_kb_per_req column: they were recorded before it was")}
    assert "| ? (no floor measured for alloc_kb_per_req: the reference runs" in render.markdown(comparison)


def test_a_run_that_recorded_no_floor_is_not_judged_by_one_measured_since(tmp_path):
    none = {"noise_floor_alloc_cv_pct": None, "noise_floor_alloc_runs": 0}
    base, new = runs.load(_run(tmp_path / "base", 100, FLOOR)), runs.load(_run(tmp_path / "new", 300, none))
    measured_since = floors.Floors({ALLOC: Floor(5.0, 5)})
    new_side = measured_since.recorded_by(new.record.rig)
    assert new_side.why_none(ALLOC) == "no floor measured for alloc_kb_per_req: none was recorded with the run"
    comparison = compared.compare(base, new, None)
    assert {row.changes["alloc"].verdict for row in comparison.rows} == {"?"}
