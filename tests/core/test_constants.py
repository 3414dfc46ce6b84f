"""The rig's constants travel with the run: what metadata.json recorded is what the analysis uses."""

from __future__ import annotations

import ast
import dataclasses
import json
import math
from pathlib import Path

from vtlab.core import constants
from vtlab.results import record


def test_the_pinning_threshold_is_read_from_the_recording_settings():
    assert constants.CURRENT.jfr_pinned_threshold_ms == 20  # load/pinning.jfc: <setting name="threshold">20 ms
    assert f"{constants.CURRENT.jfr_pinned_threshold_ms} ms" in constants.PINNING_SETTINGS.read_text()


def test_a_run_is_judged_by_the_constants_it_recorded():
    recorded = {**constants.record(), "meter_interval_s": 1.0, "tomcat_max_threads": 150}
    judged = record.from_dict({"rig": recorded}).rig
    assert (judged.meter_interval_s, judged.tomcat_max_threads) == (1.0, 150)
    assert isinstance(judged.cpu_interval_s, float) and isinstance(judged.pool_timeout_ms, int)


def test_a_run_recorded_before_the_constants_were_gets_this_versions():
    assert record.from_dict({}).rig == constants.CURRENT
    old = record.from_dict({"rig": {"cpu_interval_s": 0.5}}).rig
    assert old.k6_thresholds_exit == constants.CURRENT.k6_thresholds_exit


def test_the_recorded_constants_are_read_from_the_rig_record():
    assert constants.from_record({"tomcat_max_threads": 150}).tomcat_max_threads == 150
    assert constants.from_record({}) == constants.CURRENT


def _another(value):
    """Twice the value; for a floor this version has not measured (null over 0 runs), a measured one."""
    return 3.0 if value is None else value * 2 if value else 3


def test_every_recorded_constant_comes_back_as_it_was_recorded():
    # every field set apart from this version's (twice it), written as metadata.json writes it and read back
    changed = {name: _another(value) for name, value in constants.record().items()}
    assert all(changed[name] != value for name, value in constants.record().items())
    back = record.from_dict(json.loads(json.dumps({"rig": changed}))).rig
    assert dataclasses.asdict(back) == changed
    assert all(type(getattr(back, name)) is type(value) for name, value in changed.items())  # an int stays an int


def test_the_verdicts_thresholds_are_in_the_record():
    recorded = constants.record()
    assert {name: recorded[name] for name in (
        "error_rate_max", "drift_max", "cpu_samples_min_share", "meter_samples_min_share", "saturated_share",
        "k6_max_vus_factor", "pool_queue_sample_share", "pool_queue_waiters", "rig_connections",
        "downstream_latency_share", "query_time_s", "cpu_fit_min_ratio", "spread_warning_share", "difference_z",
        "hold_batches", "spike_recovered_p99_ratio", "spike_recovered_for_s", "knee_growth_share",
        "cpu_pressure_wall_pct", "cpu_pressure_host_min_pct")} == {
        "error_rate_max": 0.01, "drift_max": 0.10, "cpu_samples_min_share": 0.5, "meter_samples_min_share": 0.75,
        "saturated_share": 0.90, "k6_max_vus_factor": 2, "pool_queue_sample_share": 0.5, "pool_queue_waiters": 1.0,
        "rig_connections": 2, "downstream_latency_share": 0.5, "query_time_s": 0.002, "cpu_fit_min_ratio": 1.2,
        "spread_warning_share": 0.10, "difference_z": 1.96, "hold_batches": 10, "spike_recovered_p99_ratio": 1.5,
        "spike_recovered_for_s": 3, "knee_growth_share": 0.9, "cpu_pressure_wall_pct": 25.0,
        "cpu_pressure_host_min_pct": 60.0}


# A number set at a module's top in the analysis or the hold's statistics is a threshold the record misses; these are
# not thresholds: the JDK release from which a virtual thread unmounts inside synchronized (JEP 491), the stack a
# platform thread reserves by the JVM's default (-Xss1m on Linux x64), which the advice prices more threads in, and the
# most pairs a next run is told it would need (explain.pairs.MOST_PAIRS: a bound on words, judging no row).
NOT_THRESHOLDS = {"JEP491_JDK", "THREAD_STACK_MIB", "MOST_PAIRS"}


def test_no_threshold_of_the_analysis_is_left_outside_the_record():
    source = Path(constants.__file__).parents[1]
    numbers = {target.id for path in [*(source / "explain").glob("*.py"), *(source / "series").glob("*.py")]
               for node in ast.parse(path.read_text()).body if isinstance(node, ast.Assign)
               and isinstance(node.value, ast.Constant) and type(node.value.value) in (int, float)
               for target in node.targets if isinstance(target, ast.Name)}
    assert numbers == NOT_THRESHOLDS


def test_a_run_that_recorded_the_generators_slope_alone_has_no_bound_for_it():
    # recorded before the slope's uncertainty was: this version's would belong to another measurement's slope
    old = record.from_dict({"rig": {"generator_loss_per_share": 1.475}}).rig
    assert old.generator_loss_per_share == 1.475
    assert math.isnan(old.generator_loss_per_share_ci95) and math.isnan(old.generator_priced_share_max)
    assert math.isnan(old.generator_loss_per_share_se)
    # a run that recorded no price at all is judged by this version's, its uncertainty included
    assert record.from_dict({"rig": {"cpu_interval_s": 0.5}}).rig.generator_loss_per_share_ci95 == (
        constants.CURRENT.generator_loss_per_share_ci95)
    # and one that recorded all of it, by its own
    full = record.from_dict({"rig": {"generator_loss_per_share": 1.5, "generator_loss_per_share_ci95": 0.4,
                                     "generator_loss_per_share_se": 0.1, "generator_priced_share_max": 0.2}}).rig
    assert (full.generator_loss_per_share_ci95, full.generator_priced_share_max) == (0.4, 0.2)
