"""A wall is named only where the row showed it saturated: each bottleneck class and flag on an edited row with
known numbers, and beside it the same row without that evidence, which does not get the name."""

import math

from vtlab.core import constants
from vtlab.explain import analyze
from vtlab.results import record
from vtlab.series import store
from vtlab.results.rows import typed

from rows import APACHE_WALL, CLIENT_LOW, META, RUN, row


def verdict(*rows, run=RUN):
    return analyze.analyse(list(rows), run).verdicts[-1]


# --- the resources ---------------------------------------------------------------------------------

PLATFORM_WALL = dict(thread_mode="platform", concurrency=1000, throughput_rps=196, http_reqs=5880, ok_requests=5880,
                     tomcat_connections_max=1000, p50_ms=5000, mean_ms=5100, p99_ms=5200)


def test_thread_pool_needs_more_requests_in_flight_than_threads():
    wall = verdict(row(thread_mode="platform"), row(**PLATFORM_WALL))
    assert wall.bottleneck == "thread-pool" and wall.evidence == "in flight 1000 > threads 200"
    # 150 users on 200 threads, latency unloaded: no thread was ever wanting
    under = verdict(row(thread_mode="platform"), row(thread_mode="platform", concurrency=150, throughput_rps=148,
                                                     tomcat_connections_max=150, mean_ms=1012))
    assert under.bottleneck == "downstream" and "in flight" not in under.evidence


HELD = dict(conn_mode="held", concurrency=100, throughput_rps=49.6, http_reqs=1488, ok_requests=1488, p50_ms=2000,
            mean_ms=2010, hikari_active_max=50, hikari_pending_max=0, hikari_pending_share=0)


def test_connection_pool_needs_every_connection_out_and_threads_waiting():
    pinned = verdict(row(**HELD, pool_out_mean=49.8, pool_waiting_mean=48))
    assert pinned.bottleneck == "connection-pool"
    assert pinned.evidence == "pool 50: out 50 mean, waiters 48 mean (timers)"
    # the same row with no one waiting for a connection: the pool is not named (and nothing else is seen)
    idle = verdict(row(**HELD, pool_out_mean=49.8, pool_waiting_mean=0.2))
    assert idle.bottleneck == "unexplained" and "waiters 0.2 mean" in idle.evidence


# k6 light (4% of one core): on a full shared host the generator's cost stays inside the between-run noise
HOT = dict(concurrency=3000, throughput_rps=1500, http_reqs=45000, ok_requests=45000, app_cpu_pct=181,
           load_cpu_pct=4, load_cpu_pct_max=5, mean_ms=2000, p50_ms=1990)


def test_cpu_needs_the_host_or_the_service_at_90_percent():
    assert verdict(row(), row(**HOT, host_cpu_pct=97)).bottleneck == "cpu"
    cooler = verdict(row(), row(**dict(HOT, app_cpu_pct=60), host_cpu_pct=60))
    assert cooler.bottleneck == "unexplained" and "host 60%" in cooler.evidence


# The failing virtual point, in words: the host 83% busy (below the 90% wall), the service 60% of one core
QUEUED = dict(HOT, app_cpu_pct=60, host_cpu_pct=83)
# PSI's words, with this version's thresholds: a runnable thread waiting a quarter of the hold, the host ≥ 60% busy
PSI_WALL = "(PSI; wall at 25% on a host ≥ 60% busy)"


def test_cpu_is_the_wall_short_of_90_percent_where_the_tiers_queued_for_a_cpu():
    queued = verdict(row(), row(**QUEUED, cpu_pressure_pct=41))
    assert queued.bottleneck == "cpu"
    assert queued.evidence == f"host 83% busy, and for 41% of the hold a runnable thread waited for a CPU {PSI_WALL}"


def test_pressure_not_read_leaves_the_verdict_and_its_words_as_they_were():
    unread = verdict(row(), row(**QUEUED))  # an older kernel, PSI off, a run from before: the cell empty
    assert unread.bottleneck == "unexplained"
    assert "; host 83%, service 30% of its cores (wall at 90%); " in unread.evidence
    assert "PSI" not in unread.evidence and "runnable" not in unread.evidence


def test_little_pressure_or_an_idle_host_is_no_cpu_wall():
    light = verdict(row(), row(**QUEUED, cpu_pressure_pct=10))  # a tenth of the hold: no queue the requests stood in
    assert light.bottleneck == "unexplained"
    assert f"(wall at 90%); a runnable thread waited for a CPU 10% of the hold {PSI_WALL}" in light.evidence
    idle = verdict(row(), row(**dict(QUEUED, host_cpu_pct=40), cpu_pressure_pct=50))  # a burst on a host 40% busy
    assert idle.bottleneck == "unexplained" and "host 40%" in idle.evidence
    assert f"a runnable thread waited for a CPU 50% of the hold {PSI_WALL}" in idle.evidence


