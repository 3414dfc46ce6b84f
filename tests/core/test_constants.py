"""The rig's constants travel with the run: what metadata.json recorded is what the analysis uses."""

from __future__ import annotations

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
