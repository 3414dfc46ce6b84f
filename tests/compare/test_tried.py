"""A try told against its run: the quick run's fixture as the run, and a try of its advice made from it with the
setting changed and the throughput the try would measure; each advised line's change judged as `vtlab compare`
judges one, the predicted ceiling reached or not, the try's verdict, and tries.md / tries.json written."""

import csv
import json
import shutil
from pathlib import Path

import pytest

from vtlab.compare import runs, tried, triedpage
from vtlab.explain.advice import advise
from vtlab.plan import tries
from vtlab.results import record

QUICK = Path(__file__).parent.parent / "fixtures" / "quick-run"


def _tried(tmp_path, name, edit):
    """A copy of the quick run whose rows `edit` changed, as a try's run folder."""
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(QUICK / "metadata.json", folder)
    with (QUICK / "matrix.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = reader.fieldnames, [edit(row) or row for row in reader]
    with (folder / "matrix.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return folder


def _threads_try():
    base = runs.load(QUICK)
    plan = record.read(QUICK).plan
    made, _ = tries.chosen(advise(base.analysis), plan.overrides, plan.rows)
    return base, next(t for t in made if t.name == "tomcat-threads-1000")


def _scaled(rps_by_users):
    def edit(row):
        row["tomcat_max_threads"] = "1000"
        users = int(row["concurrency"])
        if row["thread_mode"] == "platform" and row["conn_mode"] == "released" and users in rps_by_users:
            factor = rps_by_users[users] / float(row["throughput_rps"])
            for column in ("throughput_rps", "throughput_first_half_rps", "throughput_second_half_rps",
                           "ok_requests", "http_reqs"):
                row[column] = str(float(row[column]) * factor)
    return edit


def test_more_threads_that_carry_the_users_are_better_and_reach_the_predicted_ceiling(tmp_path):
    base, attempt = _threads_try()
    after = runs.load(_tried(tmp_path, "threads", _scaled({400: 398.0, 1000: 990.0})))
    outcomes = tried.judged(base, after, attempt.lines, attempt.changes)
    at_400, at_1000 = outcomes
    assert (at_400.change.base, at_400.change.new) == (pytest.approx(198.8), pytest.approx(398.0))
    assert at_400.change.verdict == at_1000.change.verdict == "better"
    assert at_1000.change.share_low > 3  # 199.5 → 990 req/s: +396%, its interval far from 0
    # 398.0 ± its batch interval (1.04) holds the 398.7 predicted; 990 ± 0.41 falls short of 996
    assert (at_400.reached, at_1000.reached) == ("reached", "short of it")
    assert tried.verdict(outcomes) == tried.HELPED
    said = tried.sentence(attempt.words(), at_1000, lambda r: r.thread_mode)
    assert said.startswith("--tomcat-threads 1000: released, pool 50, platform at 1,000 users: 200 → 990 req/s, "
                           "better [+")
    assert "predicted 996 req/s: " in said


def test_a_setting_that_moved_nothing_did_not_help_and_falls_short_of_its_prediction(tmp_path):
    base, attempt = _threads_try()
    after = runs.load(_tried(tmp_path, "same", _scaled({})))
    outcomes = tried.judged(base, after, attempt.lines, attempt.changes)
    assert [o.change.verdict for o in outcomes] == ["~", "~"]
    assert [o.reached for o in outcomes] == ["short of it", "short of it"]
    assert tried.verdict(outcomes) == tried.NOT_HELPED
    done = triedpage.Tried(attempt.name, attempt.settings, outcomes)
    paths = triedpage.write(tmp_path, [done], [], lambda r: r.thread_mode)
    document = json.loads(paths[1].read_text())
    assert document["tries"][0]["verdict"] == "did not help"
    assert [line["reached"] for line in document["tries"][0]["lines"]] == ["short of it", "short of it"]
    assert "## --tomcat-threads 1000: did not help" in paths[0].read_text()


def test_a_line_the_try_did_not_measure_is_said_and_not_judged(tmp_path):
    base, attempt = _threads_try()
    after = runs.load(_tried(tmp_path, "cut", lambda row: {**row, "concurrency": "50"}
                             if row["concurrency"] == "1000" else _scaled({400: 397.0})(row) or row))
    outcomes = tried.judged(base, after, attempt.lines, attempt.changes)
    assert outcomes[1].change is None and outcomes[1].why == "the try did not measure this line"
    assert tried.verdict(outcomes) == tried.HELPED  # the line it measured is better
    assert tried.sentence(attempt.words(), outcomes[1], lambda r: r.thread_mode) == (
        "--tomcat-threads 1000: released, pool 50, platform at 1,000 users: the try did not measure this line.")


def test_a_try_that_lifts_one_line_and_sets_another_back_is_mixed(tmp_path):
    base, attempt = _threads_try()
    after = runs.load(_tried(tmp_path, "mixed", _scaled({400: 398.0, 1000: 150.0})))
    outcomes = tried.judged(base, after, attempt.lines, attempt.changes)
    assert [o.change.verdict for o in outcomes] == ["better", "worse"]
    assert tried.verdict(outcomes) == tried.MIXED


def test_the_run_is_read_by_the_lines_own_key_where_it_varied_what_the_try_changes(tmp_path):
    # the run measured 1,000 users at 200 threads (the advised line) and at 1,000 threads too: the line's before is
    # its own 200-thread row, not the one the try's setting matches
    folder = _tried(tmp_path, "varied", lambda row: None)
    with (folder / "matrix.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = reader.fieldnames, list(reader)
    more = [{**row, "tomcat_max_threads": "1000"} for row in rows
            if row["thread_mode"] == "platform" and row["concurrency"] == "1000"]
    for row in more:
        _scaled({1000: 990.0})(row)
    with (folder / "matrix.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows([*rows, *more])
    base, attempt = runs.load(folder), _threads_try()[1]
    after = runs.load(_tried(tmp_path, "threads", _scaled({400: 398.0, 1000: 990.0})))
    at_1000 = tried.judged(base, after, attempt.lines, attempt.changes)[1]
    assert (at_1000.change.base, at_1000.change.verdict) == (pytest.approx(199.533), "better")