def test_a_closed_row_at_its_unloaded_latency_is_held_by_its_users_whatever_the_pressure():
    # 1,012 ms against the unloaded 1,012: nothing waited, the users set the rate; the pressure is said, not named
    at_ceiling = verdict(row(mean_ms=1012), row(**dict(QUEUED, mean_ms=1012, p50_ms=1010), cpu_pressure_pct=41))
    assert at_ceiling.bottleneck == "downstream"
    waited = verdict(row(mean_ms=1012), row(**dict(QUEUED, mean_ms=1300, p50_ms=1300), cpu_pressure_pct=41))  # +28%
    assert waited.bottleneck == "cpu"


def test_pressure_on_tiers_with_cores_of_their_own_is_no_cpu_wall():
    # k6 on cores 2-3: the host's pressure may be its queue, not the service's
    apart = record.from_dict({**META, "core_map": "app=0-1 pg=0-1 stub=0-1 load=2-3"})
    assert verdict(row(), row(**QUEUED, cpu_pressure_pct=41), run=apart).bottleneck != "cpu"


def test_the_pressure_thresholds_are_the_runs_recorded_constants():
    queued = row(**QUEUED, cpu_pressure_pct=41)
    assert verdict(row(), queued, run=recorded(cpu_pressure_wall_pct=50.0)).bottleneck == "unexplained"
    assert verdict(row(), queued, run=recorded(cpu_pressure_host_min_pct=85.0)).bottleneck == "unexplained"


def test_downstream_needs_the_latency_to_be_the_unloaded_latency_mostly_the_call():
    clean = verdict(row(mean_ms=1012))
    assert clean.bottleneck == "downstream"
    assert clean.evidence == "latency 1012 ms vs unloaded 1010 ms (≤ +20%); designed wait 1000 ms"


def test_a_row_far_below_its_ceilings_with_nothing_saturated_is_unexplained_with_its_gap():
    """The issue's row: 40% of its ceiling, host 35%, nothing waiting for a connection, requests taking 2.4× the
    downstream's time. It was named downstream by elimination; now its gap and what was checked are said."""
    slow = row(concurrency=400, throughput_rps=165, http_reqs=4950, ok_requests=4950, mean_ms=2424, p50_ms=2400,
               host_cpu_pct=35, app_cpu_pct=40, pool_out_mean=0.4, pool_waiting_mean=0)
    result = verdict(row(), slow)
    assert result.bottleneck == "unexplained" and result.valid
    assert result.evidence.startswith("attained 42% of the concurrency ceiling 396 req/s; no wall named: ")
    for checked in ("host 35%", "waiters 0 mean", "in flight", "latency 2424 ms vs unloaded 1010 ms"):
        assert checked in result.evidence


def test_users_are_the_wall_where_latency_is_unloaded_but_not_a_downstream_call():
    # no downstream call: 10 users at 5 ms each — the users, not a call, set the 2,000 req/s
    local = dict(stub_delay_ms=0, concurrency=10, throughput_rps=1990, http_reqs=59700, ok_requests=59700, p50_ms=5,
                 mean_ms=5.02)
    assert verdict(row(**local)).bottleneck == "users"
    # a 4 ms call in those 5 ms: the downstream's time
    assert verdict(row(**dict(local, stub_delay_ms=4))).bottleneck == "downstream"


OPEN = dict(load_model="open", target_rps=150, concurrency=300, throughput_rps=150, ok_requests=4500, http_reqs=4500,
            mean_ms=1004, p50_ms=1003)


def test_an_open_row_that_kept_up_is_bound_by_the_load_offered_and_one_that_fell_short_is_unexplained():
    kept_up = verdict(row(**OPEN))
    assert kept_up.bottleneck == "users" and kept_up.valid
    assert kept_up.evidence == "open model: 150 of 150 req/s offered, 0 dropped"
    short = verdict(row(**dict(OPEN, throughput_rps=120, ok_requests=3600, http_reqs=3600)))
    assert short.bottleneck == "unexplained"


# --- the new classes ---------------------------------------------------------------------------------

def test_gc_pauses_a_large_share_of_the_hold_are_named_gc():
    """The issue's row: paused by GC for 40% of the hold, host CPU 70%, at 57% of its ceiling."""
    paused = dict(concurrency=400, throughput_rps=226, http_reqs=6780, ok_requests=6780, mean_ms=1770,
                  host_cpu_pct=70, app_cpu_pct=90)
    result = verdict(row(), row(**paused, gc_pause_ms=12000))
    assert result.bottleneck == "gc" and result.valid
    assert result.evidence.startswith("GC paused 40% of the hold (12000 ms of 30 s")
    assert verdict(row(), row(**paused, gc_pause_ms=300)).bottleneck == "unexplained"


