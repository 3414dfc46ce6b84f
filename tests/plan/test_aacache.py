"""This machine's A/A floor: each A/A point's false difference (how far from 1.00× its ratio lay), kept in the
machine's cache for the paired runs after it, another machine's or a month-old point never read, and a paired plan
made with it, its record reading it back. Every figure worked by hand."""

import argparse
import datetime
import json
import math

import pytest

from vtlab.cli import flags, run
from vtlab.core import cores
from vtlab.core.aafloor import AA, Floor
from vtlab.plan import aacache, calibration
from vtlab.results import record
from vtlab.results.record import PlanRecord

from rows import META

NOW = datetime.datetime(2026, 12, 2, 7, 0, tzinfo=datetime.timezone.utc)


def aa(low, high, ratio=1.0, pairs=3, days_ago=0.0, point="virtual, released, pool 50, 1,000 users", now=NOW):
    at = (now - datetime.timedelta(days=days_ago)).isoformat(timespec="seconds")
    return AA(at, "/runs/aa", point, ratio, low, high, pairs)


def test_a_false_difference_is_how_far_from_one_the_ratio_lay_either_way():
    assert aa(0.96, 1.00, ratio=0.98).false_difference == pytest.approx(1 / 0.98 - 1)  # 2.0408%
    assert aa(1.00, 1.04, ratio=1.02).false_difference == pytest.approx(0.02)
    assert aa(0.83, 1.25, ratio=1.02).false_difference == pytest.approx(0.02)  # two pairs' wide interval: no wider
    assert not aa(1.01, 1.02, ratio=1.015).holds_one
    floor = Floor("m", (aa(0.96, 1.00, ratio=0.98), aa(0.93, 0.97, ratio=0.95), aa(0.99, 1.03, ratio=1.01)))
    assert floor.share == pytest.approx(1 / 0.95 - 1) and floor.widest.ratio == 0.95  # 5.263%
    assert floor.held_one == 2
    low, high = floor.band()
    assert (low, high) == pytest.approx((0.95, 1 / 0.95))


def test_a_ratio_within_the_floor_lies_in_its_band_either_way():
    floor = Floor("m", (aa(0.96, 1.00, ratio=0.98),))  # band 0.98–1.0204
    assert floor.holds(1.0125) and floor.holds(0.981) and floor.holds(1.0)
    assert not floor.holds(1.03) and not floor.holds(0.90) and not floor.holds(0.979)
    assert not Floor("m").holds(1.0) and math.isnan(Floor("m").share)  # nothing measured: the interval's word


def test_a_resumed_aa_s_points_replace_its_earlier_ones():
    count = len(cores.available())
    aacache.add(count, [aa(0.90, 1.10, ratio=1.05, point="p1"), aa(0.90, 1.10, ratio=1.01, point="p2")], NOW)
    kept = aacache.add(count, [aa(0.95, 1.05, ratio=1.02, point="p1")], NOW)  # the same run folder and point
    assert [(a.point, a.ratio) for a in kept.measured] == [("p2", 1.01), ("p1", 1.02)]


def test_an_aa_s_points_are_kept_for_this_machine_and_read_back():
    count = len(cores.available())
    assert not aacache.load(count, NOW).known  # a clean cache (the units' own): none measured
    kept = aacache.add(count, [aa(0.98, 1.02), aa(math.nan, math.nan, ratio=math.nan), aa(0.9, 1.1, pairs=1)], NOW)
    assert [(a.low, a.high) for a in kept.measured] == [(0.98, 1.02)]  # no interval, one pair: nothing to keep
    read = aacache.load(count, NOW)
    assert read == kept and read.machine == calibration.machine_key(count)
    assert json.loads(aacache.path_for(count).read_text())["measured"][0]["pairs"] == 3


def test_only_the_newest_points_of_the_last_month_are_read():
    count = len(cores.available())
    aacache.add(count, [aa(0.9, 1.1, days_ago=40)], NOW)
    assert not aacache.load(count, NOW).known  # older than calibration.MAX_AGE_DAYS
    aacache.add(count, [aa(0.99, 1.02, ratio=1.0 + step / 1000) for step in range(1, aacache.KEPT + 3)], NOW)
    ratios = [a.ratio for a in aacache.load(count, NOW).measured]
    assert len(ratios) == aacache.KEPT and ratios[-1] == pytest.approx(1.0 + (aacache.KEPT + 2) / 1000)


def test_another_machine_s_floor_is_not_this_one_s():
    count = len(cores.available())
    path = aacache.path_for(count)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(Floor("another machine", (aa(0.96, 1.00, ratio=0.98),)).describe()))
    assert not aacache.load(count, NOW).known
    path.write_text("not json")
    assert not aacache.load(count, NOW).known


def _plan(argv):
    parser = argparse.ArgumentParser(prog="vtlab")
    run.add(parser.add_subparsers(dest="command", required=True))
    return flags.plan_of(parser.parse_args(["run", *argv]), None, on_this_machine=True)


def test_a_paired_plan_records_the_floor_it_was_made_with_and_a_sequential_one_none():
    count = len(cores.available())
    described = _plan([]).describe()["paired"]  # the default run pairs
    assert described["aa_floor"] == {"machine": calibration.machine_key(count), "measured": []}
    today = datetime.datetime.now(datetime.timezone.utc)  # plan_of reads the cache by the clock
    aacache.add(count, [aa(0.96, 1.00, ratio=0.98, now=today)], today)
    recorded = record.from_dict({**META, "plan": json.loads(json.dumps(_plan([]).describe()))}).plan
    assert recorded.aa_floor is not None and recorded.aa_floor.share == pytest.approx(1 / 0.98 - 1)
    assert "paired" not in _plan(["--sequential"]).describe()
    older = PlanRecord(**{**{key: value for key, value in _plan([]).describe().items()
                             if key in PlanRecord.__dataclass_fields__}, "paired": {"a": "platform", "b": "virtual"}})
    assert older.aa_floor is None  # a run from before the floor was recorded: not looked for


def test_an_aa_run_s_report_leaves_its_points_with_an_interval_to_the_machine(tmp_path, capsys):
    from vtlab.cli.report import keep_aa_floor
    from vtlab.core import dimensions
    from vtlab.core.dimensions import Row

    def told(users, ratio, low, high, left_out=(None, None, None), aa_run=True):
        row = Row(thread_mode="virtual", concurrency=users, conn_mode="released", hikari_pool=50)
        return {"row": dimensions.values(row),
                "arms": {"a": "virtual", "b": "virtual", "aa": aa_run}, "ratio": ratio, "low": low, "high": high,
                "pairs": [{"block": i + 1, "left_out": out} for i, out in enumerate(left_out)]}
    (tmp_path / "report.json").write_text(json.dumps({"paired": [
        told(1000, 1.01, 0.99, 1.03), told(100, 1.0, None, None, (None, "stall", "stall")),
        told(400, None, None, None)]}))
    keep_aa_floor(tmp_path)
    kept = aacache.load(len(cores.available()))
    assert [(a.point, a.low, a.high, a.pairs) for a in kept.measured] == [
        ("virtual, released, pool 50, 1,000 users", 0.99, 1.03, 3)]
    assert "this machine's A/A floor, kept for its later paired runs: up to ±1.0% over 1 A/A point(s), 1 holding " \
           "1.00×" in capsys.readouterr().out
    (tmp_path / "report.json").write_text(json.dumps({"paired": [told(1000, 1.5, 1.4, 1.6, aa_run=False)]}))
    keep_aa_floor(tmp_path)  # platform against virtual: no A/A, nothing kept
    assert len(aacache.load(len(cores.available())).measured) == 1
