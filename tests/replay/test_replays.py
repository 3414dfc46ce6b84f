"""Every live proof's assertions, replayed on the run folder it recorded (tests/recorded/): today's analysis and
report derived again from the figures a real run measured, in seconds and the same on any machine.

Each replay names the live test that recorded it; `./vtlab test --live --record` records them again."""

from __future__ import annotations

import proofs
from recordings import replayed

THREADS = 10  # the generic-path proof's Tomcat threads (tests/e2e/test_e2e_service.py)
SETTLED_WARMUP_S = 60  # the settled-warm-up proof's --warmup bound (tests/e2e/test_e2e.py)


def test_both_modes_measure_sane_values_costs_and_profiles(tmp_path):
    proofs.tiny_matrix(replayed("tiny-matrix", tmp_path))


def test_a_run_interrupted_killed_and_resumed_keeps_every_row(tmp_path):
    proofs.interrupted_and_resumed(replayed("interrupted-resumed", tmp_path))


def test_a_busy_neighbour_and_killed_tiers_are_flagged_and_kept_out_of_the_verdicts(tmp_path):
    proofs.survived_faults(replayed("faults", tmp_path))


def test_the_hold_begins_once_the_row_settled(tmp_path):
    proofs.settled_warm_up(replayed("settled-warm-up", tmp_path), SETTLED_WARMUP_S)


def test_jep491_pins_on_jdk21_not_on_jdk25_and_the_control_pins(tmp_path):
    proofs.jep491(replayed("jep491", tmp_path))


def test_a_lost_write_is_caught_and_an_honest_run_is_not_flagged(tmp_path):
    proofs.writes(replayed("writes", tmp_path, "honest"), replayed("writes", tmp_path, "lossy"))


def test_fanout_pools_context_latency_and_the_reactive_twin_show_in_their_figures(tmp_path):
    proofs.variants(replayed("variants", tmp_path))


def test_a_spike_is_queued_behind_the_platform_wall_and_recovers(tmp_path):
    proofs.spike(replayed("spike", tmp_path))


def test_a_paused_service_is_named_a_stall_and_never_valid(tmp_path):
    proofs.stall(replayed("stall", tmp_path))


def test_answers_of_500_are_named_failures_not_overload(tmp_path):
    proofs.failures(replayed("failures", tmp_path))


def test_a_collector_pausing_all_the_time_is_named_gc(tmp_path):
    proofs.gc(replayed("gc", tmp_path))


def test_a_thrashing_heap_and_a_thrown_out_of_memory_error_are_named_out_of_memory(tmp_path):
    proofs.out_of_memory(replayed("out-of-memory", tmp_path, "thrashing"),
                         replayed("out-of-memory", tmp_path, "thrown"))


def test_borrows_timing_out_under_load_are_named_overload(tmp_path):
    proofs.overload(replayed("overload", tmp_path))


def test_a_generator_sharing_a_full_host_is_named_load_generator(tmp_path):
    proofs.load_generator(replayed("load-generator", tmp_path))


def test_the_memory_probe_fits_a_waiting_request_per_thread_model(tmp_path):
    proofs.memory_probe(replayed("memory-probe", tmp_path))


def test_a_users_jar_through_the_generic_path_gets_the_built_in_verdicts(tmp_path):
    proofs.generic_path(replayed("generic-path", tmp_path, "builtin"), replayed("generic-path", tmp_path, "generic"),
                        THREADS)


def test_a_users_k6_script_is_counted_exactly(tmp_path):
    proofs.users_script(replayed("users-script", tmp_path, "script"))


def test_a_url_service_is_measured_client_side_and_says_what_it_could_not(tmp_path):
    proofs.url_service(replayed("url-service", tmp_path, "url"))


def test_three_runners_merge_to_one_processs_counts_and_percentiles(tmp_path):
    proofs.runners_merged(replayed("runners-merged", tmp_path, "one"), replayed("runners-merged", tmp_path, "three"))


def test_every_tier_on_an_address_of_its_own_gives_valid_rows(tmp_path):
    proofs.tiers_apart(replayed("tiers-apart", tmp_path, "apart"))