def test_the_gc_threshold_is_the_runs_recorded_constant():
    paused = row(gc_pause_ms=4500)  # 15% of a 30 s hold
    assert verdict(paused).bottleneck == "gc"  # this version's wall: 10%
    lenient = record.from_dict({**META, "rig": {"gc_pause_share": 0.2}})
    assert verdict(paused, run=lenient).bottleneck == "downstream"
    assert constants.record()["gc_pause_share"] == 0.10


def test_a_silence_in_the_series_is_a_stall_where_the_rows_rate_makes_it_one():
    # 8 s without a success started (a SIGSTOP the live watch, needing ~10 s, did not see) at 98 req/s: ~784 missed
    silent = verdict(row(longest_silence_s=8))
    assert (silent.bottleneck, silent.valid) == ("stall", False) and "stall" in silent.flags
    assert silent.evidence == ("no request that succeeded started in 8 s of the hold in a row, where its 98.0 req/s "
                               "would have completed 784")
    # under stall_silence_s (5 s): a hiccup, not a stall
    assert verdict(row(longest_silence_s=4)).bottleneck == "downstream"
    # a slow row's quiet seconds: 6 s at 2 req/s would have completed 12, under stall_missed_requests (20)
    slow = verdict(row(longest_silence_s=6, throughput_rps=2, ok_requests=60, http_reqs=60))
    assert "stall" not in slow.flags and slow.bottleneck != "stall"
    # the thresholds are the run's, recorded
    strict = record.from_dict({**META, "rig": {**META["rig"], "stall_silence_s": 10}})
    assert analyze.analyse([row(longest_silence_s=8)], strict).verdicts[0].bottleneck == "downstream"


def test_a_recorded_stall_is_named_and_makes_the_row_invalid():
    stall = "stalled 12 s after k6 started: 0.0 req/s completed for 9 s while the users waited"
    stalled = verdict(row(stall=stall, throughput_rps=60, ok_requests=1800, http_reqs=1800))
    assert (stalled.bottleneck, stalled.evidence) == ("stall", stall)
    assert "stall" in stalled.flags and not stalled.valid
    unstalled = verdict(row(stall=""))
    assert unstalled.bottleneck == "downstream" and "stall" not in unstalled.flags


FAILING = dict(error_rate=0.05, throughput_rps=93, ok_requests=2793)


def test_a_service_out_of_heap_is_named_out_of_memory_never_overload_or_the_cpu_and_is_never_valid():
    """The issue's 10,000-user row: OutOfMemoryError in the log, the collector burning the CPU, connections timing
    out (503) and the host full — named by its heap, whatever else it shows."""
    thrown = dict(concurrency=10000, throughput_rps=2, ok_requests=60, http_reqs=446, error_rate=0.87,
                  errors_by_status="503=386", host_cpu_pct=99, app_cpu_pct=190, oom_errors=14, gc_cpu_pct=180,
                  heap_live_mb_max=1010, heap_old_max_mb=1024)
    out = verdict(row(**thrown))
    assert (out.bottleneck, out.valid) == ("out-of-memory", False) and "out-of-memory" in out.flags
    assert out.evidence == ("14 lines of the service's log name an OutOfMemoryError; its collector used 95% of its "
                            "CPU (wall at 50%); 1010 of 1024 MB of long-lived heap still live after collections "
                            "(99%; full at 90%)")
    # no error yet, but the collector ran most of the time and freed little: out of memory too
    thrashing = verdict(row(**{**thrown, "oom_errors": 0}))
    assert thrashing.bottleneck == "out-of-memory" and thrashing.evidence.startswith("its collector used 95%")
    # the collector busy while most of the heap was free after collections: a cost (the gc wall's to name), not
    # the heap's end
    busy = verdict(row(**{**thrown, "oom_errors": 0, "heap_live_mb_max": 400}))
    assert busy.bottleneck == "overload" and "out-of-memory" not in busy.flags
    # the heap full of live data while the collector took little: not out of memory
    full = verdict(row(**{**thrown, "oom_errors": 0, "gc_cpu_pct": 20}))
    assert full.bottleneck == "overload"
    # a service whose log and threads vtlab cannot read (--url) shows neither
    unread = verdict(row(**{**thrown, "oom_errors": "", "gc_cpu_pct": "", "heap_live_mb_max": "",
                            "heap_old_max_mb": ""}))
    assert unread.bottleneck == "overload" and "out-of-memory" not in unread.flags


def test_the_out_of_memory_thresholds_are_the_runs_recorded_constants():
    thrashing = row(gc_cpu_pct=60, app_cpu_pct=100, heap_live_mb_max=95, heap_old_max_mb=100)
    assert verdict(thrashing).bottleneck == "out-of-memory"
    lenient = record.from_dict({**META, "rig": {**META["rig"], "gc_cpu_share": 0.7}})
    assert verdict(thrashing, run=lenient).bottleneck != "out-of-memory"
    assert (constants.record()["gc_cpu_share"], constants.record()["heap_live_full_share"]) == (0.5, 0.9)


