"""This machine's calibration: kept per machine and version, refused when stale or foreign, and the loads sized
from it."""

from __future__ import annotations

import dataclasses
import datetime
import json

import pytest

from rows import RUN, row

from vtlab.cli import calibrate
from vtlab.explain import analyze
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


def step(mode: str, users: int, rate: float, jvm_step: int, service: float, k6: float, stub: float, pg: float,
         **changes):
    """A calibration step as matrix.csv holds it: each tier's CPU in ms a second (÷ 10: % of one core), on a 100 ms
    downstream, steady and settled; its CPU per request the service's total ÷ the rate."""
    return row(thread_mode=mode, concurrency=users, throughput_rps=rate, http_reqs=int(rate * 30),
               ok_requests=int(rate * 30), throughput_first_half_rps=rate, throughput_second_half_rps=rate,
               stub_delay_ms=100, p50_ms=105, p95_ms=110, p99_ms=115, p999_ms=120, max_ms=130, mean_ms=105,
               app_cpu_pct=service / 10, app_cpu_pct_max=service / 10 + 2, load_cpu_pct=k6 / 10,
               load_cpu_pct_max=k6 / 10 + 1, stub_cpu_pct=stub / 10, pg_cpu_pct=pg / 10,
               host_cpu_pct=(service + k6 + stub + pg) / 20 + 3, tomcat_connections_max=users, jvm_step=jvm_step,
               warmup_end="settled", warmup_s=24, app_cpu_ms_per_req=round(service / rate, 6),
               load_cpu_ms_per_req=round(k6 / rate, 6), stub_cpu_ms_per_req=round(stub / rate, 6),
               pg_cpu_ms_per_req=round(pg / rate, 6), **changes)


# Virtual, on code the first step compiled: the service 60 ms/s + 0.45 ms a request, k6 10 + 0.2, the stub 5 + 0.1,
# PostgreSQL 2 + 0.08. At 380 req/s: 60 + 171 = 231, 10 + 76 = 86, 5 + 38 = 43, 2 + 30.4 = 32.4 ms/s; at 760:
# 60 + 342 = 402, 10 + 152 = 162, 5 + 76 = 81, 2 + 60.8 = 62.8. The cold first step at 190 req/s spends 300 ms/s
# more in the JIT than the line (60 + 85.5 + 300 = 445.5): its cost per request is the upper bound, never fitted.
# Platform: the service 80 + 0.5 (190 cold: 80 + 95 + 300 = 475, 380: 270, 760: 460), the rest alike.
VIRTUAL = [step("virtual", 20, 190, 1, 445.5, 48, 24, 17.2), step("virtual", 40, 380, 2, 231, 86, 43, 32.4),
           step("virtual", 80, 760, 3, 402, 162, 81, 62.8)]
PLATFORM = [step("platform", 20, 190, 1, 475, 48, 24, 17.2), step("platform", 40, 380, 2, 270, 86, 43, 32.4),
            step("platform", 80, 760, 3, 460, 162, 81, 62.8)]


def test_the_steps_after_the_cold_first_split_each_tiers_cpu_into_a_fixed_and_a_marginal_cost():
    found = calibrate.of_rows(PLATFORM + VIRTUAL, 2, run=RUN)
    virtual, platform = found.modes["virtual"], found.modes["platform"]
    assert virtual.splits["service"].marginal_ms == pytest.approx(0.45)
    assert virtual.splits["service"].fixed_ms_per_s == pytest.approx(60)
    assert virtual.splits["k6"].marginal_ms == pytest.approx(0.2) and virtual.splits["k6"].fixed_ms_per_s == \
        pytest.approx(10)
    assert virtual.splits["stub"].marginal_ms == pytest.approx(0.1) and virtual.splits["postgresql"].marginal_ms == \
        pytest.approx(0.08)
    assert platform.splits["service"].marginal_ms == pytest.approx(0.5)
    assert platform.splits["service"].fixed_ms_per_s == pytest.approx(80)
    # all tiers: 0.45 + 0.2 + 0.1 + 0.08 = 0.83 ms a request, 60 + 10 + 5 + 2 = 77 ms a second
    assert virtual.marginal_ms == pytest.approx(0.83) and virtual.fixed_ms_per_s == pytest.approx(77)
    # two warm steps: an exact line, no interval
    assert virtual.splits["service"].marginal_half is None and virtual.splits["service"].why == "no error: 2 steps"
    # the upper bound: the cold first step's CPU per request, 445.5 ÷ 190 = 2.3447 ms
    assert virtual.service_ms == pytest.approx(2.344737) and virtual.rps == 190
    assert [(s.users, s.warmup_end, s.warmup_s) for s in virtual.steps] == [
        (20, "settled", 24), (40, "settled", 24), (80, "settled", 24)]


