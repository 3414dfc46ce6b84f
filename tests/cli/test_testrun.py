"""`vtlab test`'s account of itself: the slowest tests, read from pytest's JUnit XML; its passes; what Maven said."""

from vtlab.cli import testrun

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.e2e.test_e2e" name="test_tiny" time="95.250" />
<testcase classname="tests.measure.test_settle" name="test_rule" time="0.010" />
<testcase classname="tests.e2e.test_e2e" name="test_spike" time="120.000"><failure message="x" /></testcase>
<testcase classname="tests.cli.test_flags" name="test_bad_flag" time="2.5" />
</testsuite></testsuites>
"""
ALONE = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="1">
<testcase classname="tests.smoke.test_smoke" name="test_own" time="101" />
</testsuite></testsuites>
"""


def test_the_slowest_tests_of_every_pass_come_first_with_their_seconds(tmp_path):
    results, alone = tmp_path / "junit-0.xml", tmp_path / "junit-1.xml"
    results.write_text(JUNIT)
    alone.write_text(ALONE)
    lines = testrun.slowest([results, alone], 3).splitlines()
    assert lines[0] == "vtlab test: the 3 slowest of 5 tests"
    assert lines[1].split() == ["120.0", "s", "tests.e2e.test_e2e::test_spike"]
    assert lines[2].split() == ["101.0", "s", "tests.smoke.test_smoke::test_own"]
    assert lines[3].split() == ["95.2", "s", "tests.e2e.test_e2e::test_tiny"]


def test_no_results_is_said_as_such():
    assert testrun.slowest([], 10) == "vtlab test: pytest wrote no results"


def test_the_whole_suite_runs_the_units_two_at_once_then_what_must_run_alone_and_a_selection_as_given():
    whole = testrun.pytest_passes([])
    assert whole == [["-n", "2", "-m", "not smoke and not alone"], ["-m", "smoke or alone"]]
    assert testrun.pytest_passes(["--live", "-k", "gc"]) == [["--live", "-k", "gc"]]
    # the Java tests beside the units alone: never beside what reads the whole machine, nor beside a selection
    assert testrun.java_beside([]) == 0 and "smoke" not in whole[0][-1].replace("not smoke", "")
    assert testrun.java_beside(["--live", "-k", "gc"]) is None


MAVEN_LOG = """[INFO] Scanning for projects...
[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 2.104 s -- in vtlab.app.JettyVirtualTest
[INFO] Results:
[INFO] Tests run: 118, Failures: 0, Errors: 0, Skipped: 0
[WARNING] Tests run: 9, Failures: 0, Errors: 0, Skipped: 1
[INFO] Reactor Summary for vtlab services 1.0:
[INFO] vtlab app .......................................... SUCCESS [01:40 min]
[INFO] vtlab stub ......................................... SUCCESS [ 19.2 s]
[INFO] BUILD SUCCESS
"""


def test_a_passing_maven_run_is_told_by_its_totals_and_reactor_summary_not_each_class():
    told = testrun.maven_summary(MAVEN_LOG, passed=True).splitlines()
    assert told == ["vtlab test: the Java tests", "[INFO] Tests run: 118, Failures: 0, Errors: 0, Skipped: 0",
                    "[WARNING] Tests run: 9, Failures: 0, Errors: 0, Skipped: 1",
                    "[INFO] vtlab app .......................................... SUCCESS [01:40 min]",
                    "[INFO] vtlab stub ......................................... SUCCESS [ 19.2 s]"]


def test_a_failing_maven_run_shows_its_errors_and_its_last_lines_as_its_log_goes_with_its_folder():
    log = "\n".join([f"[INFO] line {n}" for n in range(500)] + [
        "[ERROR] Failures:", "[ERROR]   OrdersTest.summary:42 expected: <200> but was: <500>", "[INFO] BUILD FAILURE"])
    told = testrun.maven_summary(log, passed=False).splitlines()
    assert told[0] == "vtlab test: the Java tests FAILED; Maven's errors, then its last lines:"
    assert told[1:3] == ["[ERROR] Failures:", "[ERROR]   OrdersTest.summary:42 expected: <200> but was: <500>"]
    # 503 lines: the last 120 begin at line 383
    assert told[-1] == "[INFO] BUILD FAILURE" and "[INFO] line 382" not in told and "[INFO] line 383" in told


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
