"""The host's speed over the run (report.hostspeed): binned from every row's kept samples, each row's time under load
marked by its mode, drawn and told in the report; no strip, and no figure, for a run that read no host speed."""

import json

import pytest

from vtlab.core import dimensions
from vtlab.report import hostspeed, render
from vtlab.results import table
from vtlab.series import store
from vtlab.series.holdstats import HOST_WORK
from vtlab.series.windows import Series

from rows import META, row


def test_bins_are_medians_against_the_run_s_median_and_a_step_shows_as_one():
    # 40 s at 400 µs, then 40 s at 500 µs: the run's median is 450 (the two halves' middle), the bins 450/400 and
    # 450/500; a wild reading does not move its bin's median (one each way, so the run's median stays 450)
    readings = [(1000 + t / 4, 400.0) for t in range(160)] + [(1040 + t / 4, 500.0) for t in range(160)]
    readings += [(1002.1, 4000.0), (1042.1, 40.0)]
    strip = hostspeed.binned(readings, [("virtual", 1040, 1080), ("platform", 1000, 1039.75)])
    assert strip.median_us == 450.0
    assert strip.seconds == tuple(5.0 * i for i in range(16))
    assert strip.speed[:8] == (1.125,) * 8 and strip.speed[8:] == (0.9,) * 8
    assert [span.mode for span in strip.spans] == ["platform", "virtual"]  # in the order they ran
    assert strip.spans[1].start_s == 40 and strip.spans[1].end_s == 80
    assert strip.moved() == (0.9, 1.125)
    assert "moved from 0.90 to 1.12 of its median" in hostspeed.words(strip)


def _kept(run_dir, cells, origin, readings_us):
    """A row's kept samples: one CPU reading a quarter second, each with the fixed work's µs where given."""
    series_dir = run_dir / "series"
    series_dir.mkdir(parents=True, exist_ok=True)
    points = [(i / 4, {"app_ticks": float(i), **({HOST_WORK: us} if us is not None else {})})
              for i, us in enumerate(readings_us)]
    store.write_samples(store.samples_path(series_dir, dimensions.slug(dimensions.parse(cells))), Series(points),
                        Series(), origin)


def _run(tmp_path, with_speed: bool):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / table.METADATA_NAME).write_text(json.dumps(
        {**META, "plan": {"profile": "quick", "model": "closed", "ramp_s": 5, "warmup_s": 45, "hold_s": 30,
                          "stub_delay_ms": 1000, "stub_jitter_ms": 0, "overrides": {}, "rows": []}}))
    platform, virtual = row(thread_mode="platform"), row(thread_mode="virtual")
    writer = table.CsvWriter(run_dir / table.CSV_NAME)
    for cells in (platform, virtual):
        writer.append({column: cells.get(column, "") for column in table.COLUMNS})
    # platform from Unix 2000 s for 40 s at 400 µs; virtual 60 s later at 440 µs (a host 10% slower)
    _kept(run_dir, platform, 2000.0, [400.0 if with_speed else None] * 160)
    _kept(run_dir, virtual, 2100.0, [440.0 if with_speed else None] * 160)
    render.render(run_dir)
    return run_dir


def test_a_run_s_report_draws_the_strip_from_its_rows_kept_samples(tmp_path):
    run_dir = _run(tmp_path, with_speed=True)
    drawn = json.loads((run_dir / "charts.json").read_text())["host-speed"]
    assert drawn["median_us"] == 420.0  # 160 readings of 400 and 160 of 440
    assert drawn["speed"][0] == pytest.approx(420 / 400) and drawn["speed"][-1] == pytest.approx(420 / 440)
    assert [span[0] for span in drawn["spans"]] == ["platform", "virtual"]
    assert drawn["spans"][1][1] == pytest.approx(100 / 60)  # virtual began 100 s after platform's first reading
    html = (run_dir / "report.html").read_text()
    assert "id='fig-host-speed'" in html and "moved from 0.95 to 1.05 of its median" in html


def test_a_run_that_read_no_host_speed_has_no_strip_and_no_caption(tmp_path):
    run_dir = _run(tmp_path, with_speed=False)
    assert "host-speed" not in json.loads((run_dir / "charts.json").read_text())
    assert "fig-host-speed" not in (run_dir / "report.html").read_text()
