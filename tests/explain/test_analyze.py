"""The analysis on small hand-made rows: one per bottleneck class and per invalidity reason."""

import math

import pytest

from vtlab.explain import analyze, queues
from vtlab.report.scenarios import common
from vtlab.results import record
from vtlab.results.rows import typed

from rows import BASE, META, RUN, row

def verdict(*rows):
    return analyze.analyse(list(rows), RUN).verdicts[-1]


def test_a_clean_low_load_row_is_limited_by_its_users_and_the_downstream():
    result = verdict(row())
    assert result.limit == "concurrency"
    assert result.bottleneck == "downstream"
    assert result.valid is True and result.flags == ()
    assert math.isclose(result.ceiling_rps, 100 / 1.010, rel_tol=1e-6)
    assert math.isclose(result.attained, 98 / (100 / 1.010), rel_tol=1e-6)
    assert result.service_time_source == "p50 at lowest load"


def test_platform_threads_past_the_wall_are_thread_pool_bound():
    low = row(thread_mode="platform")
    high = row(thread_mode="platform", concurrency=1000, throughput_rps=196, http_reqs=5880, ok_requests=5880,
               tomcat_connections_max=1000, p50_ms=5000, p99_ms=5200, throughput_first_half_rps=196,
               throughput_second_half_rps=196)
    result = verdict(low, high)
    assert result.limit == "thread-pool"
    assert math.isclose(result.ceiling_rps, 200 / 1.010, rel_tol=1e-6)  # 200 threads / service time
    assert result.bottleneck == "thread-pool"


def test_held_connections_with_waiters_are_connection_pool_bound():
    held = row(conn_mode="held", concurrency=200, throughput_rps=49, http_reqs=1470, ok_requests=1470,
               hikari_active_max=50, hikari_pending_max=150, p50_ms=4000, p99_ms=4100,
               throughput_first_half_rps=49, throughput_second_half_rps=49)
    result = verdict(row(conn_mode="held", concurrency=20), held)
    assert result.limit == "connection-pool"
    assert math.isclose(result.ceilings.pool, 50 / 1.010, rel_tol=1e-6)
    assert result.bottleneck == "connection-pool"


def test_a_saturated_machine_is_cpu_bound():
    # k6 light (4% of one core: 2% of the machine, a cost inside the between-run noise): the service's CPU wall
    hot = row(concurrency=3000, throughput_rps=1500, http_reqs=45000, ok_requests=45000, app_cpu_pct=150,
              host_cpu_pct=97, load_cpu_pct=4, load_cpu_pct_max=5, throughput_first_half_rps=1500,
              throughput_second_half_rps=1500)
    result = verdict(row(), hot)
    assert result.bottleneck == "cpu"
    # shared cores: CPU per request counts every tier (150+3+3+4)% / 1500 req/s = 1.067 ms
    assert math.isclose(result.cpu_ms_per_req, 160 * 10 / 1500, rel_tol=1e-6)
    # one lower row of its CPU group: no line to fit, so cores ÷ its own CPU per request, 200% ÷ 0.1067 %·s = 1,875
    # req/s — a restatement — below the users' 3000 ÷ 1.010 s = 2,970
    assert result.limit == "cpu" and math.isclose(result.ceiling_rps, 2000 / (160 * 10 / 1500), rel_tol=1e-6)
    assert "cpu" in result.ceilings.restated


def test_refusals_above_the_threshold_are_overload_and_make_the_row_invalid():
    result = verdict(row(error_rate=0.2, throughput_rps=78, ok_requests=2340, errors_by_status="503=588"))
    assert result.bottleneck == "overload"
    assert result.valid is False and "errors-above-threshold" in result.flags
    below = verdict(row(error_rate=0.005, errors_by_status="503=15"))
    assert below.bottleneck == "downstream" and "errors-above-threshold" not in below.flags


