"""`vtlab compare` on real run folders (the quick run's fixture): identical runs compare as `~` on every row and
metric and pass the gate; a run whose rows changed is called worse exactly there and fails it; rows in one run only
are listed; another machine is said first."""

import csv
import json
import shutil
from pathlib import Path

import pytest

from vtlab.cli.main import main
from vtlab.compare import compared, runs

QUICK = Path(__file__).parent.parent / "fixtures" / "quick-run"


def _copy(tmp_path, name, edit=None, meta=None):
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(QUICK / "metadata.json", folder)
    with (QUICK / "matrix.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = reader.fieldnames, list(reader)
    rows = [edit(row) or row for row in rows] if edit else rows
    rows = [row for row in rows if row.get("_drop") != "yes"]
    with (folder / "matrix.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    if meta:
        data = json.loads((folder / "metadata.json").read_text())
        meta(data)
        (folder / "metadata.json").write_text(json.dumps(data))
    return folder


def _slower_virtual_1000(row):
    if row["thread_mode"] == "virtual" and row["concurrency"] == "1000":
        row["throughput_rps"] = str(float(row["throughput_rps"]) * 0.8)
        row["p99_ms"] = str(float(row["p99_ms"]) * 1.5)


def test_two_identical_runs_compare_as_no_change_everywhere(tmp_path, capsys):
    base, new = _copy(tmp_path, "base"), _copy(tmp_path, "new")
    assert main(["compare", str(base), str(new), "--fail-on", "throughput<-5%,p99>+10%"]) == 0
    document = json.loads((new / "compare.json").read_text())
    assert document["headline"].startswith("Same machine")
    assert len(document["rows"]) == 8 and not document["only_base"] and not document["only_new"]
    verdicts = {change["verdict"] for row in document["rows"] for change in row["changes"].values()}
    # one rep each: throughput by the floor, the rest by their own floors where the reference runs measured them
    assert verdicts <= {"~", "?"} and "~" in verdicts
    assert document["gate"] == {"failed": False, "breaches": []}
    assert "passed: no significant change crosses a threshold" in (new / "compare.md").read_text()


def test_a_real_drop_is_called_worse_where_it_is_and_fails_the_gate(tmp_path, capsys):
    base, new = _copy(tmp_path, "base"), _copy(tmp_path, "new", _slower_virtual_1000)
    assert main(["compare", str(base), str(new), "--fail-on", "throughput<-5%"]) == 1
    document = json.loads((new / "compare.json").read_text())
    worse = [(row["scenario"], name) for row in document["rows"] for name, change in row["changes"].items()
             if change["verdict"] == "worse"]
    assert ("virtual order-summary 1000 users released normal pool 50 downstream 1000 ms", "throughput") in worse
    assert all(scenario.startswith("virtual order-summary 1000 users") for scenario, _ in worse)
    assert document["gate"]["failed"] and document["gate"]["breaches"][0]["share"] == pytest.approx(-0.2)
    assert "FAILED throughput<-5%: virtual order-summary 1000 users" in capsys.readouterr().out


def test_rows_in_one_run_only_are_listed_and_another_machine_is_said_first(tmp_path):
    def drop_held(row):
        if row["conn_mode"] == "held":
            row["_drop"] = "yes"

    def other_host(data):
        data["host"]["cpu_model"] = "Intel Xeon"

    base = runs.load(_copy(tmp_path, "base"))
    new = runs.load(_copy(tmp_path, "new", drop_held, other_host))
    comparison = compared.compare(base, new)
    assert len(comparison.rows) == 6
    assert comparison.only_base == [f"{mode} order-summary 100 users held normal pool 50 downstream 1000 ms"
                                    for mode in ("platform", "virtual")]
    assert comparison.headline.startswith("ACROSS MACHINES (host CPU differ)")
    assert ("host CPU", "AMD EPYC", "Intel Xeon") in comparison.environment


def test_bad_input_is_refused_naming_it(tmp_path, capsys):
    base = _copy(tmp_path, "base")
    assert main(["compare", str(base), str(tmp_path / "nowhere")]) == 2
    assert "holds no matrix.csv" in capsys.readouterr().err
    assert main(["compare", str(base), str(base), "--fail-on", "speed<5%"]) == 2
    assert "unknown metric 'speed'" in capsys.readouterr().err


def test_a_flagged_row_is_never_judged_however_far_it_moved(tmp_path):
    def noisy_slower(row):
        _slower_virtual_1000(row)
        if row["thread_mode"] == "virtual" and row["concurrency"] == "1000":
            row["foreign_cpu_pct"] = "40"  # another process took the CPU: noisy-neighbour

    comparison = compared.compare(runs.load(_copy(tmp_path, "base")), runs.load(_copy(tmp_path, "new", noisy_slower)))
    flagged = [row for row in comparison.rows if row.flags]
    assert [row.label for row in flagged] == ["virtual order-summary 1000 users released normal pool 50 downstream "
                                              "1000 ms"]
    assert "noisy-neighbour" in flagged[0].flags[0]
    assert {change.verdict for change in flagged[0].changes.values()} == {"invalid"}
    assert flagged[0].changes["throughput"].share == pytest.approx(-0.2)  # shown, not judged
