import json
import csv

import pytest

from vtlab.core import dimensions
from vtlab.results import table


def a_row(**changes):
    row = {column: 1 for column in table.COLUMNS}
    row.update(thread_mode="virtual", conn_mode="released", path_mode="normal", load_model="closed",
               failed_tier="", failure="", failure_log="")
    row.update(changes)
    return row


def test_the_first_23_columns_are_the_published_rigs_in_order():
    assert table.COLUMNS[:23] == [
        "ts_iso", "thread_mode", "hikari_pool", "path_mode", "conn_mode", "concurrency", "rep",
        "throughput_rps", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "error_rate", "http_reqs",
        "app_cpu_pct", "pg_cpu_pct", "load_cpu_pct", "hikari_active_max", "hikari_pending_max",
        "jvm_threads_max", "rss_mb_max", "pinned_events"]
    assert len(set(table.COLUMNS)) == len(table.COLUMNS)


def test_rows_are_appended_and_read_back(tmp_path):
    path = tmp_path / "matrix.csv"
    writer = table.CsvWriter(path)
    writer.append(a_row(concurrency=100, throughput_rps=123.456789))
    table.CsvWriter(path).append(a_row(concurrency=200, throughput_rps=float("nan")))
    rows = table.read_rows(path)
    assert [r["concurrency"] for r in rows] == ["100", "200"]
    assert rows[0]["throughput_rps"] == "123.457"
    assert rows[1]["throughput_rps"] == ""  # a missing reading stays visibly empty
    with open(path) as handle:
        assert next(csv.reader(handle)) == table.COLUMNS


def test_resume_keys_match_written_rows(tmp_path):
    path = tmp_path / "matrix.csv"
    table.CsvWriter(path).append(a_row(concurrency=100))
    assert dimensions.key(dimensions.parse(a_row(concurrency=100))) in table.done_keys(path)
    assert dimensions.key(dimensions.parse(a_row(concurrency=101))) not in table.done_keys(path)


def test_a_failed_row_is_measured_again_on_resume(tmp_path):
    path = tmp_path / "matrix.csv"
    table.CsvWriter(path).append(a_row(concurrency=100, failed_tier="service", failure="was killed by SIGKILL"))
    assert dimensions.key(dimensions.parse(a_row(concurrency=100))) not in table.done_keys(path)


def test_a_csv_with_other_columns_is_not_appended_to(tmp_path):
    path = tmp_path / "matrix.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="different columns"):
        table.CsvWriter(path)
    assert path.read_text() == "a,b\n1,2\n"


def test_a_row_missing_a_column_is_refused(tmp_path):
    row = a_row()
    del row["pinned_events"]
    with pytest.raises(ValueError, match="pinned_events"):
        table.CsvWriter(tmp_path / "m.csv").append(row)


def test_metadata_round_trip(tmp_path):
    table.write_metadata(tmp_path, {"core_map": "app=0-1", "plan": {"rows": [1]}})
    assert json.loads((tmp_path / table.METADATA_NAME).read_text())["plan"] == {"rows": [1]}


def test_a_last_line_cut_short_is_set_aside_and_the_intact_rows_kept(tmp_path, capsys):
    path = tmp_path / "matrix.csv"
    table.CsvWriter(path).append(a_row(concurrency=100, failure_log="line one\nline two"))
    intact = path.read_bytes()
    with open(path, "ab") as handle:
        handle.write(b"2026-11-24,virtual,50,nor")  # the disk filled up mid-row
    assert table.why_not_appendable(path) is None
    table.CsvWriter(path).append(a_row(concurrency=200))
    assert [r["concurrency"] for r in table.read_rows(path)] == ["100", "200"]
    assert path.read_bytes().startswith(intact)
    assert (tmp_path / "matrix.csv.torn").read_bytes() == b"2026-11-24,virtual,50,nor"
    assert "cut short" in capsys.readouterr().err


def test_a_damaged_line_in_the_middle_is_named_and_nothing_is_changed(tmp_path):
    path = tmp_path / "matrix.csv"
    table.CsvWriter(path).append(a_row(concurrency=100))
    with open(path, "a") as handle:
        handle.write("2026-11-24,virtual,50\n")
    before = path.read_bytes()
    problem = table.why_not_appendable(path)
    assert problem and "line(s) 3" in problem
    with pytest.raises(ValueError, match="line"):
        table.CsvWriter(path)
    assert path.read_bytes() == before


def test_a_row_that_cannot_be_written_is_printed_and_the_earlier_rows_stay(tmp_path, monkeypatch):
    path = tmp_path / "matrix.csv"
    writer = table.CsvWriter(path)
    writer.append(a_row(concurrency=100))

    def disk_full(lines):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(writer, "_write", disk_full)
    with pytest.raises(table.ResultsNotWritten) as raised:
        writer.append(a_row(concurrency=200, throughput_rps=456.5))
    assert "No space left on device" in str(raised.value) and '"throughput_rps": "456.5"' in str(raised.value)
    assert [r["concurrency"] for r in table.read_rows(path)] == ["100"]


def test_a_folder_that_cannot_be_written_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert "cannot write results into" in table.why_not_writable(blocker / "run")
    assert table.why_not_writable(tmp_path / "run") is None
