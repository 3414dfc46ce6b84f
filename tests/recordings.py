"""Recorded live runs: kept by `./vtlab test --live --record`, replayed by every `./vtlab test`.

A live proof measures on the real tiers and then asserts on its run folder. With --record, a proof that passed keeps
that folder under tests/recorded/<proof>/ — trimmed to what the analysis, the report and the assertions read — and
appends a line to tests/recorded/README.md: the command that recorded it, the commit, the machine. A replay copies
the folder aside, drops what the analysis derived (analysis.csv, the report), renders it again with today's code and
makes the same assertions: a rule that breaks shows in seconds, on the figures a real run gave."""

from __future__ import annotations

import datetime
import fnmatch
import os
import platform
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
RECORDED = TESTS / "recorded"
INDEX = RECORDED / "README.md"
# What a replay never reads: the raw recordings (JFR, async-profiler's own), the tiers' logs (a failed row keeps its
# last lines in the CSV), the drawn pages (the report is drawn again; flame graphs and k6's dashboards are checked
# live), k6's generated scripts (they import the recording checkout's own files by path). analysis.csv and report.md
# stay, to read what the live run said; the replay derives them again.
TRIMMED = ("*.jfr", "*.jfr.gz", "*.html", "*.js", "logs", "aot", "*.aot", "chromium-profile", "report.json",
           "charts.json", "*.png", "*.svg")
HEADER = """# Recorded live runs

Each folder is the run folder a live proof (tests/e2e/) measured and passed on, trimmed to what its replay reads
(tests/replay/: the analysis and report derived again, the proof's own assertions from tests/proofs.py). Recorded by
`./vtlab test --live --record`; one line a proof, rewritten when it is recorded again. derived.sha256 holds what
today's code derives from each (analysis.csv, report.md, report.json: tests/replay/test_reports_unchanged.py); a new
recording or a change meant to move a report writes it again: `VTLAB_WRITE_DIGESTS=1 ./vtlab test -k reports_unchanged`.

| proof | recorded by | commit | machine | date |
|---|---|---|---|---|
"""
DERIVED = ("analysis.csv", "report.md", "report.html", "report.json", "charts.json")


def keep(request: pytest.FixtureRequest, proof: str, *run_dirs: Path) -> None:
    """Under --record, keep `run_dirs` (one folder each, by name) as the recording of `proof`; else nothing.
    Called as a live proof's last line, so only a proof that passed is recorded."""
    if not request.config.getoption("--record"):
        return
    target = RECORDED / proof
    shutil.rmtree(target, ignore_errors=True)
    for run_dir in run_dirs:
        shutil.copytree(run_dir, target / run_dir.name, ignore=_trimmed)
        for metadata in (target / run_dir.name).rglob("metadata.json"):
            # paths into the recording checkout (a user's jar built there) mean nothing in another clone: kept
            # relative to the repository
            metadata.write_text(metadata.read_text().replace(f"{TESTS.parent}/", ""))
    _index(proof, request.node.nodeid)


def _trimmed(folder: str, names: list[str]) -> set[str]:
    return {name for name in names if any(fnmatch.fnmatch(name, pattern) for pattern in TRIMMED)}


def _index(proof: str, nodeid: str) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=TESTS, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    if subprocess.run(["git", "status", "--porcelain", "--", "src", "services", "load"], cwd=TESTS.parent,
                      capture_output=True, text=True).stdout.strip():
        commit += " (+ changes not committed)"  # the code that measured is not that commit's alone
    line = (f"| {proof} | `./vtlab test --live --record -k {nodeid.rsplit('::', 1)[-1]}` | {commit} | "
            f"{_machine()} | {datetime.date.today().isoformat()} |")
    kept = [row for row in INDEX.read_text().splitlines() if not row.startswith(f"| {proof} |")] if INDEX.exists() \
        else HEADER.splitlines()
    INDEX.write_text("\n".join([*kept, line]) + "\n")


def _machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown CPU")
    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def replayed(proof: str, tmp_path: Path, name: str = "run",
             doctor: Callable[[Path], None] | None = None) -> Path:
    """The recorded run folder `name` of `proof`, copied aside, with what the analysis derived removed and derived
    again by today's analysis and report (after `doctor` changed the copy, where given)."""
    from vtlab.report import render

    source = RECORDED / proof / name
    if not source.exists():
        pytest.fail(f"{proof}: no recording at {source.relative_to(TESTS.parent)} "
                    "(./vtlab test --live --record makes it)")
    run_dir = tmp_path / proof / name
    shutil.copytree(source, run_dir)
    for derived in DERIVED:
        path = run_dir / derived
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    if doctor is not None:
        doctor(run_dir)
    render.render(run_dir, [])
    return run_dir
