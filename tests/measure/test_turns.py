"""A paired point's blocks in turns (measure.turns): a block cut from its arm's series by its times and tagged as a
row's hold, kept in the k6 output's form; which plans take turns and how the loop groups a point's blocks; and the
gate itself, in a real k6 against a real socket: no request outside its arm's turn, a turn's first requests spread."""

from __future__ import annotations

import http.server
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from vtlab.core.arms import point_key
from vtlab.measure import load, loop, turncut
from vtlab.measure.target import TakesTurns, Turn
from vtlab.plan import blockturns, planner
from vtlab.rig import build, ownership
from vtlab.series import store

ON = 1_800_000_000.0  # a turn's start, Unix s


def request(start_s: float, duration_ms: float, ok: bool = True) -> store.Request:
    return store.Request(start_s + duration_ms / 1000, duration_ms, "200" if ok else "503", "warmup", "none", ok)


def test_a_block_is_the_requests_begun_in_its_turn_on_its_own_clock_its_hold_tagged_by_halves():
    taken = turncut.Taken(turncut.Block(0, "b", 1.0, 3.0), ON, (ON + 3, ON + 13), ON + 13, ON + 14.5)
    arm = store.K6Series([request(ON - 0.5, 100),      # the other turn's: before this one began
                          request(ON + 1, 1000),       # settle
                          request(ON + 3, 200),        # the hold's first half begins at 3 s
                          request(ON + 7.999, 900),    # ... ends before 8 s
                          request(ON + 8, 50, ok=False),  # the second half from 8 s
                          request(ON + 12.9, 1500),    # begun in the hold, ended in the drain: the hold's
                          request(ON + 13.2, 10),      # begun as the turn ended: the cool-down's
                          request(ON + 20, 10)],       # a later turn's
                         vus=[(ON - 1, 50), (ON + 5, 50), (ON + 30, 50)])
    block = turncut.cut(arm, taken)
    assert [(round(r.start_s, 3), r.phase, r.half) for r in block.requests] == [
        (1.0, "warmup", "none"), (3.0, "hold", "a"), (7.999, "hold", "a"), (8.0, "hold", "b"), (12.9, "hold", "b"),
        (13.2, "cooldown", "none")]
    assert block.vus == [(5.0, 50)]
    result = store.load_result(block, 0)
    assert (result.requests, result.ok_requests, result.ok_half_a, result.ok_half_b) == (4, 3, 2, 1)


def test_a_cut_block_written_in_the_k6_outputs_form_reads_back_as_it_was_cut(tmp_path):
    block = store.K6Series([store.Request(1.2345678, 123.456789012, "200", "hold", "a", True),
                            store.Request(2.5, 0.1 + 0.2, "0", "cooldown", "none", False)], vus=[(1.0, 7)])
    path = tmp_path / "x.k6.csv.gz"
    store.write_k6(path, block, 1_800_000_000_123, note="turn")
    back = store.read_k6(path)
    assert store.k6_start_unix_ms(path) == 1_800_000_000_123
    assert [(r.duration_ms, r.status, r.phase, r.half, r.ok) for r in back.requests] == [
        (123.456789012, "200", "hold", "a", True), (0.30000000000000004, "0", "cooldown", "none", False)]
    assert [round(r.end_s, 6) for r in back.requests] == [1.234568, 2.5] and back.vus == [(1.0, 7)]


def paired(**given) -> planner.Plan:
    return planner.build("quick", planner.Overrides(**{"paired": True, "concurrency": (100, 400),
                                                       "conn_modes": ("released",), "blocks": 2, **given}))


def test_a_paired_plan_of_steady_closed_loads_takes_turns_and_one_that_cannot_does_not():
    assert blockturns.fits(paired())
    assert not blockturns.fits(planner.build("quick", planner.Overrides(concurrency=(100,), conn_modes=("released",))))
    assert not blockturns.fits(paired(runners=2))       # one k6 per arm
    assert not blockturns.fits(paired(workloads=("write",)))  # a block's writes are counted in the shared database
    assert not blockturns.fits(planner.build("quick", planner.Overrides(paired=True, model="open", rates=(100,),
                                                                   conn_modes=("released",), blocks=2)))