def test_overload_is_refused_requests_not_a_long_queue():
    """A platform row queueing at Tomcat's wall with a momentary pool waiter and p99 past the pool timeout
    served everyone: a wall. Borrows that timed out, or 503s above the threshold, are overload."""
    queue = dict(thread_mode="platform", concurrency=1000, p99_ms=6000, hikari_active_max=50, hikari_pending_max=1,
                 hikari_pending_share=0.02, tomcat_connections_max=1000, throughput_rps=199)
    assert verdict(row(**queue)).bottleneck == "thread-pool"
    assert verdict(row(**queue, pool_timeouts=40)).bottleneck == "overload"  # 40 borrows of 2,940 timed out
    # the odd borrow at the tail of a queue that outlasted the pool's timeout is not a service shedding load
    # (measured: 2 of ~1,500 at the held pool's wall, virtual threads, 100 users)
    assert verdict(row(**queue, pool_timeouts=2)).bottleneck == "thread-pool"
    assert verdict(row(**queue, errors_by_status="503=40")).bottleneck == "overload"  # 40 of 2,940: 1.4%
    assert verdict(row(**queue, errors_by_status="503=20")).bottleneck == "thread-pool"  # 0.7%: below it


def test_the_open_model_compares_requests_in_flight_with_the_threads_and_names_the_wall_above_capacity():
    """Pre-allocated users are not requests: at 150 req/s offered under a 200-thread wall, 150 × 1.0 s are in
    flight. Offered 400 with 198 achieved and k6 idle: the thread wall, flagged offered-above-capacity, valid."""
    under = dict(thread_mode="platform", load_model="open", target_rps=150, concurrency=300, throughput_rps=150,
                 ok_requests=4500, http_reqs=4500, mean_ms=1004, p50_ms=1003)
    result = verdict(row(**under))
    assert result.bottleneck == "users" and result.valid is True  # every arrival served: the load was the limit
    assert "in flight" not in result.evidence
    above = dict(thread_mode="platform", load_model="open", target_rps=400, concurrency=800, throughput_rps=198,
                 ok_requests=5940, http_reqs=5940, mean_ms=9800, p50_ms=10100, dropped_iterations=3900,
                 tomcat_connections_max=800)
    result = verdict(row(**above))
    assert result.bottleneck == "thread-pool"
    assert result.flags == ("offered-above-capacity",) and result.valid is True
    saturated = verdict(row(**above, load_cpu_pct_max=190))
    assert saturated.bottleneck == "load-generator" and "dropped-iterations" in saturated.flags


@pytest.mark.parametrize("changes, flag, bottleneck", [
    ({"load_cpu_pct_max": 190}, "generator-saturated", "load-generator"),
    ({"dropped_iterations": 12, "load_cpu_pct_max": 190}, "dropped-iterations", "load-generator"),
    ({"error_rate": 0.2, "throughput_rps": 78, "ok_requests": 2340}, "errors-above-threshold", "failures"),
    ({"throughput_trend_pct": 0, "throughput_trend_ci95_pct": 180}, "too-noisy", None),
    ({"stall": "stalled 12 s after k6 started"}, "stall", "stall"),
    ({"throughput_rps": 120}, "errors-counted", None),
    ({"cpu_samples": 10}, "missing-samples", None),
    ({"jvm_threads_max": ""}, "missing-jvm_threads_max", None),
    ({"load_cpu_pct": "", "load_cpu_pct_max": ""}, "generator-cpu-unknown", None),
    ({"throughput_first_half_rps": 80, "throughput_second_half_rps": 116}, "not-steady", None),
    ({"throughput_trend_pct": 18, "throughput_trend_ci95_pct": 6}, "not-steady", None),
    ({"k6_exit": 107}, "k6-exit-107", None),
    ({"warmup_end": "bound", "warmup_unsettled": "cpu;jit", "warmup_jit_share_pct": 30}, "jit-not-settled", None),
    ({"throughput_rps": 0, "ok_requests": 0}, "no-successful-requests", None),
])
def test_each_invalidity_reason_is_flagged(changes, flag, bottleneck):
    result = verdict(row(**changes))
    assert result.valid is False
    assert flag in result.flags
    if bottleneck:
        assert result.bottleneck == bottleneck


