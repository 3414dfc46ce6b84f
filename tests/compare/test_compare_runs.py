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
    added = dict.fromkeys(name for row in rows for name in row if name not in (*fields, "_drop"))
    fields = [*fields, *added]  # columns an edit gave (jvm_opts)
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


def test_a_row_flagged_for_its_errors_is_judged_by_them_and_by_nothing_else(tmp_path, capsys):
    def failing(row):
        if row["thread_mode"] == "virtual" and row["concurrency"] == "1000":
            row["error_rate"] = "0.4"  # errors-above-threshold: invalid, its rates no measurement of serving
            row["throughput_rps"] = str(float(row["throughput_rps"]) * 0.6)

    base, new = _copy(tmp_path, "base"), _copy(tmp_path, "new", failing)
    assert main(["compare", str(base), str(new), "--fail-on", "errors>+1%,throughput<-5%"]) == 1
    document = json.loads((new / "compare.json").read_text())
    [row] = [row for row in document["rows"] if row["flags"]]
    assert row["scenario"].startswith("virtual order-summary 1000 users")
    assert "errors-above-threshold" in row["flags"][0]
    assert row["changes"]["errors"]["verdict"] == "worse" and row["changes"]["errors"]["delta"] == pytest.approx(0.4)
    assert {c["verdict"] for name, c in row["changes"].items() if name != "errors"} == {"invalid"}  # not judged
    assert [b["condition"] for b in document["gate"]["breaches"]] == ["errors>+1%"]  # the throughput not judged


SERIAL = "-XX:+UseSerialGC"


def _with_options(row, options):
    row["jvm_opts"] = options
    return row


