"""This machine's calibration: kept per machine and version, refused when stale or foreign, and the loads sized
from it."""

from __future__ import annotations

import dataclasses
import datetime
import json

import pytest

from vtlab.cli import calibrate
from vtlab.plan import calibration

NOW = datetime.datetime(2026, 11, 27, 12, 0, tzinfo=datetime.timezone.utc)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VTLAB_CACHE", str(tmp_path / "cache"))


def measured(service_ms: float = 0.5, generator_ms: float = 0.25, measured_at: str = "2026-11-27T10:00:00+00:00",
             cores: int = 2) -> calibration.Calibration:
    cost = calibration.ModeCost(service_ms=service_ms, generator_ms=generator_ms, stub_ms=0.15, database_ms=0.1,
                                rps=190)
    dearer = calibration.ModeCost(service_ms=service_ms * 2, generator_ms=generator_ms, stub_ms=0.15,
                                  database_ms=0.1, rps=180)
    return calibration.Calibration(machine=calibration.machine_key(cores), cores=cores,
                                   version=calibration.CALIBRATION_VERSION, measured_at=measured_at,
                                   modes={"virtual": cost, "platform": dearer})


def test_a_saved_calibration_is_read_back_on_the_same_machine():
    saved = measured()
    calibration.save(saved)
    assert calibration.load(2, NOW) == saved


def test_a_calibration_of_other_cores_another_version_or_a_month_old_is_measured_again():
    calibration.save(measured())
    assert calibration.load(4, NOW) is None  # vtlab may use other cores now: another machine to it
    path = calibration.path_for(2)
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "version": calibration.CALIBRATION_VERSION + 1}))
    assert calibration.load(2, NOW) is None
    calibration.save(measured(measured_at="2026-10-20T10:00:00+00:00"))  # 38 days before NOW
    assert calibration.load(2, NOW) is None
    path.write_text("{not json")
    assert calibration.load(2, NOW) is None


def test_the_dearer_mode_sizes_the_load_tier_by_tier():
    # platform: service 1.0 + k6 0.25 + stub 0.15 + PostgreSQL 0.1 = 1.5 ms of CPU a request; 35% of 2 cores is
    # 700 ms of CPU a second: 466.7 req/s; at 200 ms a request, 93 users
    assert calibration.users_at_share(measured(), 0.35, 200, 8, 160) == 93
    assert calibration.users_at_share(measured(service_ms=10), 0.35, 200, 8, 160) == 8  # floored
    assert calibration.users_at_share(measured(service_ms=0.01, generator_ms=0.01), 0.35, 200, 8, 160) == 160
    # a quota of 1 core on the 2: half the CPU, half the users (35% of 1 core: 233.3 req/s, 46 users)
    assert calibration.users_at_share(dataclasses.replace(measured(), quota=1.0), 0.35, 200, 8, 160) == 46


ROW = {"thread_mode": "virtual", "failed_tier": "", "app_cpu_ms_per_req": "0.41", "load_cpu_ms_per_req": "0.22",
       "stub_cpu_ms_per_req": "0.12", "pg_cpu_ms_per_req": "0.09", "throughput_rps": "191.5"}


def test_a_calibration_runs_rows_give_each_modes_cost_per_tier():
    found = calibrate.of_rows([{**ROW, "thread_mode": "platform", "app_cpu_ms_per_req": "0.55"}, ROW], 2)
    assert found.modes["platform"].service_ms == 0.55 and found.modes["virtual"].generator_ms == 0.22
    assert found.cost().service_ms == 0.55 and found.cost().total_ms == pytest.approx(0.55 + 0.22 + 0.12 + 0.09)


@pytest.mark.parametrize("rows, words", [
    ([ROW], "not platform and virtual"),
    ([{**ROW, "thread_mode": "platform"}, {**ROW, "failed_tier": "service", "failure": "was killed by SIGKILL"}],
     "the virtual calibration row failed: was killed by SIGKILL"),
    ([{**ROW, "thread_mode": "platform"}, {**ROW, "app_cpu_ms_per_req": ""}], "no usable CPU per request"),
    ([{**ROW, "thread_mode": "platform"}, {**ROW, "throughput_rps": "0"}], "no usable CPU per request"),
])
def test_a_calibration_run_that_cannot_size_anything_is_refused(rows, words):
    with pytest.raises(ValueError, match=words):
        calibrate.of_rows(rows, 2)


def test_calibrate_reads_this_machines_cached_calibration_without_measuring(monkeypatch, capsys):
    from vtlab.cli import main
    from vtlab.core import cores

    calibration.save(measured(cores=len(cores.available()),
                              measured_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")))
    monkeypatch.setattr(calibrate, "_run", lambda argv: pytest.fail(f"measured although cached: {argv}"))
    assert main.main(["calibrate"]) == 0
    out = capsys.readouterr().out
    assert "service 0.500, k6 0.250, stub 0.150, PostgreSQL 0.100 ms/request at 190 req/s" in out
    assert str(calibration.cache_dir()) in out


def test_a_calibration_run_that_failed_is_said_and_nothing_is_cached(monkeypatch, capsys, tmp_path):
    from vtlab.cli import main
    from vtlab.core import cores

    asked = []
    monkeypatch.setattr(calibrate, "_run", lambda argv: asked.append(argv) or 1)
    assert main.main(["calibrate", "--recalibrate", "--out", str(tmp_path / "cal")]) == 1
    assert "the calibration run failed (exit 1)" in capsys.readouterr().err
    assert asked and asked[0][:3] == ["run", "--modes", "platform,virtual"]
    assert calibration.load(len(cores.available())) is None