def test_the_trend_decides_steadiness_where_the_series_gave_one():
    # halves 20% apart but a trend inside a narrow noise: one burst in the first half, not a drift
    burst = verdict(row(throughput_first_half_rps=88, throughput_second_half_rps=108,
                        throughput_trend_pct=9, throughput_trend_ci95_pct=6))
    assert burst.flags == () and burst.valid
    # 14% ± 20% shows neither a drift nor a steady hold: too noisy, not steady by default
    noisy = verdict(row(throughput_trend_pct=14, throughput_trend_ci95_pct=20))
    assert noisy.flags == ("too-noisy",) and not noisy.valid
    small = verdict(row(throughput_trend_pct=-6, throughput_trend_ci95_pct=2))  # real, but under 10%
    assert "not-steady" not in small.flags
    climbing = verdict(row(throughput_trend_pct=25, throughput_trend_ci95_pct=8))
    assert "not-steady" in climbing.flags and climbing.valid is False
    spike = verdict(row(shape="spike", throughput_trend_pct=-40, throughput_trend_ci95_pct=8))
    assert "not-steady" not in spike.flags  # the shape moved the load on purpose


def test_a_published_style_row_without_extra_columns_is_analysed():
    """The published rig's 23 columns: no stub delay, no hold, no mean latency. Its own p50 is its service time,
    users ÷ that the ceiling it reaches, and with no designed wait known the users are its wall."""
    bare = {k: BASE[k] for k in list(BASE)[:23]}
    result = analyze.analyse([bare], record.from_dict({})).verdicts[0]
    assert result.limit == "concurrency" and math.isclose(result.ceiling_rps, 100 / 1.010, rel_tol=1e-6)
    assert result.service_time_source == "p50 at lowest load"
    assert result.bottleneck == "users" and result.evidence.startswith("latency 1010 ms vs unloaded 1010 ms")


def test_reps_aggregate_to_median_with_range_and_spread_warning():
    reps = [row(rep=1, throughput_rps=90, ok_requests=2700), row(rep=2, throughput_rps=98),
            row(rep=3, throughput_rps=99, ok_requests=2970)]
    aggregated = analyze.analyse(reps, RUN).aggregates
    assert len(aggregated) == 1
    line = aggregated[0]
    assert (line.reps, line.valid_reps) == (3, 3)
    assert line.throughput_median == 98
    assert (line.throughput_min, line.throughput_max) == (90, 99)
    assert math.isclose(line.spread, 9 / 98)
    assert line.spread_warning is False
    wide = analyze.analyse(reps + [row(rep=4, throughput_rps=70, ok_requests=2100)], RUN).aggregates[0]
    assert wide.spread_warning is True


def test_invalid_reps_do_not_count_when_valid_ones_exist():
    reps = [row(rep=1, throughput_rps=98), row(rep=2, throughput_rps=50, ok_requests=1500, error_rate=0.5)]
    line = analyze.analyse(reps, RUN).aggregates[0]
    assert line.throughput_median == 98 and line.valid_reps == 1
    assert "errors-above-threshold" in line.flags


# --- the other workloads -----------------------------------------------------------------------

SLEEP = dict(workload="sleep", sleep_ms=5000, concurrency=1000, hikari_active_max=0, tomcat_connections_max=1000)


def test_sleep_rows_take_their_service_time_from_the_fastest_row_and_never_blame_the_pool():
    platform = row(thread_mode="platform", throughput_rps=40, http_reqs=1200, ok_requests=1200, p50_ms=25000,
                   p99_ms=26000, throughput_first_half_rps=40, throughput_second_half_rps=40, **SLEEP)
    virtual = row(throughput_rps=199, http_reqs=5970, ok_requests=5970, p50_ms=5003, p99_ms=5020,
                  throughput_first_half_rps=199, throughput_second_half_rps=199, **SLEEP)
    p, v = analyze.analyse([platform, virtual], RUN).verdicts
    # same load in both rows: the platform one queued, so the virtual one's p50 is the service time
    assert math.isclose(p.service_time_ms, 5003) and math.isclose(v.service_time_ms, 5003)
    assert math.isinf(p.ceilings.pool) and math.isinf(v.ceilings.pool)
    assert p.limit == "thread-pool" and math.isclose(p.ceiling_rps, 200 / 5.003, rel_tol=1e-6)
    assert p.bottleneck == "thread-pool"
    assert v.limit == "concurrency" and v.bottleneck == "downstream"