def test_failures_are_not_an_overload_and_refusals_are():
    """5% HTTP 500s at 100 users far below every ceiling is a bug, not an overload; so is a dead service's status
    0. 503s are refusals under load."""
    bug = verdict(row(**FAILING, errors_by_status="500=147"))
    assert bug.bottleneck == "failures" and not bug.valid and "errors-above-threshold" in bug.flags
    assert bug.evidence == "147 of 2940 requests failed other than by refusal (500=147)"
    assert verdict(row(**FAILING, errors_by_status="0=147")).bottleneck == "failures"
    refused = verdict(row(**FAILING, errors_by_status="503=147"))
    assert refused.bottleneck == "overload" and refused.evidence.startswith("147 refused (503/504)")
    # below the 1% threshold neither is named
    assert verdict(row(error_rate=0.007, errors_by_status="500=20")).bottleneck == "downstream"
    # failures without a breakdown by status (older CSVs): failures, never a guessed refusal
    unknown = verdict(row(**FAILING))
    assert unknown.bottleneck == "failures" and unknown.evidence.endswith("statuses not recorded")


def test_the_generator_on_shared_cores_is_named_with_what_the_cross_check_prices_its_share_at():
    hog = verdict(row(concurrency=2000, throughput_rps=900, host_cpu_pct=97, app_cpu_pct=70, load_cpu_pct=105,
                      load_cpu_pct_max=120, ok_requests=27000, http_reqs=27000))
    assert hog.bottleneck == "load-generator" and not hog.valid
    # 105% of one core is 52.5% of 2; at the pinned slope 1.0 that costs ~52.5%, against a floor of t(4) × 1%; the
    # pinned record has the slope alone, so nothing bounds the correction
    assert hog.evidence == ("shared cores, host 97% busy (≥ 90%): k6 took 52% of the machine, costing the row ~52% "
                            "of its throughput (cross-checked against wrk) against a between-run noise of ±2.8%; "
                            "not bounded: the run recorded no uncertainty for the generator's price (recorded "
                            "before vtlab measured one)")
    # the same share priced by a cross-check that found it nearly free (slope 0.04): 2.1%, inside the noise
    cheap = record.from_dict({**META, "rig": {**META["rig"], "generator_loss_per_share": 0.04}})
    free = analyze.analyse([row(concurrency=2000, throughput_rps=900, host_cpu_pct=97, app_cpu_pct=70,
                                load_cpu_pct=105, load_cpu_pct_max=120, ok_requests=27000, http_reqs=27000)],
                           cheap).verdicts[0]
    assert free.bottleneck == "cpu" and "generator-interference" not in free.flags


VU_CAP = dict(load_model="open", target_rps=100, concurrency=200, stub_delay_ms=5000, throughput_rps=80,
              ok_requests=2400, http_reqs=2400, mean_ms=5000, p50_ms=5000, dropped_iterations=600)


def test_an_open_row_whose_vus_were_all_busy_while_arrivals_dropped_is_k6s_vu_cap():
    """100 arrivals/s at 5 s each need 500 users; k6 may grow to 400 (twice the 200 pre-allocated): 80 req/s and
    the rest dropped, k6 idle, the service's threads unbounded — k6's own cap was the wall."""
    capped = verdict(row(**VU_CAP))
    assert capped.bottleneck == "vu-cap" and not capped.valid
    assert "vu-cap" in capped.flags and "offered-above-capacity" not in capped.flags
    assert capped.evidence == "600 arrivals dropped, in flight 400 of k6's 400 VUs"
    # the service's own wall first: platform threads, 400 in flight on 200 threads, served 200 ÷ 5 s
    threads = verdict(row(**dict(VU_CAP, throughput_rps=40, ok_requests=1200, http_reqs=1200, mean_ms=10000),
                          thread_mode="platform", tomcat_connections_max=400))
    assert threads.bottleneck == "thread-pool" and threads.flags == ("offered-above-capacity",) and threads.valid
    # nothing dropped: k6 had users to spare
    assert verdict(row(**dict(VU_CAP, dropped_iterations=0))).bottleneck != "vu-cap"


# --- predictions the row passed -------------------------------------------------------------------------

SAMPLED_POOL = dict(conn_mode="held", concurrency=100, hikari_active_max=50, hikari_pending_max=50,
                    hikari_pending_share=1, http_reqs=2400, ok_requests=2400)


