"""The between-run noise floor is read from the committed runs of one point: the largest spread of any point,
with how many runs gave it. Every expected number is worked out by hand."""

from __future__ import annotations

import csv
import json
import math

import pytest

from vtlab.core import constants, noisefloor
from vtlab.results import record


def runs(folder, *throughputs, **cells):
    """One run folder: its matrix.csv, the same point once per throughput (a rep each), and the metadata.json whose
    plan names the row's dimensions."""
    folder.mkdir(parents=True)
    plan = [{"thread_mode": "virtual", "concurrency": 400, "rep": rep} for rep in range(1, len(throughputs) + 1)]
    (folder / "metadata.json").write_text(json.dumps({"plan": {"rows": plan}}))
    with open(folder / "matrix.csv", "w", newline="") as handle:
        named = ["thread_mode", "concurrency", "rep", "throughput_rps", "failed_tier"]
        out = csv.DictWriter(handle, [*named, *(name for name in cells if name not in named)])
        out.writeheader()
        for rep, rps in enumerate(throughputs, start=1):
            out.writerow({"thread_mode": "virtual", "concurrency": "400", "rep": rep, "throughput_rps": rps,
                          "failed_tier": "", **cells})


def test_the_floor_is_the_point_whose_runs_spread_most(tmp_path):
    runs(tmp_path / "calm", 400, 402, 398)          # mean 400, s = 2: CV 0.5%
    runs(tmp_path / "busy", 1800, 1700, 1900, 1800)  # mean 1800, s = √(2 × 100² / 3) = 81.65: CV 4.536%
    floor = noisefloor.measured(tmp_path)
    assert floor.cv_pct == pytest.approx(4.536, abs=1e-3) and floor.runs == 4
    assert [p.floor.runs for p in noisefloor.points(tmp_path)] == [4, 3]  # folders in name order


def test_points_differ_in_a_dimension_the_plan_names_and_not_in_the_rep(tmp_path):
    runs(tmp_path / "two", 100, 104, 200, 190)
    cells = (tmp_path / "two" / "matrix.csv").read_text().splitlines()
    # the last two runs are of another point: 800 users (a dimension), whatever their rep says
    cells[3:] = [line.replace(",400,", ",800,") for line in cells[3:]]
    (tmp_path / "two" / "matrix.csv").write_text("\n".join(cells) + "\n")
    got = {point.name: point.values for point in noisefloor.points(tmp_path)}
    assert got == {"two: thread_mode virtual, concurrency 400": (100, 104),
                   "two: thread_mode virtual, concurrency 800": (200, 190)}


def test_a_point_run_once_or_a_dead_tiers_row_is_no_run(tmp_path):
    runs(tmp_path / "once", 400)
    with pytest.raises(ValueError, match="no point run twice"):
        noisefloor.measured(tmp_path)
    runs(tmp_path / "died", 200, 100, failed_tier="")
    assert noisefloor.measured(tmp_path).cv_pct == pytest.approx(47.14, abs=0.01)  # 150 ± 70.71
    # a row a tier died in is no run even with a throughput in it, nor is one without a finite throughput
    (tmp_path / "died" / "matrix.csv").write_text("thread_mode,concurrency,rep,throughput_rps,failed_tier\n"
                                                  "virtual,400,1,200,\nvirtual,400,2,100,service\n"
                                                  "virtual,400,3,nan,\n")
    with pytest.raises(ValueError):
        noisefloor.measured(tmp_path)


def test_the_committed_floor_is_the_rigs_and_travels_with_the_run():
    # reference/noise-floor/: the hero point's five runs, 1,816.3 · 1,943.2 · 1,891.3 · 1,937.6 · 1,925.7 req/s,
    # mean 1,902.8, s = 52.42: CV 2.755% (its README); re-measuring the floor changes this line on purpose
    assert constants.CURRENT.noise_floor_cv_pct == pytest.approx(2.755, abs=0.001)
    assert constants.CURRENT.noise_floor_runs == 5
    judged = record.from_dict({"rig": {**constants.record(), "noise_floor_cv_pct": 3.0, "noise_floor_runs": 4}}).rig
    assert (judged.noise_floor_cv_pct, judged.noise_floor_runs) == (3.0, 4)
    with pytest.raises(record.MalformedRecord, match="noise_floor_runs"):  # one run spreads over nothing
        record.from_dict({"rig": {"noise_floor_runs": 1}})


def test_allocation_has_a_floor_of_its_own_where_the_runs_recorded_it(tmp_path):
    runs(tmp_path / "calm", 400, 402, 398)  # the throughput barely moves ...
    rows = (tmp_path / "calm" / "matrix.csv").read_text().splitlines()
    rows[0] += ",alloc_kb_per_req"
    rows[1:] = [line + f",{kib}" for line, kib in zip(rows[1:], (90, 110, 100), strict=True)]
    (tmp_path / "calm" / "matrix.csv").write_text("\n".join(rows) + "\n")
    # ... while the allocation does: mean 100, s = 10, CV 10% over 3 runs
    assert noisefloor.measured(tmp_path, "alloc_kb_per_req") == (pytest.approx(10.0), 3)
    assert noisefloor.measured(tmp_path).cv_pct == pytest.approx(0.5)


def test_a_metric_the_runs_did_not_record_has_no_floor_and_says_why(tmp_path):
    runs(tmp_path / "reference" / "old", 400, 402, 398)
    with pytest.raises(ValueError, match="have no alloc_kb_per_req column: they were recorded before it was"):
        noisefloor.measured(tmp_path / "reference", "alloc_kb_per_req")
    runs(tmp_path / "empty" / "new", 400, 402, 398, gc_pause_ms_per_1k_req="")
    with pytest.raises(ValueError, match=r"/empty/\) left gc_pause_ms_per_1k_req empty in every row"):
        noisefloor.measured(tmp_path / "empty", "gc_pause_ms_per_1k_req")


def test_the_committed_runs_predate_the_allocation_and_gc_columns_so_the_rig_records_no_floor_for_them():
    # reference/noise-floor/ was run at 499de6b, before matrix.csv had alloc_kb_per_req and gc_pause_ms_per_1k_req
    # (caaaafa); a re-measurement that records them changes these lines on purpose
    for column, prefix in (("alloc_kb_per_req", "noise_floor_alloc"), ("gc_pause_ms_per_1k_req", "noise_floor_gc")):
        assert getattr(constants.CURRENT, f"{prefix}_runs") == 0
        assert getattr(constants.CURRENT, f"{prefix}_cv_pct") is None  # null in metadata.json: NaN is not JSON
        assert f"have no {column} column" in noisefloor.why_none(column)
        assert math.isnan(constants.floor(constants.CURRENT, column).half_share)  # nothing widened by it
    assert noisefloor.why_none("throughput_rps") == ""
    json.dumps(constants.record(), allow_nan=False)
    none = record.from_dict({"rig": {**constants.record(), "noise_floor_alloc_runs": 0}}).rig
    assert constants.floor(none, "alloc_kb_per_req").runs == 0 and constants.floor(none, "p99_ms") is None
    with pytest.raises(record.MalformedRecord, match="noise_floor_gc_runs"):
        record.from_dict({"rig": {"noise_floor_gc_runs": 1}})