def test_cpu_bound_rows_on_a_saturated_machine_are_cpu_bound_whatever_the_pool():
    cpu = dict(workload="cpu", cpu_work=5000, concurrency=20, stub_delay_ms=1000, host_cpu_pct=97,
               app_cpu_pct=186, pg_cpu_pct=0, stub_cpu_pct=1, load_cpu_pct=4, throughput_rps=400,
               http_reqs=12000, ok_requests=12000, app_cpu_ms_per_req=4, p50_ms=50, p99_ms=80,
               throughput_first_half_rps=400, throughput_second_half_rps=400)
    result = verdict(row(thread_mode="platform", tomcat_max_threads=2, **cpu))
    assert result.service_time_source == "app CPU per request" and math.isclose(result.service_time_ms, 4)
    # the tiers share 2 cores and use (186 + 1 + 4)% / 400 req/s = 4.775 ms per request: 2 / 4.775 ms
    # = 419 req/s, below what 2 threads busy 4 ms each could serve (500 req/s)
    assert math.isclose(result.ceilings.threads, 500)
    assert result.limit == "cpu" and math.isclose(result.ceiling_rps, 2 / 0.004775, rel_tol=1e-6)
    assert result.bottleneck == "cpu"
    many = verdict(row(**cpu))
    assert many.limit == "cpu" and many.bottleneck == "cpu"


def test_a_momentary_pool_waiter_is_not_a_connection_pool_bottleneck():
    busy = dict(concurrency=1000, throughput_rps=854, http_reqs=25620, ok_requests=25620, p50_ms=1100,
                p99_ms=1890, hikari_active_max=50, hikari_pending_max=3, throughput_first_half_rps=850,
                throughput_second_half_rps=858)
    assert verdict(row(), row(hikari_pending_share=0.04, **busy)).bottleneck == "downstream"
    assert verdict(row(), row(hikari_pending_share=0.9, **busy)).bottleneck == "connection-pool"
    assert verdict(row(), row(**busy)).bottleneck == "connection-pool"  # no share column: the maxima decide


def test_a_row_that_queues_by_design_never_sets_the_service_time():
    # 100 users on 50 held connections wait ~1 s for one: that p50 is not the time a connection is held
    held = row(conn_mode="held", concurrency=100, throughput_rps=49.7, http_reqs=1491, ok_requests=1491,
               hikari_active_max=50, hikari_pending_max=50, hikari_pending_share=1, p50_ms=2009, p99_ms=3021,
               throughput_first_half_rps=49.7, throughput_second_half_rps=49.7)
    result = verdict(held)
    assert result.service_time_source == "stub delay" and math.isclose(result.ceilings.pool, 50)
    assert result.bottleneck == "connection-pool" and math.isclose(result.attained, 49.7 / 50)


def test_a_pool_that_never_queued_is_not_the_limit_even_when_latency_inflates_the_service_time():
    # One loaded row only: its p50 (1,070 ms) holds 70 ms of CPU queueing, which the released-mode
    # estimate would book as connection time (50 / 0.070 = 714 req/s) — below what it measured.
    busy = row(thread_mode="virtual", concurrency=1000, throughput_rps=891, http_reqs=26730, ok_requests=26730,
               p50_ms=1070, p99_ms=1600, hikari_pool=50, hikari_active_max=41, hikari_pending_max=0,
               throughput_first_half_rps=880, throughput_second_half_rps=900)
    result = verdict(busy)
    assert result.limit == "concurrency" and result.ceilings.pool >= 891 * 50 / 41