class Both:
    """A target that takes turns (its measure_point) and measures a row alone too (measure)."""

    def measure_point(self, point, progress):
        return []

    def measure(self, turn, progress):
        return {}


def test_the_loop_takes_a_paired_points_blocks_together_in_the_plans_order():
    plan = paired()
    todo = [Turn(row, position, position, 0) for position, row in enumerate(plan.rows)]
    assert isinstance(Both(), TakesTurns)
    grouped = loop.points(todo, plan, takes_turns=True)
    assert [len(point) for point in grouped] == [4, 4]
    assert [turn for point in grouped for turn in point] == todo
    assert all(len({point_key(turn.row) for turn in point}) == 1 for point in grouped)
    assert [len(point) for point in loop.points(todo, plan, takes_turns=False)] == [1] * 8
    # a resumed point's one block left is measured as a row of its own
    assert [len(point) for point in loop.points(todo[3:], plan, takes_turns=True)] == [1, 4]


def test_a_turns_unrecorded_start_is_the_spread_and_a_margin():
    assert blockturns.settle_s(2.0) == pytest.approx(2.0 + blockturns.TURN_SETTLE_S)


def test_a_block_its_arms_last_went_on_into_is_bounded_by_its_hold_alone():
    plan = paired(concurrency=(100,))
    arms = [plan.arm(row) for row in plan.rows]
    assert len(arms) == 4 and arms[1] == arms[2] and arms[0] == arms[3] != arms[1]  # AB BA or BA AB
    wait, hold, warmup = 1.05, plan.hold_s, plan.warmup_s
    spread = 2  # 100 users over one 1.05 s wait, as a ramp's whole seconds; 100 users fit the platform's 200 threads
    first = spread + warmup + hold + wait + 1         # an arm's first turn: its settle up to the warm-up's bound
    later = (spread + 1) + hold + wait + 1            # the spread and TURN_SETTLE_S; its hold; a drain
    assert blockturns.bound_s(plan) == pytest.approx(first + first + hold + later)


class _Slow(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 (the stdlib's name)
        time.sleep(0.1)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    running = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{running.server_port}"
    running.shutdown()


def _gate(path: Path, turn_id: int) -> None:
    path.with_name("part").write_text(f"{turn_id}\n")
    os.replace(path.with_name("part"), path)


def test_k6s_users_send_nothing_outside_their_arms_turn_and_spread_a_turns_first_requests(server, tmp_path):
    if build.find_k6() is None:
        pytest.skip("k6 not built yet (./vtlab setup builds it; ./vtlab test builds it before pytest)")
    spec = load.LoadSpec(server, "closed", 20, 0, 1, 1, 10, 100, workload="sleep")
    gate = tmp_path / "turn"
    _gate(gate, 0)
    [runner] = load.start_runners(build.K6_BIN, spec, 1, tmp_path / "s.json", tmp_path / "k6.log", None,
                                  tmp_path / "x.k6.csv.gz", turns=load.Turns(gate, 800, 60))
    try:
        time.sleep(2.5)  # the users set up and waiting
        turns_run = []
        for length in (3.0, 2.0):
            on = time.time()
            _gate(gate, int(on * 1000))
            time.sleep(length)
            _gate(gate, 0)
            turns_run.append((on, time.time()))
            time.sleep(1.5)
        runner.proc.send_signal(signal.SIGINT)
        runner.proc.wait(timeout=30)
    finally:
        ownership.release(runner.proc.pid)
    starts = sorted(r.start_s for r in store.read_k6(runner.series, store.k6_start_unix_s(runner.series)).requests)
    # a user past the gate as it shut sends its request within the watcher's poll of the turn's end
    outside = [s for s in starts if not any(on <= s <= off + 0.1 for on, off in turns_run)]
    assert starts and not outside, outside
    for on, _ in turns_run:
        first_second = [s - on for s in starts if on <= s < on + 1.0]
        # 20 users spread over 0.8 s: their first requests fall across it, not in one instant
        assert len(first_second) >= 20 and max(s for s in first_second if s < 0.8) - min(first_second) > 0.4
