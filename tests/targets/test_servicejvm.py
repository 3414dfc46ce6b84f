"""A step whose row differs from the step before only in the connection mode runs on the same JVM, switched."""

import dataclasses

import pytest

from vtlab.core import dimensions
from vtlab.targets import servicejvm


def _row(conn_mode: str):
    return dimensions.Row(thread_mode="virtual", concurrency=100, conn_mode=conn_mode)


class _Service:
    """The live service as runtime-info and the switch see it: what it runs now, and what it was asked."""

    def __init__(self, runs: str, obeys: bool = True):
        self.runs, self.obeys, self.asked = runs, obeys, []

    def switch(self, _app, mode):
        self.asked.append(mode)
        if self.obeys:
            self.runs = mode

    def info(self, _app):
        config = servicejvm.app_config(_row(self.runs), 100)
        return {"threadMode": config.thread_mode, "connMode": self.runs, "pathMode": config.path_mode}


@pytest.fixture
def service(monkeypatch):
    live = _Service("released")
    monkeypatch.setattr(servicejvm.services, "switch_conn_mode", live.switch)
    monkeypatch.setattr(servicejvm.services, "runtime_info", live.info)
    monkeypatch.setattr(servicejvm, "mismatches", lambda info, row, users, http="http1": (
        [] if info["connMode"] == row.conn_mode else [f"connMode: asked {row.conn_mode}, runs {info['connMode']}"]))
    return live


def _jvm(info):
    return servicejvm.ServiceJvm(("family",), None, None, dict(info), [], lambda: None, None, "slug")


def test_a_step_in_the_mode_the_jvm_runs_asks_for_no_switch(service):
    jvm = _jvm({"connMode": "released"})
    servicejvm.run_as(jvm, _row("released"), 100)
    assert service.asked == []


def test_a_step_in_another_mode_is_switched_and_read_back(service):
    jvm = _jvm({"connMode": "released"})
    servicejvm.run_as(jvm, _row("held"), 100)
    assert service.asked == ["held"]
    assert jvm.info["connMode"] == "held"  # what the row's CSV line reads is what the service said after


def test_a_service_that_did_not_switch_refuses_the_row(service):
    service.obeys = False
    jvm = _jvm({"connMode": "released"})
    with pytest.raises(RuntimeError, match="after the switch: connMode: asked held, runs released"):
        servicejvm.run_as(jvm, dataclasses.replace(_row("held")), 100)