def test_a_connection_queue_under_a_saturated_cpu_is_named_cpu():
    saturated = row(thread_mode="virtual", concurrency=1000, throughput_rps=715, http_reqs=21450, ok_requests=21450,
                    p50_ms=1378, p99_ms=1869, hikari_pool=50, hikari_active_max=50, hikari_pending_max=195,
                    hikari_pending_share=0.66, host_cpu_pct=99.7, app_cpu_pct=146, pg_cpu_pct=12, stub_cpu_pct=24,
                    load_cpu_pct=4, throughput_first_half_rps=700, throughput_second_half_rps=730)
    result = verdict(saturated)
    assert result.limit == "cpu" and result.bottleneck == "cpu"


def test_reps_that_disagree_are_named_deterministically_and_said_to_disagree():
    reps = [row(rep=1, throughput_rps=98), row(rep=2, thread_mode="virtual", throughput_rps=97, host_cpu_pct=97,
                                              app_cpu_pct=190, app_cpu_pct_max=195)]
    lines = analyze.analyse(reps, RUN).aggregates
    assert [line.bottleneck for line in lines] == ["downstream"]  # a 1:1 tie goes to the first rep
    assert lines[0].bottlenecks_seen == "downstream/cpu"


def test_the_same_run_reports_the_same_under_any_hash_seed(tmp_path):
    """Set order follows PYTHONHASHSEED: two interpreters with different seeds must write identical files."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    fixture = Path(__file__).parents[1] / "fixtures" / "doctored-scenarios"
    outputs = []
    for seed in ("1", "4242"):
        run_dir = tmp_path / seed
        run_dir.mkdir()
        for part in ("matrix.csv", "metadata.json"):
            shutil.copy(fixture / part, run_dir / part)
        subprocess.run([sys.executable, "-c", f"from vtlab.report import render; from pathlib import Path; "
                        f"render.render(Path({str(run_dir)!r}))"], check=True, env={"PYTHONHASHSEED": seed,
                        "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"})
        outputs.append([(run_dir / name).read_text() for name in ("analysis.csv", "report.md", "charts.json")])
    assert outputs[0] == outputs[1]


# --- the typed result ------------------------------------------------------------------------------

def test_a_verdict_is_immutable_and_its_csv_line_follows_the_columns():
    import dataclasses

    from vtlab.explain import model
    result = verdict(row())
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.bottleneck = "cpu"  # type: ignore[misc]
    line = dict(zip(model.COLUMNS, model.cells(result), strict=True))
    assert (line["thread_mode"], line["concurrency"], line["stub_delay_ms"]) == ("virtual", "100", "1000")
    assert (line["bottleneck"], line["valid"], line["flags"]) == ("downstream", "true", "")


def test_a_failed_row_gets_a_failed_verdict_and_changes_nothing_else():
    """One row a dead tier ended among measured ones: its verdict names the tier, no bottleneck, never valid;
    the other verdicts, the service times and the aggregates read exactly as without it."""
    low, high = row(thread_mode="platform"), row(thread_mode="platform", concurrency=1000, throughput_rps=196,
                                                 http_reqs=5880, ok_requests=5880, tomcat_connections_max=1000,
                                                 p50_ms=5000, p99_ms=5200, throughput_first_half_rps=196,
                                                 throughput_second_half_rps=196)
    # the dead row would have set a far lower service time, and aggregates with `low` if it counted
    dead = row(thread_mode="platform", rep=2, p50_ms=10, throughput_rps=5000, failed_tier="postgres",
               failure="exited with code 137", failure_log="FATAL: terminating")
    clean, broken = analyze.analyse([low, high], RUN), analyze.analyse([low, dead, high], RUN)
    assert broken.verdicts == clean.verdicts and broken.aggregates == clean.aggregates
    assert broken.context.service_time_s == clean.context.service_time_s
    (failed,) = broken.failed
    assert failed.failed and failed.failure.tier == "postgres" and failed.failure.how == "exited with code 137"
    assert (failed.bottleneck, failed.valid, failed.flags) == ("", False, ("failed:postgres",))
    assert math.isnan(failed.measured.throughput_rps) and failed.row.rep == 2


def test_rows_differing_only_in_the_downstream_delay_are_not_repetitions_of_one_scenario():
    one_second, two_seconds = row(), row(stub_delay_ms=2000, p50_ms=2010, throughput_rps=49)
    lines = analyze.analyse([one_second, two_seconds], RUN).aggregates
    assert [(line.row.stub_delay_ms, line.throughput_median) for line in lines] == [(1000, 98), (2000, 49)]


def test_the_rig_constants_come_from_the_runs_record():
    """A run that recorded k6's thresholds exit as 98 is judged by it. A row's request threads are its own: an older
    CSV's empty cell reads as the dimension's default (core.dimensions), whatever the run's record says."""
    recorded = {**META, "rig": {"tomcat_max_threads": 100, "k6_thresholds_exit": 98}}
    platform = row(thread_mode="platform", tomcat_max_threads="")
    result = analyze.analyse([platform], record.from_dict(recorded)).verdicts[0]
    assert math.isclose(result.ceilings.threads, 200 / 1.010, rel_tol=1e-6)
    assert analyze.analyse([row(k6_exit=98)], record.from_dict(recorded)).verdicts[0].valid is True
    assert "k6-exit-99" in analyze.analyse([row(k6_exit=99)], record.from_dict(recorded)).verdicts[0].flags


