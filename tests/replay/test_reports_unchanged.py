"""Every recorded run's derived files (tests/recorded/: analysis.csv, report.md, report.json), rendered with today's
code, byte for byte as committed in tests/recorded/derived.sha256: a change meant to leave behaviour alone (a
refactoring) proves it here, on the figures real runs gave.

A change that means to move a verdict or a sentence writes the digests again, in the same commit, with
`VTLAB_WRITE_DIGESTS=1 ./vtlab test -k reports_unchanged`; the replays (test_replays.py) still say whether each
proof holds."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from vtlab.report import render

RECORDED = Path(__file__).resolve().parents[1] / "recorded"
DIGESTS = RECORDED / "derived.sha256"
DERIVED = ("analysis.csv", "report.md", "report.json")
FOLDERS = sorted(path.parent.relative_to(RECORDED).as_posix() for path in RECORDED.glob("*/*/matrix.csv"))


def _digests(folder: str, tmp_path: Path) -> dict[str, str]:
    work = tmp_path / folder
    shutil.copytree(RECORDED / folder, work)
    for name in (*DERIVED, "report.html", "charts.json"):
        (work / name).unlink(missing_ok=True)
    render.render(work)
    return {f"{folder}/{name}": hashlib.sha256((work / name).read_bytes()).hexdigest() for name in DERIVED}


def _committed() -> dict[str, str]:
    lines = DIGESTS.read_text().splitlines() if DIGESTS.exists() else []
    return dict(reversed(line.split("  ", 1)) for line in lines if line.strip())  # sha256sum's "digest  name"


def test_every_recorded_runs_reports_are_as_committed(tmp_path):
    found = {key: digest for folder in FOLDERS for key, digest in _digests(folder, tmp_path).items()}
    if os.environ.get("VTLAB_WRITE_DIGESTS") == "1":
        DIGESTS.write_text("".join(f"{digest}  {key}\n" for key, digest in sorted(found.items())))
        pytest.skip(f"wrote {DIGESTS}")
    committed = _committed()
    changed = sorted(key for key in found if committed.get(key) != found[key])
    assert not changed, (f"derived differently from the committed digests: {', '.join(changed)}. A change meant to "
                         "move them writes them again: VTLAB_WRITE_DIGESTS=1 ./vtlab test -k reports_unchanged")
    assert set(committed) == set(found), "a recorded run added or gone: write the digests again"


def test_every_recorded_run_is_among_them():
    assert len(FOLDERS) >= 20 and "gc/run" in FOLDERS and "writes/lossy" in FOLDERS
