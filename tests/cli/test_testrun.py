"""`vtlab test`'s account of itself: the slowest tests, read from pytest's JUnit XML."""

from vtlab.cli import testrun

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.e2e.test_e2e" name="test_tiny" time="95.250" />
<testcase classname="tests.measure.test_settle" name="test_rule" time="0.010" />
<testcase classname="tests.e2e.test_e2e" name="test_spike" time="120.000"><failure message="x" /></testcase>
<testcase classname="tests.cli.test_flags" name="test_bad_flag" time="2.5" />
</testsuite></testsuites>
"""


def test_the_slowest_tests_come_first_with_their_seconds(tmp_path):
    results = tmp_path / "junit.xml"
    results.write_text(JUNIT)
    lines = testrun.slowest(results, 2).splitlines()
    assert lines[0] == "vtlab test: the 2 slowest of 4 tests"
    assert lines[1].split() == ["120.0", "s", "tests.e2e.test_e2e::test_spike"]
    assert lines[2].split() == ["95.2", "s", "tests.e2e.test_e2e::test_tiny"]


def test_no_results_is_said_as_such(tmp_path):
    assert testrun.slowest(tmp_path / "missing.xml", 10) == "vtlab test: pytest wrote no results"


def test_everything_after_test_goes_to_pytest_as_given(monkeypatch):
    from vtlab.cli import main

    handed = []
    monkeypatch.setattr(testrun, "cmd_test", lambda args: handed.append(args.pytest_args) or 0)
    assert main.main(["test", "-k", "tiny or spike", "--basetemp", "/tmp/x", "tests/e2e"]) == 0
    assert main.main(["test"]) == 0
    assert handed == [["-k", "tiny or spike", "--basetemp", "/tmp/x", "tests/e2e"], []]


def test_record_without_live_is_refused_before_anything_runs(monkeypatch, capsys):
    from vtlab.cli import main

    ran = []
    monkeypatch.setattr(testrun, "run_all", lambda args: ran.append(args) or 0)
    assert main.main(["test", "--record", "-k", "gc"]) == 2
    assert "--record keeps what the live proofs measured: give --live with it" in capsys.readouterr().err
    assert main.main(["test", "--live", "--record", "-k", "gc"]) == 0
    assert ran == [["--live", "--record", "-k", "gc"]]