def test_a_generator_whose_share_of_a_full_shared_host_costs_more_than_the_noise_interferes():
    # all tiers on two shared cores, host full: k6 took 105% of one core, 52.5% of the machine, which the pinned
    # cross-check slope (1.0) prices at 52.5% of the throughput, far above the ± 2.776% between-run floor
    hog = verdict(row(concurrency=2000, throughput_rps=900, host_cpu_pct=97, app_cpu_pct=70, load_cpu_pct=105,
                      load_cpu_pct_max=120, ok_requests=27000, http_reqs=27000))
    assert "generator-interference" in hog.flags and hog.bottleneck == "load-generator" and not hog.valid
    # k6 the smaller consumer by far still costs a full host: 30% of the machine, ~30% of the throughput
    third = verdict(row(concurrency=2000, throughput_rps=1700, host_cpu_pct=93, app_cpu_pct=110, load_cpu_pct=60,
                        load_cpu_pct_max=70, pg_cpu_pct=8, stub_cpu_pct=8, ok_requests=51000, http_reqs=51000))
    assert "generator-interference" in third.flags and third.bottleneck == "load-generator"
    # a light generator on the same full host: 5% of one core, 2.5% of the machine, inside the noise: the CPU wall
    hero = verdict(row(concurrency=2000, throughput_rps=1700, host_cpu_pct=93, app_cpu_pct=165, load_cpu_pct=5,
                       load_cpu_pct_max=7, pg_cpu_pct=8, stub_cpu_pct=8, ok_requests=51000, http_reqs=51000))
    assert "generator-interference" not in hero.flags and hero.bottleneck == "cpu" and hero.valid
    # the same k6 share on a host with room: nothing interfered
    idle = verdict(row(concurrency=2000, throughput_rps=900, host_cpu_pct=60, app_cpu_pct=40, load_cpu_pct=60,
                       ok_requests=27000, http_reqs=27000))
    assert "generator-interference" not in idle.flags
    # tiers on their own cores: k6's own allotment decides (generator-saturated), not its share of the host
    apart = record.from_dict({"host": {"cpus_available": 4}, "core_map": "app=0-1 load=2-3"})
    own = analyze.analyse([row(concurrency=2000, throughput_rps=900, host_cpu_pct=97, app_cpu_pct=70,
                               load_cpu_pct=105, load_cpu_pct_max=120, ok_requests=27000, http_reqs=27000)],
                          apart).verdicts[0]
    assert "generator-interference" not in own.flags