def test_a_ceiling_the_row_passed_beyond_its_interval_is_flagged_and_never_named():
    # 50 held connections for 1.01 s each carry 49.5 req/s; the row served 80 ± 2: the prediction was wrong
    passed = verdict(row(**SAMPLED_POOL, throughput_rps=80, throughput_ci95_rps=2, p50_ms=1250, mean_ms=1250))
    assert "ceiling-exceeded:connection-pool" in passed.flags
    # the passed ceiling limits nothing: the next one up stands, 100 users ÷ the 1 s downstream = 100 req/s
    assert (passed.limit, passed.ceiling_rps, passed.attained) == ("concurrency", 100, 0.8)
    assert passed.bottleneck != "connection-pool" and passed.valid
    # at the ceiling, and past it only within its interval: the pool, named
    at = verdict(row(**SAMPLED_POOL, throughput_rps=49.7, p50_ms=2010, mean_ms=2010))
    assert at.bottleneck == "connection-pool" and not [f for f in at.flags if f.startswith("ceiling-exceeded")]
    within = verdict(row(**SAMPLED_POOL, throughput_rps=51, throughput_ci95_rps=2, p50_ms=1960, mean_ms=1960))
    assert within.bottleneck == "connection-pool" and within.flags == ()


# --- steadiness shown, not assumed ----------------------------------------------------------------------

def test_a_trend_too_wide_to_show_steadiness_is_too_noisy_not_steady():
    """0 ± 180% (ten seconds of nothing in the middle of the hold) was taken as steady; now it is too noisy."""
    noisy = verdict(row(throughput_trend_pct=0, throughput_trend_ci95_pct=180))
    assert "too-noisy" in noisy.flags and not noisy.valid and "not-steady" not in noisy.flags
    assert "too-noisy" in verdict(row(throughput_trend_pct=14, throughput_trend_ci95_pct=20)).flags
    quiet = verdict(row(throughput_trend_pct=0.8, throughput_trend_ci95_pct=4.7))
    assert quiet.valid and quiet.flags == ()
    # a drift its interval shows is not-steady, whatever the width
    assert verdict(row(throughput_trend_pct=40, throughput_trend_ci95_pct=15)).flags == ("not-steady",)
    # the threshold is the run's recorded one
    lenient = record.from_dict({**META, "rig": {"trend_noise_max_pct": 25}})
    assert verdict(row(throughput_trend_pct=14, throughput_trend_ci95_pct=20), run=lenient).flags == ()


# --- zero completions ---------------------------------------------------------------------------------------

def test_percentiles_of_nothing_are_missing_not_zero():
    assert math.isnan(store.percentile([], 0.5))


NOTHING = dict(concurrency=10, throughput_rps=0, ok_requests=0, http_reqs=0, p50_ms=0, p99_ms=0, mean_ms=0)


def test_a_row_that_completed_nothing_is_invalid_and_never_the_service_time_reference():
    """Older CSVs wrote p50 = 0 for a row with no successful request: as the lowest-load row it set the
    scenario's service time (a user's service: 1 ms)."""
    nothing, loaded = row(**NOTHING), row(mean_ms=1010)
    empty, measured = analyze.analyse([nothing, loaded], RUN).verdicts
    assert not empty.valid and "no-successful-requests" in empty.flags
    assert measured.service_time_source == "p50 at lowest load" and math.isclose(measured.service_time_ms, 1010)
    users = dict(workload="service", pool_max=50, tomcat_threads_config=200)
    _, theirs = analyze.analyse([row(**NOTHING, **users), row(**users, mean_ms=1010)], RUN).verdicts
    assert math.isclose(theirs.service_time_ms, 1010)
    # the same with its percentiles missing, as written now
    blank = row(**dict(NOTHING, p50_ms="", p99_ms="", mean_ms=""))
    assert "no-successful-requests" in verdict(blank).flags
    assert math.isclose(analyze.analyse([blank, loaded], RUN).verdicts[1].service_time_ms, 1010)


# --- connections ---------------------------------------------------------------------------------------

# The run that found it: 10,000 users on an 8 s downstream, the service's open files capped at 20,000 (one connection
# in and one out per user), its log naming "Too many open files", the scrapes failing, users timing out.
OUT_OF_FILES = dict(concurrency=10000, stub_delay_ms=8000, throughput_rps=1212, ok_requests=36350, http_reqs=89600,
                    error_rate=0.594, errors_by_status="0=53250", p50_ms=8100, mean_ms=8200, open_files_max=19999,
                    open_files_limit=20000, fd_errors=19, tomcat_connections_max="", max_connections=11024,
                    listen_overflows=9782, accept_count=10000, somaxconn=4096, host_cpu_pct=99, app_cpu_pct=184)


def test_a_service_out_of_open_files_is_named_connection_limit_with_its_evidence_not_a_stall_or_the_cpu():
    limited = verdict(row(**OUT_OF_FILES, stall="stalled 40 s after k6 started"))
    assert limited.bottleneck == "connection-limit" and not limited.valid
    assert limited.evidence == ("open files 19999 of 20000 at the peak, 19 lines of its log name 'Too many open "
                                "files'; 9782 connects dropped on the host with an accept queue full (the service's "
                                "backlog 4096)")
    # the same files below the limit and no error for want of one: the wall is not connections
    roomy = verdict(row(**{**OUT_OF_FILES, "open_files_max": 12000, "fd_errors": 0, "listen_overflows": 0}))
    assert roomy.bottleneck != "connection-limit" and "open files 12000 of 20000" not in roomy.evidence.split(";")[0]


