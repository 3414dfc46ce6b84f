"""matrix.csv's rows typed once where they are read (results.rows), from one declaration of the columns
(core.measures): what a cell reads as, a misspelt column caught where it is named, an older CSV read through the
upgrade table, and no analysis code reading a measured column by its name."""

from __future__ import annotations

import ast
import dataclasses
import math
from pathlib import Path

import pytest

from vtlab.core import dimensions, measures
from vtlab.results import record, rows, table
from vtlab.results.rows import typed

SRC = Path(__file__).resolve().parents[2] / "src" / "vtlab"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# The published rig's columns, in its order (shared/reference's matrix.csv header), written out here rather than
# read from the declaration under test
PUBLISHED = ["ts_iso", "thread_mode", "hikari_pool", "path_mode", "conn_mode", "concurrency", "rep",
             "throughput_rps", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "error_rate", "http_reqs",
             "app_cpu_pct", "pg_cpu_pct", "load_cpu_pct", "hikari_active_max", "hikari_pending_max",
             "jvm_threads_max", "rss_mb_max", "pinned_events"]


def test_the_csv_header_is_the_declarations_order_the_published_rigs_columns_first():
    assert table.COLUMNS[:23] == PUBLISHED == table.DESIGN_COLUMNS
    assert table.COLUMNS == list(measures.NAMES)
    assert set(dimensions.NAMES) | set(measures.BY_NAME) == set(table.COLUMNS)
    assert not set(dimensions.NAMES) & set(measures.BY_NAME)


def test_every_measured_column_says_its_type_unit_stage_and_what_empty_means():
    for measure in measures.MEASURES:
        assert measure.kind in (measures.NUMBER, measures.TEXT, measures.YES), measure
        assert measure.empty, measure
        module = SRC.joinpath(*measure.stage.split(".")).with_suffix(".py")
        assert module.exists(), f"{measure.name}: its stage {measure.stage} is no module"
        assert measure.kind is measures.NUMBER or not measure.unit, measure
    assert measures.BY_NAME["p99_ms"].unit == "ms" and measures.BY_NAME["throughput_rps"].unit == "req/s"


def test_a_line_reads_as_its_columns_types_and_empty_as_each_columns_empty():
    row = typed({"thread_mode": "virtual", "concurrency": "100", "p99_ms": "1050.5", "pinned_reasons": "Monitor=3",
                 "taken_in_turns": "yes", "gc_pause_ms": ""})
    assert (row.thread_mode, row.concurrency, row.p99_ms) == ("virtual", 100, 1050.5)
    assert row.pinned_reasons == "Monitor=3" and row.taken_in_turns is True
    assert math.isnan(row.gc_pause_ms) and math.isnan(row.host_work_us)  # empty and missing: not measured
    assert row.stall == "" and not typed({}).taken_in_turns
    assert row.jdk == 25 and row.conn_mode == "released"  # a dimension's default
    assert row.dims == dimensions.Row(thread_mode="virtual", concurrency=100)
    assert not row.failed and typed({"failed_tier": "app"}).failed
    assert math.isnan(typed({"p99_ms": "n/a"}).p99_ms)  # a cell that is no number is none
    assert typed(row) is row


def test_a_typed_row_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        typed({}).p99_ms = 1.0  # type: ignore[misc]


def test_a_misspelt_column_fails_where_it_is_named_and_says_which():
    row = typed({"p99_ms": "12"})
    with pytest.raises(AttributeError, match="p99_msx"):
        row.p99_msx  # noqa: B018  the read itself is the test
    with pytest.raises(NameError, match="p99_msx"):
        measures.declared("p99_ms", "p99_msx")  # a name built in analysis code, checked at its module's import
    with pytest.raises(ValueError, match="tomcat_threads_busy_max"):
        typed({"tomcat_threads_busy_max": "200"})  # a test's or a writer's cell that is no column
    assert math.isnan(typed({"host": "x", "p99_ms": "12"}, strict=False).p50_ms)  # another CSV's columns: left out


def test_an_older_csv_reads_the_columns_it_lacks_as_not_measured_by_the_upgrade_table(tmp_path):
    old = FIXTURES / "quick-run" / "matrix.csv"
    header = old.read_text().splitlines()[0].split(",")
    assert "host_work_us" not in header and len(header) < len(table.COLUMNS)  # written by an older vtlab
    read = rows.read(old)
    assert read and all(math.isnan(row.host_work_us) and row.pinned_frames == "" for row in read)
    assert all(row.throughput_rps > 0 for row in read if not row.failed)
    assert "matrix.csv.columns" in {key for key, _, _ in record.UPGRADES}
    assert rows.read(tmp_path / "none.csv") == []


