"""The rig's constants travel with the run: what metadata.json recorded is what the analysis uses."""

from __future__ import annotations

from vtlab import rig


def test_the_pinning_threshold_is_read_from_the_recording_settings():
    assert rig.CURRENT.jfr_pinned_threshold_ms == 20  # load/pinning.jfc: <setting name="threshold">20 ms
    assert f"{rig.CURRENT.jfr_pinned_threshold_ms} ms" in rig.PINNING_SETTINGS.read_text()


def test_a_run_is_judged_by_the_constants_it_recorded():
    recorded = {**rig.record(), "meter_interval_s": 1.0, "tomcat_max_threads": 150}
    constants = rig.from_metadata({"rig": recorded})
    assert (constants.meter_interval_s, constants.tomcat_max_threads) == (1.0, 150)
    assert isinstance(constants.cpu_interval_s, float) and isinstance(constants.pool_timeout_ms, int)


def test_a_run_recorded_before_the_constants_were_gets_this_versions():
    assert rig.from_metadata({}) == rig.CURRENT
    assert rig.from_metadata({"rig": {"cpu_interval_s": "0.5"}}).k6_thresholds_exit == rig.CURRENT.k6_thresholds_exit
