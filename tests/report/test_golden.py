"""Golden tests: committed runs re-analysed give the committed analysis.csv and report.md, value for
value. A deliberate change to a verdict or a sentence updates `expected/` in the same commit, where
the diff shows exactly what moved."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vtlab.report import render

FIXTURES = Path(__file__).parents[1] / "fixtures"
RUNS = sorted(path.parent for path in FIXTURES.glob("*/expected"))


@pytest.mark.parametrize("fixture", RUNS, ids=[path.name for path in RUNS])
@pytest.mark.parametrize("name", ["analysis.csv", "report.md"])
def test_a_committed_run_reports_as_it_did(fixture, name, tmp_path):
    run_dir = tmp_path / fixture.name
    run_dir.mkdir()
    for part in ("matrix.csv", "metadata.json"):
        shutil.copy(fixture / part, run_dir / part)
    render.render(run_dir)
    assert (run_dir / name).read_text() == (fixture / "expected" / name).read_text()


def test_every_golden_fixture_is_found():
    assert {path.name for path in RUNS} >= {"quick-run", "doctored-scenarios"}