def test_fitted_through_the_cold_first_step_the_jits_work_would_read_as_a_cost_falling_with_the_load():
    # the same steps with the first fitted too (what calibration version 2 did): the line through (190, 445.5),
    # (380, 231), (760, 402) has a slope of -0.0658 ms a request, which is why the first step is left out
    rates, totals = (190, 380, 760), (445.5, 231, 402)
    mean_x, mean_y = sum(rates) / 3, sum(totals) / 3
    covariance = sum((x - mean_x) * (y - mean_y) for x, y in zip(rates, totals, strict=True))
    slope = covariance / sum((x - mean_x) ** 2 for x in rates)
    assert slope < 0
    assert calibrate.of_rows(PLATFORM + VIRTUAL, 2, run=RUN).modes["virtual"].splits["service"].marginal_ms > 0


def test_three_warm_steps_give_the_split_its_interval():
    # the service's totals off the line 60 + 0.45 × rate by +2, −3, +1 ms/s at 190, 380, 760 req/s: residuals that
    # sum to 0 and to 0 against the rates (2 × 190 − 3 × 380 + 760 = 0), so the fit gives back 0.45 and 60 exactly.
    # s² = (4 + 9 + 1) ÷ 1; the rates' mean 443.33, Sxx = 253.33² + 63.33² + 316.67² = 168,466.7;
    # the marginal's half-width t(1) × √(s² ÷ Sxx) = 12.706 × √(14 ÷ 168,466.7) = 0.1158
    four = [step("virtual", 10, 95, 1, 400, 29, 14.5, 9.6),
            step("virtual", 20, 190, 2, 145.5 + 2, 48, 24, 17.2), step("virtual", 40, 380, 3, 231 - 3, 86, 43, 32.4),
            step("virtual", 80, 760, 4, 402 + 1, 162, 81, 62.8)]
    service = calibrate.of_rows(PLATFORM + four, 2, run=RUN).modes["virtual"].splits["service"]
    assert service.marginal_ms == pytest.approx(0.45) and service.fixed_ms_per_s == pytest.approx(60)
    assert service.marginal_half == pytest.approx(12.706 * (14 / 168_466.67) ** 0.5, rel=1e-3)
    assert service.fixed_half is not None and service.fixed_half > 0


def test_the_summary_says_the_upper_bound_and_the_split():
    said = calibrate.of_rows(PLATFORM + VIRTUAL, 2, run=RUN).summary()
    assert "virtual: upper bound service 2.345, k6 0.253, stub 0.126, PostgreSQL 0.091 ms/request at 190 req/s" in said
    assert "service 0.450 ms/request + 60.0 ms/s" in said and "k6 0.200 ms/request + 10.0 ms/s" in said
    assert ("steps: 20 users 190 req/s settled after 24 s, 40 users 380 req/s settled after 24 s, 80 users 760 req/s "
            "settled after 24 s") in said


def test_a_step_whose_cpu_another_guest_took_still_prices_a_request():
    # the VM's steal took 9% of the machine in the cold first step (hypervisor-steal: invalid as a row), yet each
    # tier's ticks count only while it ran: its CPU per request stands, and the calibration is made
    # (the cold first step) and 14% in the 80-user one (ci94's calibration: 13.6%), one of the two warm steps its
    # costs are fitted through: the line through them is platform's 80 ms/s + 0.5 ms a request all the same
    stolen = {**PLATFORM[0], "foreign_cpu_pct": "9", "steal_cpu_pct": "8"}
    stolen_warm = {**PLATFORM[2], "foreign_cpu_pct": "14", "steal_cpu_pct": "13.6"}
    found = calibrate.of_rows([stolen, PLATFORM[1], stolen_warm, *VIRTUAL], 2, run=RUN)
    assert found.modes["platform"].service_ms == pytest.approx(475 / 190)
    assert found.modes["platform"].splits["service"].marginal_ms == pytest.approx(0.5)
    assert found.modes["platform"].splits["service"].fixed_ms_per_s == pytest.approx(80)
    flags = analyze.analyse([stolen, stolen_warm], RUN).verdicts
    assert all("hypervisor-steal" in verdict.flags for verdict in flags)


def test_a_calibration_is_kept_with_its_split_and_read_back():
    found = dataclasses.replace(calibrate.of_rows(PLATFORM + VIRTUAL, 2, run=RUN),
                                measured_at="2026-11-27T10:00:00+00:00")
    calibration.save(found)
    assert calibration.load(2, NOW) == found


@pytest.mark.parametrize("rows, words", [
    (VIRTUAL, "not platform and virtual"),
    (PLATFORM + [*VIRTUAL[:2], {**VIRTUAL[2], "failed_tier": "service", "failure": "was killed by SIGKILL"}],
     "the virtual calibration step at 80 users failed: was killed by SIGKILL"),
    # its JIT never settled: invalid (jit-not-settled), and a cost fitted through it would carry the JIT's
    (PLATFORM + [VIRTUAL[0], {**VIRTUAL[1], "warmup_end": "bound", "warmup_unsettled": "jit"}, VIRTUAL[2]],
     "the virtual calibration step at 40 users is invalid \\(jit-not-settled\\)"),
    (PLATFORM + [*VIRTUAL[:2], {**VIRTUAL[2], "throughput_second_half_rps": 600}], "at 80 users is invalid"),
    # each row on a JVM of its own: no staircase to fit
    (PLATFORM + [{**r, "jvm_step": ""} for r in VIRTUAL], "the virtual calibration measured no staircase"),
    # the two warm steps at one rate: no slope
    (PLATFORM + [*VIRTUAL[:2], {**VIRTUAL[1], "concurrency": "41", "jvm_step": "3"}], "costs were not fitted"),
])
def test_a_calibration_run_that_cannot_size_anything_is_refused(rows, words):
    with pytest.raises(ValueError, match=words):
        calibrate.of_rows(rows, 2, run=RUN)