# String-keyed reads outside results/ whose receiver is no matrix.csv row, by module: what each is
NOT_ROWS = {
    ("cli/calibrate.py", "point"): "a calibration point's settings",
    ("core/noisefloor.py", "cells"): "the committed noise-floor runs, read by core before any stage (core's "
                                     "constants derive from them, and core imports nothing of results)",
    ("measure/stubbench.py", "metrics"): "k6's summary",
    ("measure/stubbench.py", "result"): "the stub bench's own result",
    ("plan/checks.py", "setting"): "a profile's settings",
    ("plan/planner.py", "setting"): "a profile's settings",
    ("plan/interleave.py", "given"): "a profile's paired settings",
    ("report/charts.py", "series"): "a chart's data series",
    ("report/published.py", "row"): "reference/published.csv: its own columns",
    ("report/published.py", "modes['platform']"): "reference/published.csv: its own columns",
    ("report/published.py", "modes['virtual']"): "reference/published.csv: its own columns",
    ("report/timeline.py", "bucket"): "one second's figures of the timeline",
    ("series/shapestats.py", "line"): "k6's per-second line",
    ("targets/user.py", "reading or {}"): "the service's meters",
}


def _string_reads(tree: ast.AST) -> list[tuple[str, str, str, int]]:
    """(how, receiver, column, line) of every read of a measured column by its name: `x["col"]`, `x.get("col")`,
    `num(x, "col")`."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.slice, ast.Constant)
                and node.slice.value in measures.BY_NAME):
            found.append(("[]", ast.unparse(node.value), node.slice.value, node.lineno))
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            where = 0 if name == "get" else 1 if name == "num" else None
            if where is None or len(node.args) <= where or not isinstance(node.args[where], ast.Constant):
                continue
            receiver = node.func.value if name == "get" and isinstance(node.func, ast.Attribute) else node.args[0]
            if node.args[where].value in measures.BY_NAME:
                found.append((name, ast.unparse(receiver), node.args[where].value, node.lineno))
    return found


def test_no_code_outside_results_reads_a_measured_column_by_its_name():
    reads, seen = [], set()
    for path in sorted(SRC.rglob("*.py")):
        module = path.relative_to(SRC).as_posix()
        if module.startswith("results/"):
            continue
        source = path.read_text()
        assert "cells.num(" not in source and "import num" not in source, f"{module} reads cells by name"
        for how, receiver, column, line in _string_reads(ast.parse(source)):
            if (module, receiver) in NOT_ROWS:
                seen.add((module, receiver))
            else:
                reads.append(f"{module}:{line} {receiver} {how} {column!r}")
    assert reads == [], "read the typed row's attribute instead (results.rows.MeasuredRow)"
    assert seen == set(NOT_ROWS), "an allowance no code needs any more"


def test_the_check_finds_a_string_read_of_a_column():
    caught = _string_reads(ast.parse('a = num(row, "p99_ms", 0)\nb = row.get("stall")\nc = row["gc_pause_ms"]'))
    assert [(how, receiver, column) for how, receiver, column, _ in caught] == [
        ("num", "row", "p99_ms"), ("get", "row", "stall"), ("[]", "row", "gc_pause_ms")]


def test_a_file_with_a_column_this_vtlab_does_not_know_reads_without_it(tmp_path):
    matrix = (FIXTURES / "quick-run" / "matrix.csv").read_text().splitlines()
    widened = [matrix[0] + ",a_newer_column", *(line + ",7" for line in matrix[1:])]
    (tmp_path / "matrix.csv").write_text("\n".join(widened) + "\n")
    assert rows.read(tmp_path / "matrix.csv") == rows.read(FIXTURES / "quick-run" / "matrix.csv")


def test_an_overlay_keeps_the_lines_with_a_number_of_users(tmp_path):
    from vtlab.results import compare

    other = tmp_path / "other.csv"
    other.write_text(",".join(PUBLISHED) + ",tool_only\n"
                     + ",".join(["", "virtual", "50", "normal", "released", "200", "1", "950"] + [""] * 15) + ",x\n"
                     + ",".join(["", "virtual", "50", "normal", "released", "", "1", "990"] + [""] * 15) + ",x\n")
    (source,) = compare.load(other)
    assert [(row.concurrency, row.throughput_rps) for row in source.rows] == [(200, 950.0)]