def test_tomcats_max_connections_below_the_users_is_the_wall_and_its_ceiling():
    """Spring Boot's 8,192 connections for 10,000 users on a 1 s downstream: 8,192 held, the rest queued."""
    capped = dict(concurrency=10000, throughput_rps=8100, ok_requests=243000, http_reqs=243000, p50_ms=1230,
                  mean_ms=1234, tomcat_connections_max=8192, max_connections=8192, host_cpu_pct=70, app_cpu_pct=100)
    wall = verdict(row(), row(**capped))
    assert wall.bottleneck == "connection-limit"
    assert wall.evidence == "Tomcat connections 8192 of 8192 at the peak for 10000 users"
    # its ceiling: the connections over the unloaded service time (1010 ms at 100 users)
    assert math.isclose(wall.ceilings.connections, 8192 / 1.010, rel_tol=1e-9)
    # fewer users than connections: all at once held, nothing named, and the ceiling stands above the users'
    under = verdict(row(), row(**{**capped, "concurrency": 5000, "tomcat_connections_max": 5000,
                                  "throughput_rps": 4950, "mean_ms": 1011}))
    assert under.bottleneck == "downstream" and under.ceilings.connections > under.ceilings.concurrency


def test_connects_dropped_at_a_full_accept_queue_are_said_but_never_name_the_wall():
    """The kernel counts them for the whole host (the stub's listener, a neighbour's): evidence to read, not a wall."""
    burst = dict(listen_overflows=300, somaxconn=128, accept_count=10000)
    retried = verdict(row(**burst))  # dropped in the ramp, retried, every request of the hold answered
    assert retried.bottleneck == "downstream" and retried.valid
    failed = verdict(row(**burst, error_rate=0.05, ok_requests=2793, throughput_rps=93, errors_by_status="0=147"))
    assert failed.bottleneck == "failures"


def test_a_row_without_connection_figures_has_no_connection_ceiling():
    assert math.isnan(verdict(row()).ceilings.connections)


def test_files_near_the_limit_without_an_error_are_no_wall_the_busy_cpu_is():
    """The headline's 10,000 users on 800 ms: 19,815 of 20,000 files, no 'Too many open files', the host 99% busy."""
    near = verdict(row(), row(**{**HOT, "concurrency": 10000, "open_files_max": 19815, "open_files_limit": 20000,
                                 "fd_errors": 0, "max_connections": 11024, "tomcat_connections_max": 10001},
                          host_cpu_pct=99))
    assert near.bottleneck == "cpu"
    at = verdict(row(), row(**{**HOT, "concurrency": 10000, "open_files_max": 20000, "open_files_limit": 20000,
                               "fd_errors": 0, "tomcat_connections_max": 9900}, host_cpu_pct=99))
    assert at.bottleneck == "connection-limit"


def test_a_thread_per_user_with_the_rigs_own_connection_beside_is_no_thread_pool_wall():
    """The frontier's platform row: 2,000 users on 2,000 threads, 2,001 connections, every request unloaded."""
    per_user = dict(thread_mode="platform", tomcat_max_threads=2000, concurrency=2000, stub_delay_ms=8000,
                    throughput_rps=249.9, http_reqs=7500, ok_requests=7500, p50_ms=8002, mean_ms=8003,
                    tomcat_connections_max=2001)
    assert verdict(row(**{**per_user, "concurrency": 100, "tomcat_connections_max": 100, "throughput_rps": 12.5,
                          "mean_ms": 8002}), row(**per_user)).bottleneck == "downstream"
    queued = verdict(row(**{**per_user, "concurrency": 100, "tomcat_connections_max": 100, "throughput_rps": 12.5,
                            "mean_ms": 8002}), row(**{**per_user, "tomcat_connections_max": 2400}))
    assert queued.bottleneck == "thread-pool" and queued.evidence == "connections open 2400 > threads 2000"


# --- the downstream client's pool ------------------------------------------------------------------

def test_a_client_pool_full_with_requests_waiting_is_the_wall_at_its_ceiling():
    wall = verdict(row(**CLIENT_LOW), row(**APACHE_WALL))
    assert wall.bottleneck == "client-pool" and wall.limit == "client-pool"
    assert wall.evidence == ("apache client pool 5 per route: leased 5 mean, waiting 994 mean (995 max, in 100% of "
                             "samples)")
    # 5 connections, each held for the 100 ms call
    assert math.isclose(wall.ceilings.client_pool, 50.0, rel_tol=1e-9)
    assert math.isclose(wall.ceiling_rps, 50.0, rel_tol=1e-9)
    # the same row with its pool not full, nobody waiting: the pool is not named
    roomy = verdict(row(**CLIENT_LOW), row(**{**APACHE_WALL, "client_leased_mean": 3, "client_pending_mean": 0,
                                              "client_pending_max": 0, "client_pending_share": 0}))
    assert roomy.bottleneck != "client-pool" and "apache client pool 5 per route: leased 3 mean" in roomy.evidence


