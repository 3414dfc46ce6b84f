"""The registry of row dimensions: everything that names a row derives from it and stays unique."""

from __future__ import annotations

import dataclasses

import pytest

from vtlab.core import dimensions
from vtlab.plan import planner, presets
from vtlab.results import table
from vtlab.core.dimensions import DIMENSIONS, Row

# A value unlike every default, per type, to see each dimension reach the label and the slug.
ODD = {int: 7, str: "odd"}


def every_profile_row() -> list[tuple[str, Row]]:
    rows = [(name, row) for name in presets.profiles() for row in planner.build(name, planner.Overrides()).rows]
    rows += [("open", row) for row in planner.build("quick", planner.Overrides(model="open", rates=(50, 100))).rows]
    return rows


def test_every_profile_row_has_a_unique_slug_and_resume_key():
    for name in presets.profiles():
        rows = planner.build(name, planner.Overrides(reps=2)).rows
        assert len({dimensions.slug(row) for row in rows}) == len(rows), name
        assert len({dimensions.key(row) for row in rows}) == len(rows), name
        # repetitions of one scenario share its aggregation key, nothing else does
        scenarios = {dimensions.key(row, dimensions.SCENARIO_KEY) for row in rows}
        assert len(scenarios) == len(rows) // 2, name


def test_slugs_are_file_names():
    for _, row in every_profile_row():
        slug = dimensions.slug(row)
        assert slug and "/" not in slug and " " not in slug and slug.isprintable(), slug


def test_row_is_the_registry():
    assert [f.name for f in dataclasses.fields(Row)] == list(dimensions.NAMES)
    assert Row() == Row(**{d.name: d.default for d in DIMENSIONS})  # every field has its empty-cell default


@pytest.mark.parametrize("dimension", DIMENSIONS, ids=lambda d: d.name)
def test_each_dimension_is_a_csv_column_and_reaches_label_slug_and_keys_as_declared(dimension):
    assert dimension.name in table.COLUMNS
    base = Row(thread_mode="virtual", concurrency=10, hikari_pool=5, rep=1)
    odd = "open" if dimension.name == "load_model" else ODD[dimension.kind]  # the one other load model
    changed = dataclasses.replace(base, **{dimension.name: odd},
                                  **({"load_model": "open"} if dimension.name == "target_rps" else {}))
    # the label and the slug tell the two rows apart
    assert dimensions.label(changed) != dimensions.label(base)
    assert dimensions.slug(changed) != dimensions.slug(base)
    assert (dimensions.key(changed) != dimensions.key(base)) == dimension.key
    differs = dimensions.key(changed, dimensions.SCENARIO_KEY) != dimensions.key(base, dimensions.SCENARIO_KEY)
    assert differs == (dimension.key and not dimension.across_reps)
    assert dimensions.is_variant(changed) == bool(dimension.plain)


def test_a_csv_line_reads_back_as_the_row_it_was_measured_as():
    for _, row in every_profile_row():
        cells = {name: table.format_value(value) for name, value in dimensions.values(row).items()}
        assert dimensions.parse(cells) == row


def test_an_older_csv_without_a_dimension_reads_its_default(tmp_path):
    path = tmp_path / "matrix.csv"
    header = [c for c in table.COLUMNS if c not in ("pool_impl", "context", "workload")]
    path.write_text(",".join(header) + "\n" + ",".join("1" if c == "concurrency" else "" for c in header) + "\n")
    (line,) = table.read_rows(path)
    assert (line["pool_impl"], line["context"], line["workload"], line["tomcat_max_threads"]) == (
        "hikari", "none", "order-summary", "200")
    assert dimensions.parse(line).concurrency == 1