def test_ceilings_that_restate_the_row_are_marked_and_the_cpu_wall_is_predicted_from_lower_loads():
    def at(users, rps, cpu_pct, p50=1004):
        # every tier's CPU in app_cpu_pct for simplicity: the fit sums the tiers that share the cores
        return row(concurrency=users, throughput_rps=rps, http_reqs=rps * 30, ok_requests=rps * 30, p50_ms=p50,
                   app_cpu_pct=cpu_pct, pg_cpu_pct=0, stub_cpu_pct=0, load_cpu_pct=0, host_cpu_pct=cpu_pct / 2)
    # fixed 40% + 0.12% per req/s (1.2 ms per request): lower rows predict (200 − 40) / 0.12 = 1,333 req/s
    rows = [at(100, 99, 40 + 0.12 * 99, p50=1003), at(400, 397, 40 + 0.12 * 397), at(1000, 889, 150)]
    low, mid, high = analyze.analyse(rows, RUN).verdicts
    assert low.ceilings.restated == ("concurrency", "cpu")  # its own p50; nothing lower to predict its CPU from
    assert "concurrency" not in high.ceilings.restated and "cpu" not in high.ceilings.restated
    assert round(high.ceilings.cpu) == 1333
    # the utilisation law would have said 200 / (150 × 10 / 889 ms) = 1,185: the row's own busy share restated
    assert round(analyze.analyse(rows[2:], RUN).verdicts[0].ceilings.cpu) == 1185
    assert "cpu" in analyze.analyse(rows[2:], RUN).verdicts[0].ceilings.restated
    # a fit needs throughputs that differ: two rows at the same wall predict nothing
    flat = analyze.analyse([at(400, 199, 50), at(600, 199, 52), at(1000, 199, 57)], RUN).verdicts[2]
    assert "cpu" in flat.ceilings.restated
    assert low.limit == "concurrency" and low.limit_restated and not high.limit_restated


def test_the_pools_exact_timers_decide_whether_the_pool_was_the_queue_and_samples_are_the_fallback():
    held = dict(conn_mode="held", hikari_pool=50, concurrency=100, throughput_rps=49.6, p50_ms=2000,
                ok_requests=1488, http_reqs=1488)
    # exact: 49.8 connections out and 48 threads waiting on average — though no 2 Hz sample saw a waiter
    queue = verdict(row(**held, pool_out_mean=49.8, pool_waiting_mean=48, hikari_active_max=50,
                        hikari_pending_max=0, hikari_pending_share=0))
    assert queue.bottleneck == "connection-pool"
    # exact: a few connections out, almost no one waiting — though the samples caught a long pile-up
    no_queue = verdict(row(concurrency=100, pool_out_mean=0.3, pool_waiting_mean=0.001, hikari_active_max=50,
                           hikari_pending_max=30, hikari_pending_share=0.9))
    assert no_queue.bottleneck == "downstream"
    # Agroal times its waits, not its connections out: its mean waiters decide, the samples notwithstanding
    agroal = dict(held, pool_impl="agroal", hikari_active_max=12, hikari_pending_max=0, hikari_pending_share=0)
    assert verdict(row(**agroal, pool_waiting_mean=47.5)).bottleneck == "connection-pool"
    assert verdict(row(**dict(agroal, conn_mode="released", p50_ms=1010), pool_waiting_mean=0.002)
                   ).bottleneck == "downstream"
    # without the timers (R2DBC, older CSVs) the samples decide, and the table says they were sampled
    sampled = verdict(row(**held, hikari_active_max=50, hikari_pending_max=50, hikari_pending_share=0.95))
    assert sampled.bottleneck == "connection-pool"
    assert common.waiters_text(sampled) == "50 max (sampled)" and common.waiters_text(queue) == "48.0 mean"