def test_calibrate_reads_this_machines_cached_calibration_without_measuring(monkeypatch, capsys):
    from vtlab.cli import main
    from vtlab.core import cores

    calibration.save(measured(cores=len(cores.available()),
                              measured_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")))
    monkeypatch.setattr(calibrate, "_run", lambda argv: pytest.fail(f"measured although cached: {argv}"))
    assert main.main(["calibrate"]) == 0
    out = capsys.readouterr().out
    assert "upper bound service 0.500, k6 0.250, stub 0.150, PostgreSQL 0.100 ms/request at 190 req/s" in out
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


def test_the_upper_bound_alone_is_the_first_steps_and_kept_apart_from_what_sizes_a_profile():
    whole = calibrate.of_rows(PLATFORM + VIRTUAL, 2, run=RUN)
    bound = calibrate.of_rows([PLATFORM[0], VIRTUAL[0]], 2, run=RUN, bound=True)
    for mode in ("platform", "virtual"):
        assert dataclasses.replace(whole.modes[mode], splits={}, steps=()) == dataclasses.replace(
            bound.modes[mode], steps=())
        assert bound.modes[mode].splits == {} and bound.modes[mode].rps == 190
    assert bound.cost() == whole.cost()  # what the smoke sizes its points with: the same either way
    with pytest.raises(ValueError, match="no staircase"):
        calibrate.of_rows([PLATFORM[0], VIRTUAL[0]], 2, run=RUN)  # a whole calibration needs the steps
    saved = dataclasses.replace(bound, measured_at="2026-11-27T10:00:00+00:00")
    calibration.save(saved, bound=True)
    assert calibration.load(2, NOW) is None  # the sizing of a profile's points never reads it
    assert calibration.load_bound(2, NOW) == saved
    calibration.save(measured())
    assert calibration.load_bound(2, NOW) == measured()  # a whole calibration cached serves as the bound


def test_a_bound_alone_stands_with_its_jit_busy_and_its_short_hold_noisy_never_with_a_failure_or_errors():
    busy = {**VIRTUAL[0], "warmup_end": "bound", "warmup_unsettled": "jit"}
    noisy = {**PLATFORM[0], "throughput_second_half_rps": 100}  # half its first half's rate: not steady
    assert {"jit-not-settled"} <= set(analyze.analyse(calibrate.measured_rows.all_typed([busy]), RUN).verdicts[0].flags)
    bound = calibrate.of_rows([noisy, busy], 2, run=RUN, bound=True)
    assert bound.modes["virtual"].service_ms == calibrate.of_rows([PLATFORM[0], VIRTUAL[0]], 2, run=RUN,
                                                                  bound=True).modes["virtual"].service_ms
    with pytest.raises(ValueError, match="at 20 users is invalid"):
        calibrate.of_rows([noisy, busy], 2, run=RUN)  # a whole calibration's first step: no such tolerance
    with pytest.raises(ValueError, match="the virtual calibration step at 20 users failed"):
        calibrate.of_rows([PLATFORM[0], {**busy, "failed_tier": "service", "failure": "killed"}], 2, run=RUN,
                          bound=True)
    errors = {**VIRTUAL[0], "error_rate": 0.2}
    with pytest.raises(ValueError, match="at 20 users is invalid"):
        calibrate.of_rows([PLATFORM[0], errors], 2, run=RUN, bound=True)


def test_calibrate_bound_measures_the_first_step_of_each_mode_only(monkeypatch, capsys, tmp_path):
    from vtlab.cli import main

    asked = []
    monkeypatch.setattr(calibrate, "_run", lambda argv: asked.append(argv) or 1)
    assert main.main(["calibrate", "--bound", "--out", str(tmp_path / "cal")]) == 1
    argv = asked[0]
    assert argv[argv.index("--conc") + 1] == str(calibration.CALIBRATION_POINT["users"][0])
    # a fixed warm-up and a short hold: a colder, dearer step, in about half the settling one's time
    assert [argv[argv.index(flag) + 1] for flag in ("--warmup-until", "--warmup", "--hold")] == ["fixed", "10", "6"]
    assert main.main(["calibrate", "--out", str(tmp_path / "whole")]) == 1
    assert asked[1][asked[1].index("--conc") + 1] == ",".join(map(str, calibration.CALIBRATION_POINT["users"]))
