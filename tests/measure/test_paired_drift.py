"""The paired design against a machine whose speed moves under the rows: a simulated service, measured through the
real row loop, CSV and analysis, whose every figure is its true throughput times the host's speed over its hold. The
host steps down or swings slowly; the rows taken one mode after the other are off by the drift, the paired ratio is
not, and an A/A through the same design holds 1.00×."""

import math
from pathlib import Path

import pytest

from vtlab.core import dimensions
from vtlab.explain import analyze
from vtlab.measure import loop
from vtlab.measure.target import Turn
from vtlab.plan import planner
from vtlab.report import ratio
from vtlab.results import record, table

from rows import BASE
from test_loop import Recorded

HOLD_S = 30
BLOCK_S = 60  # a block's ramp, warm-up and hold: its hold is its last HOLD_S seconds
TRUTH = {"platform": 60.0, "virtual": 90.0}  # req/s at full speed; virtual ÷ platform 1.5


def step_down(at_s: float):
    return lambda t: 1.0 if t < at_s else 0.7


def slow_sine(period_s: float):
    """±25% over `period_s`. Over 30 blocks the pairs' ABBA balance leaves under 1% (8 seeds); over 10 blocks, where a
    pair's two blocks already see speeds 15% apart, up to 7%: a block must be short beside the drift."""
    return lambda t: 1.0 + 0.25 * math.sin(2 * math.pi * t / period_s)


class DriftingService:
    """A target whose each row lasts `seconds` of a simulated clock; what it serves over its hold is its mode's true
    rate times the host's mean speed over those seconds."""

    def __init__(self, speed, seconds=BLOCK_S):
        self.speed, self.seconds, self.clock = speed, seconds, 0.0

    def prepare(self, plan, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)

    def describe(self):
        return {}

    def measure(self, turn: Turn, progress) -> dict[str, object]:
        start, self.clock = self.clock + self.seconds - HOLD_S, self.clock + self.seconds
        steps = 300
        mean_speed = sum(self.speed(start + HOLD_S * (i + 0.5) / steps) for i in range(steps)) / steps
        rps = TRUTH[turn.row.thread_mode] * mean_speed
        cells = {**BASE, **dimensions.values(turn.row), "throughput_rps": rps, "http_reqs": round(rps * HOLD_S),
                 "ok_requests": round(rps * HOLD_S), "throughput_first_half_rps": rps,
                 "throughput_second_half_rps": rps, "hold_s": HOLD_S}
        return {**{column: "" for column in table.COLUMNS}, **cells}

    def reporter(self, rows: int) -> Recorded:  # ShowsItsRows: no live line in a test
        return Recorded()

    def close(self) -> None:
        pass


def measured(tmp_path: Path, plan: planner.Plan, speed, seconds=BLOCK_S):
    run_dir = tmp_path / "run"
    loop.run(DriftingService(speed, seconds), plan, run_dir)
    rows = table.read_rows(run_dir / table.CSV_NAME)
    return analyze.analyse(rows, record.read(run_dir))


def sequential_ratio(tmp_path, speed) -> float:
    """Each mode one hold as long as the paired plan's blocks together, one after the other (today's design)."""
    plan = planner.build("quick", planner.Overrides(concurrency=(100,), conn_modes=("released",), reps=1))
    analysis = measured(tmp_path, plan, speed, seconds=4 * BLOCK_S)
    p, v = (next(a for a in analysis.aggregates if a.row.thread_mode == mode) for mode in ("platform", "virtual"))
    return ratio.between(p, v).value


def paired_point(tmp_path, speed, seed=5, **given):
    plan = planner.build("quick", planner.Overrides(concurrency=(100,), conn_modes=("released",), blocks=4,
                                                    pair_seed=seed, **given))
    (point,) = measured(tmp_path, plan, speed).paired
    return point


@pytest.mark.parametrize("speed", [step_down(4 * BLOCK_S), slow_sine(30 * BLOCK_S)], ids=["step", "sine"])
def test_the_paired_ratio_stays_within_2_percent_where_sequential_rows_are_off_by_the_drift(tmp_path, speed):
    truth = TRUTH["virtual"] / TRUTH["platform"]
    sequential = sequential_ratio(tmp_path / "seq", speed)
    assert abs(sequential / truth - 1) > 0.05  # the drift, read as the thread modes' difference
    for seed in range(6):  # whatever order the couples were drawn in
        point = paired_point(tmp_path / f"paired{seed}", speed, seed, paired=True)
        assert point.ratio == pytest.approx(truth, rel=0.02), seed
        assert point.low <= truth <= point.high


def test_a_step_inside_a_pair_widens_the_interval_rather_than_moving_the_answer_unseen(tmp_path):
    truth = TRUTH["virtual"] / TRUTH["platform"]
    point = paired_point(tmp_path, step_down(3 * BLOCK_S), paired=True)  # between the blocks of the second pair
    assert point.low <= truth <= point.high
    assert point.half_width_share() > 0.10


@pytest.mark.parametrize("speed", [step_down(4 * BLOCK_S), slow_sine(30 * BLOCK_S)], ids=["step", "sine"])
def test_an_aa_through_the_same_design_holds_one(tmp_path, speed):
    point = paired_point(tmp_path, speed, aa="virtual")
    assert point.contains_one
    assert point.ratio == pytest.approx(1.0, rel=0.02)
