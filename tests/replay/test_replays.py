"""Every live proof's assertions, replayed on the run folder it recorded (tests/recorded/): today's analysis and
report derived again from the figures a real run measured, in seconds and the same on any machine.

tests/recorded/README.md names the live test that recorded each folder, with its commit and machine;
`./vtlab test --live --record` records them again."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import proofs
import pytest
from recordings import replayed

# proof (its folder under tests/recorded/), the assertions of its live test, the run folders they read
REPLAYS: tuple[tuple[str, Callable[..., object], tuple[str, ...]], ...] = (
    ("tiny-matrix", proofs.tiny_matrix, ("run",)),
    ("interrupted-resumed", proofs.interrupted_and_resumed, ("run",)),
    ("faults", proofs.survived_faults, ("run",)),
    ("settled-warm-up", proofs.settled_warm_up, ("run",)),
    ("jep491", proofs.jep491, ("run",)),
    ("writes", proofs.writes, ("honest", "lossy")),
    ("variants", proofs.variants, ("run",)),
    ("spike", proofs.spike, ("run",)),
    ("stall", proofs.stall, ("run",)),
    ("failures", proofs.failures, ("run",)),
    ("gc", proofs.gc, ("run",)),
    ("out-of-memory", proofs.out_of_memory, ("thrashing", "thrown")),
    ("overload", proofs.overload, ("run",)),
    ("load-generator", proofs.load_generator, ("run",)),
    ("memory-probe", proofs.memory_probe, ("run",)),
    ("generic-path", proofs.generic_path, ("builtin", "generic")),
    ("users-script", proofs.users_script, ("script",)),
    ("url-service", proofs.url_service, ("url",)),
    ("runners-merged", proofs.runners_merged, ("one", "three")),
    ("tiers-apart", proofs.tiers_apart, ("apart",)),
)


@pytest.mark.parametrize(("proof", "check", "folders"), REPLAYS, ids=[proof for proof, _, _ in REPLAYS])
def test_a_live_proof_holds_on_the_run_it_recorded(proof, check, folders, tmp_path):
    check(*(replayed(proof, tmp_path, folder) for folder in folders))


def test_every_recording_is_replayed_and_every_replay_recorded():
    from recordings import RECORDED

    recorded = {path.name for path in RECORDED.iterdir() if path.is_dir()}
    assert recorded == {proof for proof, _, _ in REPLAYS}


def scaled(column: str, factor: float) -> Callable[[Path], None]:
    """A doctor for a recorded folder: every measured row's `column` times `factor`, written back as the rig would."""
    def doctor(run_dir: Path) -> None:
        from vtlab.results import table

        path = run_dir / table.CSV_NAME
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            fields, rows = reader.fieldnames, list(reader)
        for row in rows:
            if row[column]:
                row[column] = f"{float(row[column]) * factor:g}"
        with open(path, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
    return doctor


def test_a_replay_derives_the_verdict_again_and_fails_where_the_figures_no_longer_show_it(tmp_path):
    # the gc proof's row with a tenth of its pauses: the collector no longer holds the service for a tenth of the
    # hold, today's analysis names something else, and the replay fails as the live proof would
    doctored = replayed("gc", tmp_path, doctor=scaled("gc_pause_ms", 0.1))
    [verdict] = proofs.verdicts_of(doctored)
    assert verdict["bottleneck"] != "gc", verdict
    with pytest.raises(AssertionError):
        proofs.gc(doctored)


def test_a_run_recorded_before_the_scrape_was_counted_reads_not_measured_and_keeps_its_costs(tmp_path):
    # tiny-matrix's CSV has no scrape columns: its figures per request are told as recorded (5.328 and 6.496 ms of
    # CPU, 78.863 and 350.065 KiB), nothing taken out, and the rig's scrape is said not measured
    report = (replayed("tiny-matrix", tmp_path) / "report.md").read_text()
    assert "| released, pool 50, 20 users | service CPU | 5.328 ms | 6.496 ms | +1.168 ms |" in report
    assert "| released, pool 50, 20 users | allocated | 78.9 KiB | 350.1 KiB | +271.2 KiB |" in report
    assert "released, pool 50, 20 users: the rig's scrape: not measured" in report