def _one_run_of_two_option_sets(tmp_path, edit_second=None):
    """The quick run measured twice in one run: once on vtlab's own options, once with SERIAL (the jvm_opts column,
    as `--jvm-opts '' --jvm-opts -XX:+UseSerialGC` writes it)."""
    folder = tmp_path / "two-sets"
    folder.mkdir()
    data = json.loads((QUICK / "metadata.json").read_text())
    data["plan"]["jvm_opts"] = [[], [SERIAL]]
    (folder / "metadata.json").write_text(json.dumps(data))
    with (QUICK / "matrix.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = [*reader.fieldnames, "jvm_opts"], list(reader)
    second = [_with_options(dict(row), SERIAL) for row in rows]
    for row in second:
        (edit_second or (lambda _: None))(row)
    with (folder / "matrix.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows([*(_with_options(dict(row), "") for row in rows), *second])
    return folder


def test_two_option_sets_in_one_run_compare_within_it_and_the_worse_one_fails_the_gate(tmp_path, capsys):
    run = _one_run_of_two_option_sets(tmp_path, _slower_virtual_1000)
    assert main(["compare", str(run), "--across", "jvm_opts", "--fail-on", "throughput<-5%"]) == 1
    document = json.loads((run / "compare.json").read_text())
    assert (document["base_part"], document["new_part"]) == ("jvm_opts ''", f"jvm_opts {SERIAL}")
    assert document["headline"].startswith(f"Within one run ({run}): jvm_opts {SERIAL} against jvm_opts ''")
    # every scenario matched with its twin of the other set, named without the set that tells them apart
    assert len(document["rows"]) == 8 and not document["only_base"] and not document["only_new"]
    assert not any("JVM" in row["scenario"] for row in document["rows"])
    worse = {(row["scenario"], name) for row in document["rows"] for name, change in row["changes"].items()
             if change["verdict"] == "worse"}
    assert ("virtual order-summary 1000 users released normal pool 50 downstream 1000 ms", "throughput") in worse
    assert all(scenario.startswith("virtual order-summary 1000 users") for scenario, _ in worse)
    # the page draws each part's rows only: the base's dotted line is the first set's
    assert f"jvm_opts {SERIAL} against jvm_opts &#x27;&#x27;" in (run / "compare.html").read_text()
    assert "FAILED throughput<-5%" in capsys.readouterr().out


def test_the_same_set_twice_compares_as_no_change(tmp_path):
    base, new = runs.split(runs.load(_one_run_of_two_option_sets(tmp_path)), "jvm_opts")
    comparison = compared.compare(base, new)
    assert len(comparison.rows) == 8
    assert {change.verdict for row in comparison.rows for change in row.changes.values()} <= {"~", "?"}


def test_runs_each_on_one_option_set_are_matched_across_it_and_the_options_said_first(tmp_path):
    def serial(data):
        data["plan"]["jvm_opts"] = [[SERIAL]]

    base = runs.load(_copy(tmp_path, "base"))
    new = runs.load(_copy(tmp_path, "new", lambda row: _with_options(row, SERIAL), serial))
    assert {str(s.row.jvm_opts) for s in new.scenarios.values()} == {SERIAL}
    comparison = compared.compare(base, new)
    assert len(comparison.rows) == 8 and not comparison.only_base and not comparison.only_new
    assert ("JVM options", "-", SERIAL) in comparison.environment
    assert comparison.headline == "Same machine; also different: JVM options"


def test_a_comparison_within_a_run_is_refused_where_it_cannot_be_made(tmp_path, capsys):
    quick, two = _copy(tmp_path, "quick"), _one_run_of_two_option_sets(tmp_path)
    assert main(["compare", str(quick), "--across", "jvm_opts"]) == 2
    assert f"--across jvm_opts: {quick} measured one value of it ('')" in capsys.readouterr().err
    assert main(["compare", str(two), "--across", "collector"]) == 2
    assert "--across collector: not a dimension of a row; one of thread_mode, server" in capsys.readouterr().err
    for argv in ([str(two)], [str(two), str(quick), "--across", "jvm_opts"]):
        assert main(["compare", *argv]) == 2
        assert "give BASE and NEW run folders, or one run folder and --across DIMENSION" in capsys.readouterr().err
    assert not list(tmp_path.glob("*/compare*"))  # nothing written for any of them


def test_a_collector_that_stands_the_service_still_longer_is_worse_by_its_gc_pauses(tmp_path, capsys):
    """Two reps of each set (what a gate on a collector needs: a single rep's GC change has no noise estimate), the
    second set's pauses per 1,000 requests doubled and nothing else moved: worse on `gc` in every scenario, `~` on the
    rest, and a gate on gc fails while one on throughput passes."""
    folder = _one_run_of_two_option_sets(tmp_path)
    with (folder / "matrix.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = [*reader.fieldnames, "gc_pause_ms_per_1k_req"], list(reader)
    measured = []
    for row in rows:
        for rep, jitter in ((1, 1.0), (2, 1.04)):
            base_ms = 10.0 if row["jvm_opts"] == "" else 20.0
            measured.append({**row, "rep": str(rep), "gc_pause_ms_per_1k_req": str(base_ms * jitter)})
    with (folder / "matrix.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(measured)

    assert main(["compare", str(folder), "--across", "jvm_opts", "--fail-on", "throughput<-5%"]) == 0
    assert main(["compare", str(folder), "--across", "jvm_opts", "--fail-on", "gc>+50%"]) == 1
    document = json.loads((folder / "compare.json").read_text())
    assert len(document["rows"]) == 8 and all(row["reps"] == [2, 2] for row in document["rows"])
    for row in document["rows"]:
        gc = row["changes"]["gc"]
        assert gc["verdict"] == "worse" and (gc["base"], gc["new"]) == pytest.approx((10.2, 20.4)), row["scenario"]
        assert {change["verdict"] for name, change in row["changes"].items() if name != "gc"} == {"~"}
    assert len(document["gate"]["breaches"]) == 8
    assert "GC paused per 1,000 requests" in (folder / "compare.md").read_text()
    assert "FAILED gc>+50%" in capsys.readouterr().out