def test_a_synchronized_virtual_row_before_jep491_is_capped_by_its_carriers():
    # JDK 21: every request keeps its carrier through the 100 ms call: 2 carriers / 0.1 s = 20 req/s
    before = row(path_mode="synchronized-platform-http", thread_mode="virtual", jdk=21, concurrency=50,
                 stub_delay_ms=100, p50_ms=2500, throughput_rps=19.5, vt_parallelism=2)
    after = row(path_mode="synchronized-platform-http", thread_mode="virtual", jdk=25, concurrency=50,
                stub_delay_ms=100, p50_ms=102, throughput_rps=466, vt_parallelism=2)
    assert queues.pins_every_request(typed(before)) and not queues.pins_every_request(typed(after))
    verdicts = {a.row.jdk: a for a in analyze.analyse([before, after], RUN).verdicts}
    assert verdicts[21].limit == "thread-pool" and round(verdicts[21].ceiling_rps, 1) == 20.0
    assert verdicts[21].service_time_source == "stub delay"
    assert math.isinf(verdicts[25].ceilings.threads)


def test_the_carrier_count_is_the_jvms_parallelism():
    pinned = row(path_mode="synchronized", thread_mode="virtual", jdk=21, vt_parallelism=8)
    assert queues.request_thread_cap(typed(pinned)) == 8
    assert math.isinf(queues.request_thread_cap(typed(row(path_mode="synchronized", thread_mode="virtual", jdk=25))))


def test_a_profiled_row_says_so_and_stays_valid():
    profiled = verdict(row(profiles="cpu,alloc"))
    assert profiled.flags == ("profiled:cpu,alloc",) and profiled.valid is True
    assert verdict(row()).flags == ()


def test_a_hold_begun_with_the_compiler_busy_on_a_host_with_room_is_a_note_not_a_void():
    # a users-bound row whose warm-up settled with its compiler at 41% of the service's CPU: it took no core a
    # request needed, and the CPU per request had stopped falling
    result = verdict(row(warmup_end="settled", warmup_unsettled="", warmup_jit_share_pct=41.1))
    assert result.flags == ("jit-busy:41.1%",) and result.valid
    quiet = verdict(row(warmup_end="settled", warmup_unsettled="", warmup_jit_share_pct=4.9))
    assert quiet.flags == () and quiet.valid


def test_a_warm_up_bound_with_only_the_rate_unsettled_leaves_the_verdict_to_the_holds_steadiness():
    assert verdict(row(warmup_end="bound", warmup_unsettled="rate")).flags == ()
    assert verdict(row(warmup_end="settled", warmup_unsettled="")).flags == ()


def test_meters_short_on_a_row_whose_carriers_were_pinned_throughout_are_said_not_a_void():
    # 30 s hold: 42 of the 2 Hz scrapes wanted, 56 of the 4 Hz CPU readings; the carriers pinned by JFR's count as
    # often as the hold served requests (2,940), the scrapes waiting for a carrier like every request
    pinned = dict(thread_mode="virtual", meter_samples=5, cpu_samples=112, pinned_events=3000, http_reqs=2940)
    starved = verdict(row(**pinned))
    assert "meters-starved-by-pins" in starved.flags and "missing-samples" not in starved.flags and starved.valid
    # no scrape answered at all: the meters' figures unread, said by the same note; k6's and /proc's still wanted
    unread = verdict(row(**{**pinned, "meter_samples": 0}, hikari_active_max="", jvm_threads_max=""))
    assert unread.flags == ("meters-starved-by-pins",) and unread.valid
    assert "missing-p99_ms" in verdict(row(**{**pinned, "meter_samples": 0}, p99_ms="")).flags
    assert "missing-samples" in verdict(row(**{**pinned, "pinned_events": 2000})).flags  # fewer pins than requests
    assert "missing-samples" in verdict(row(**{**pinned, "thread_mode": "platform"})).flags  # no carrier to pin
    assert "missing-samples" in verdict(row(**{**pinned, "cpu_samples": 20})).flags  # vtlab's own sampler short
    assert "missing-samples" in verdict(row(**{**pinned, "pinned_events": ""})).flags  # no JFR read