def test_a_fan_out_holds_two_connections_a_request_and_a_sized_pool_is_read_from_its_meters():
    fanout = verdict(row(**{**APACHE_WALL, "workload": "fanout", "fanout": "structured", "client_pool": 40,
                            "client_pool_max": 40}))
    assert math.isclose(fanout.ceilings.client_pool, 40 / 0.2, rel_tol=1e-9)
    # a row from before the meters: the size it set, still the ceiling; with neither, no ceiling at all
    unmetered = {k: v for k, v in APACHE_WALL.items() if not k.startswith("client_")}
    assert math.isclose(verdict(row(**unmetered, client_pool=20)).ceilings.client_pool, 200.0, rel_tol=1e-9)
    assert math.isnan(verdict(row(**unmetered)).ceilings.client_pool)


def test_a_client_without_a_connection_limit_has_no_client_pool_ceiling_and_is_never_that_wall():
    jdk = verdict(row(client_pool_max=-1))
    assert math.isinf(jdk.ceilings.client_pool) and jdk.bottleneck == "downstream"
    # a row from before the clients: the JDK's client, nothing measured, nothing said
    assert math.isnan(verdict(row()).ceilings.client_pool) and "client" not in verdict(row()).evidence


def test_jettys_virtual_thread_pool_caps_the_requests_at_its_concurrent_tasks_like_platform_threads():
    """Spring Boot's Jetty under virtual threads: a VirtualThreadPool of at most 200 concurrent tasks (Jetty's
    default), reported as the server's threads: 1,000 users queue for them as for a platform pool."""
    capped = dict(server="jetty", concurrency=1000, throughput_rps=197, http_reqs=5910, ok_requests=5910,
                  p50_ms=5000, mean_ms=5050, p99_ms=5300, server_max_threads=200, tomcat_connections_max=1000)
    wall = verdict(row(server="jetty", server_max_threads=200), row(**capped))
    assert wall.bottleneck == "thread-pool" and wall.evidence == "in flight 1000 > threads 200"
    assert math.isclose(wall.ceilings.threads, 200 / 1.010, rel_tol=1e-9)
    # Tomcat's virtual threads report no cap (-1): nothing to wait for
    assert math.isinf(verdict(row(server_max_threads=-1)).ceilings.threads)


def test_a_waiter_in_one_sample_is_a_hiccup_not_the_client_pools_wall():
    hiccup = {**APACHE_WALL, "concurrency": 5, "throughput_rps": 48.5, "p50_ms": 103, "mean_ms": 103,
              "client_leased_mean": 4.9, "client_pending_mean": 0.02, "client_pending_max": 1,
              "client_pending_share": 0.02}
    seen = verdict(row(**CLIENT_LOW), row(**hiccup))
    assert seen.bottleneck == "downstream"


def test_a_users_service_pool_is_judged_by_its_gauges_alone_with_no_ceiling_from_a_call_it_does_not_design():
    theirs = {k: v for k, v in APACHE_WALL.items() if k not in ("http_client", "stub_delay_ms")}
    service = verdict(row(**theirs, workload="service", hikari_pool=0, tomcat_max_threads=0, stub_delay_ms=0))
    assert math.isnan(service.ceilings.client_pool)
    assert service.bottleneck == "client-pool"
    assert service.evidence.startswith("the service's client pool 5 per route: leased 5 mean")


# --- the thresholds are the run's, as it recorded them ------------------------------------------------------

def recorded(**thresholds):
    """The run record of a run that measured with these thresholds (the rest as rows.META pins them)."""
    return record.from_dict({**META, "rig": {**META["rig"], **thresholds}})


def test_the_error_limit_is_the_runs_recorded_one():
    failing = row(error_rate=0.02, errors_by_status="500=59")  # 2% of 2,940 requests failed
    judged = verdict(failing)  # this version's limit: 1%
    assert (judged.flags, judged.bottleneck, judged.valid) == (("errors-above-threshold",), "failures", False)
    lenient = verdict(failing, run=recorded(error_rate_max=0.05))
    assert (lenient.flags, lenient.bottleneck, lenient.valid) == ((), "downstream", True)


def test_the_drift_a_steady_hold_may_show_is_the_runs_recorded_one():
    drifting = row(throughput_trend_pct=14, throughput_trend_ci95_pct=5)  # 14 ± 5%: a drift its noise cannot explain
    assert verdict(drifting).flags == ("not-steady",)  # this version's: 10%
    assert verdict(drifting, run=recorded(drift_max=0.2)).flags == ()
    halves = row(throughput_first_half_rps=90, throughput_second_half_rps=106)  # no series: halves 16% apart
    assert verdict(halves).flags == ("not-steady",)
    assert verdict(halves, run=recorded(drift_max=0.2)).flags == ()


