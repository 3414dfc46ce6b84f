"""The run record: metadata.json read once, typed; older runs upgraded with the documented stand-ins; a file
that cannot be read is an error naming the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vtlab.core import constants, shapes
from vtlab.results import record, table

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.mark.parametrize("name", ["quick-run", "doctored-scenarios"])
def test_each_committed_run_reads_into_a_record(name):
    run = record.read(FIXTURES / name)
    raw = json.loads((FIXTURES / name / table.METADATA_NAME).read_text())
    assert run.version == record.VERSION and run.raw == raw
    assert (run.cpus_available, run.cpu_count, run.core_map) == (2, 2, "app=0-1 pg=0-1 stub=0-1 load=0-1")
    assert run.host == raw["host"] and run.versions == raw["versions"] and run.service == raw["service"]
    assert run.plan is not None and run.plan.profile == "quick" and len(run.plan.rows) == len(raw["plan"]["rows"])
    assert (run.plan.ramp_s, run.plan.hold_s, run.plan.cooldown_s) == (raw["plan"]["ramp_s"], raw["plan"]["hold_s"],
                                                                       raw["plan"]["cooldown_s"])
    assert run.started == raw["started"] and run.finished == raw["finished"]
    assert run.target is None and run.user_service is None and run.kubernetes is None and not run.on_cluster
    assert run.rig == (constants.from_record(raw["rig"]) if "rig" in raw else constants.CURRENT)


def test_the_quick_run_lacks_only_what_was_added_after_it():
    run = record.read(FIXTURES / "quick-run")
    assert run.upgraded == ("plan.jvm_opts", "plan.runners")
    assert (run.plan.jvm_opts, run.plan.runners) == ((), 1)
    assert len(run.doctor) == 12 and run.k6_dashboard is False and run.host_before_run is not None


def test_an_old_run_upgrades_with_the_documented_stand_ins():
    # what vtlab's first runs wrote (152b028): no rig, no cool-down or shape settings, no doctor
    first = {"host": {"cpu_count": 4, "cpus_available": 2}, "versions": {"k6": "v1"}, "core_map": "app=0",
             "plan": {"profile": "quick", "ramp_s": 10, "warmup_s": 45, "hold_s": 30, "stub_delay_ms": 1000,
                      "stub_jitter_ms": 0, "model": "closed", "overrides": {}, "rows": [{"concurrency": 100}]},
             "started": "2026-11-22T10:00:00+00:00", "service": None}
    run = record.from_dict(first)
    # every stand-in of metadata.json's (matrix.csv's columns are the rows' reader's: tests/results/test_rows.py)
    assert set(run.upgraded) == {key for key, _, _ in record.UPGRADES if not key.startswith("matrix.csv")}
    assert run.rig == constants.CURRENT and run.doctor == () and run.k6_dashboard is False
    plan = run.plan
    assert (plan.cooldown_s, plan.spike_multiple, plan.spike_s, plan.step_count) == (
        3, shapes.Shape.multiple, shapes.Shape.spike_s, shapes.Shape.steps)
    assert (plan.java_homes, plan.jvm_opts, plan.runners) == ({}, (), 1)
    assert run.finished == "" and run.service is None and run.recut is None  # stopped before its end


def test_jvm_options_read_as_option_sets_whichever_way_the_run_wrote_them():
    def plan(jvm_opts):
        return {"plan": {"profile": "hero", "ramp_s": 10, "warmup_s": 45, "hold_s": 30, "stub_delay_ms": 1000,
                         "stub_jitter_ms": 0, "model": "closed", "overrides": {}, "rows": [], "jvm_opts": jvm_opts}}
    # since 2026-11-27 one list per --jvm-opts; before, the one set's words
    assert record.from_dict(plan([[], ["-XX:+UseSerialGC", "-Xmx1g"]])).plan.jvm_opts == (
        (), ("-XX:+UseSerialGC", "-Xmx1g"))
    assert record.from_dict(plan(["-XX:+UseParallelGC", "-Xmx4g"])).plan.jvm_opts == (("-XX:+UseParallelGC", "-Xmx4g"),)
    assert record.from_dict(plan([])).plan.jvm_opts == ()


def test_a_folder_without_metadata_reads_as_every_stand_in(tmp_path):
    run = record.read(tmp_path)
    assert run.plan is None and run.host == {} and run.cpus_available == 0 and run.rig == constants.CURRENT


def test_the_targets_runs_record_are_told_apart():
    user = record.from_dict({"target": {"jar": "/a.jar", "url": "", "call": "GET /x", "env_names": []}})
    assert user.user_service == record.UserService("/a.jar", "", "GET /x") and user.kubernetes is None
    cluster = record.from_dict({"target": {"kubernetes": {"runners": 2}}, "cluster": {"load_cpus": 4}})
    assert cluster.user_service is None and cluster.kubernetes == {"runners": 2}
    assert cluster.on_cluster and cluster.cluster_load_cpus == 4.0
    recut = record.from_dict({"recut": {"from_run": "r1", "hold_from_s": 30, "hold_to_s": 60}})
    assert recut.recut == record.Recut("r1", 30.0, 60.0)


def test_what_the_runner_writes_is_read_back_as_written(tmp_path):
    metadata = {**json.loads((FIXTURES / "quick-run" / table.METADATA_NAME).read_text()),
                "rig": {**constants.record(), "tomcat_max_threads": 150}}
    table.write_metadata(tmp_path, metadata)
    run = record.read(tmp_path)
    assert run.rig.tomcat_max_threads == 150 and run.raw == metadata


@pytest.mark.parametrize("content, named", [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"host": "big"}', "host: expected an object"),
    ('{"core_map": 3}', "core_map: expected text"),
    ('{"k6_dashboard": "yes"}', "k6_dashboard: expected true or false"),
    ('{"doctor": [1]}', "doctor: expected a list of objects"),
    ('{"rig": {"tomcat_max_threads": "many"}}', "rig: a constant cannot be read"),
    ('{"plan": {"profile": "quick"}}', "plan: lacks model, ramp_s"),
    ('{"plan": {"profile": "q", "model": "closed", "ramp_s": true, "warmup_s": 1, "hold_s": 1, "stub_delay_ms": 0, '
     '"stub_jitter_ms": 0, "overrides": {}, "rows": []}}', "plan.ramp_s: expected an integer"),
    ('{"version": 2}', "version 2 is newer"),
])
def test_a_malformed_record_is_an_error_naming_the_file_and_the_key(tmp_path, content, named):
    (tmp_path / table.METADATA_NAME).write_text(content)
    with pytest.raises(record.MalformedRecord, match="metadata.json") as error:
        record.read(tmp_path)
    assert named in str(error.value)
