from pathlib import Path

from vtlab import load

FIXTURE = Path(__file__).parent / "fixtures" / "k6-summary.json"


def test_summary_reads_hold_phase_submetrics():
    result = load.read_summary(FIXTURE, exit_code=0)
    assert (result.ok_half_a, result.ok_half_b) == (114, 113)
    assert result.ok_requests == 227
    assert result.requests == 227
    assert result.error_rate == 0
    assert result.p50_ms <= result.p95_ms <= result.p99_ms <= result.p999_ms <= result.max_ms
    assert result.throughput(hold_s=2) == 113.5


def test_open_model_preallocates_for_the_rate():
    assert load.vus_for("open", 0, 100) == 200
    assert load.vus_for("closed", 400, 0) == 400


def test_phases_add_up():
    spec = load.LoadSpec("http://x", "closed", 10, 0, 5, 20, 30, 100)
    assert spec.hold_start_s == 25
    assert spec.duration_s == 5 + 20 + 30 + 3
    # a slow workload's cool-down lets the hold's last requests finish inside the run
    assert load.LoadSpec("http://x", "closed", 10, 0, 5, 20, 30, 100, cooldown_s=35).duration_s == 90