def test_saturation_is_the_runs_recorded_share():
    warm = row(**dict(HOT, app_cpu_pct=60), host_cpu_pct=87)
    assert verdict(row(), warm).bottleneck == "unexplained"  # this version's wall: 90%
    strict = verdict(row(), warm, run=recorded(saturated_share=0.85))
    assert (strict.bottleneck, strict.evidence) == ("cpu", "host 87%, service 30% of its cores (wall at 85%)")


def test_an_open_models_idle_connections_are_no_thread_pool_wall():
    """A capacity search's platform point: 141 req/s at 1 s, ~145 in flight on 200 threads, but k6's ~560 VUs each
    keep a connection open between their arrivals: the connections say nothing of the threads there."""
    opened = dict(thread_mode="platform", load_model="open", target_rps=141, concurrency=564, throughput_rps=141,
                  http_reqs=2820, ok_requests=2820, p50_ms=1010, mean_ms=1012, p99_ms=1020, tomcat_connections_max=560)
    point = verdict(row(thread_mode="platform"), row(**opened))
    assert point.bottleneck != "thread-pool" and "connections open" not in point.evidence
    closed = verdict(row(thread_mode="platform"), row(**{**opened, "load_model": "closed", "target_rps": 0,
                                                         "concurrency": 560, "mean_ms": 2800, "p50_ms": 2800}))
    assert closed.bottleneck == "thread-pool"  # the same connections from users, each with a request out


def test_under_a_cpu_quota_the_cpu_wall_is_read_against_the_quotas_cores():
    """An emulated slower machine: the rig held to 1.4 of 2 cores. The row recorded its host busy against the quota
    (holdstats) and the quota itself; the CPU ceiling counts 1.4 cores, and the evidence says so."""
    cpu_bound = dict(thread_mode="virtual", concurrency=2000, throughput_rps=1200, http_reqs=36000,
                     ok_requests=36000, p50_ms=1600, mean_ms=1650, p99_ms=2400, host_cpu_pct=96, app_cpu_pct=95,
                     load_cpu_pct=2, cpu_quota_cores=1.4)
    wall = verdict(row(), row(**cpu_bound))
    assert wall.bottleneck == "cpu", (wall.bottleneck, wall.evidence)
    assert "of the 1.4 cores its CPU quota allows" in wall.evidence
    context = analyze.context([typed(row()), typed(row(**cpu_bound))], RUN)
    assert context.host_cpus == 1.4


def test_a_hold_not_steady_on_a_full_host_whose_throughput_followed_k6s_cost_names_the_hosts_speed():
    from vtlab.explain.validity import host_speed_note

    rig = constants.CURRENT
    # tp4's platform row (2026-11-28): its batches' throughput against k6's CPU a request, r = -0.963, slope -1.04,
    # on a host 99% busy
    slowed = {"host_speed_slope": -1.04, "host_speed_r2": 0.928, "host_cpu_pct": 99}
    assert host_speed_note(typed(slowed), rig) == "host-speed:93%"
    assert host_speed_note(typed({**slowed, "host_speed_slope": -0.4}), rig) == ""  # 0.6 from -1: outside the band
    assert host_speed_note(typed({**slowed, "host_speed_slope": -1.6}), rig) == ""
    assert host_speed_note(typed({**slowed, "host_speed_r2": 0.3}), rig) == ""      # under half the variance
    assert host_speed_note(typed({**slowed, "host_cpu_pct": 60}), rig) == ""  # room on the host: not the CPU's race
    assert host_speed_note(typed({"host_cpu_pct": 99}), rig) == ""            # not measured: nothing said
    # in a verdict: the note beside not-steady or too-noisy, which stands
    seen = verdict(row(throughput_trend_pct=-27, throughput_trend_ci95_pct=22, host_cpu_pct=99,
                       host_speed_slope=-1.04, host_speed_r2=0.928))
    assert "not-steady" in seen.flags and "host-speed:93%" in seen.flags and not seen.valid
    noisy = verdict(row(throughput_trend_pct=0, throughput_trend_ci95_pct=18, host_cpu_pct=99,
                        host_speed_slope=-0.9, host_speed_r2=0.8))
    assert "too-noisy" in noisy.flags and "host-speed:80%" in noisy.flags and not noisy.valid
    steady = verdict(row(throughput_trend_pct=2, throughput_trend_ci95_pct=3, host_cpu_pct=99,
                         host_speed_slope=-1.0, host_speed_r2=0.9))
    assert not [flag for flag in steady.flags if flag.startswith("host-speed")]  # a steady hold needs no cause
