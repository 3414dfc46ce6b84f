"""Advice tried before that did not help is not suggested again: a try `vtlab advise --try` found no help at a point
is kept on the machine (plan.triedcache), a later run planned with it records it, and its advice tells that line as
tried — no "try --flag" the terminal would count, no try of it again — while a larger size, another point or another
flag is advised as before. Hand-made rows (tests/rows.py), judged by the analysis."""

import dataclasses
import datetime
import json

from vtlab.core import cores
from vtlab.core.triedbefore import NotHelped, covering, point_of
from vtlab.explain import advice, analyze
from vtlab.plan import tries, triedcache
from vtlab.report import advice as told
from vtlab.report.terminal import TRIED_FLAG
from vtlab.results import record
from vtlab.results.rows import typed

from rows import META, row

PLATFORM_AT_1000 = dict(thread_mode="platform", concurrency=1000, throughput_rps=196, http_reqs=5880, ok_requests=5880,
                        tomcat_connections_max=1000, p50_ms=5000, p99_ms=5200, throughput_first_half_rps=196,
                        throughput_second_half_rps=196)
NOW = datetime.datetime(2026, 12, 2, 8, 0, tzinfo=datetime.timezone.utc)
PLAN = {"profile": "quick", "model": "closed", "ramp_s": 5, "warmup_s": 45, "hold_s": 30, "stub_delay_ms": 1000,
        "stub_jitter_ms": 0, "overrides": {}, "rows": []}


def tried(value, cells=PLATFORM_AT_1000, flag="--tomcat-threads", days_ago=0.0):
    at = (NOW - datetime.timedelta(days=days_ago)).isoformat(timespec="seconds")
    return NotHelped(at, "/runs/r/tries/tomcat-threads-1000", flag, value, point_of(typed(row(**cells)).dims),
                     "released, pool 50, platform at 1,000 users", "--tomcat-threads 1000: … no change [-1%, +2%].")


def advised_with(*kept):
    run = record.from_dict({**META, "plan": {**PLAN, "not_helped": [k.describe() for k in kept]}})
    assert run.plan.not_helped == kept  # the record reads back what the plan wrote
    found = advice.advise(analyze.analyse([row(thread_mode="platform"), row(**PLATFORM_AT_1000)], run))
    return next(a for a in found if a.wall == "thread-pool")


def test_a_try_covers_its_flag_at_its_point_up_to_the_size_it_tried():
    at = typed(row(**PLATFORM_AT_1000)).dims
    assert tried("1000").covers(at, "--tomcat-threads 1000") and tried("1200").covers(at, "--tomcat-threads 1000")
    assert not tried("800").covers(at, "--tomcat-threads 1000")  # a smaller size says nothing of a larger one
    assert not tried("1000").covers(at, "--pools 1000")
    assert not tried("1000").covers(typed(row(**{**PLATFORM_AT_1000, "concurrency": 400})).dims,
                                    "--tomcat-threads 1000")
    assert tried("25", flag="--jdk").covers(at, "--jdk 25") and not tried("25", flag="--jdk").covers(at, "--jdk 26")
    assert covering((tried("800"), tried("1000")), at, "--tomcat-threads 1000").value == "1000"
    assert covering((tried("1000"),), at, "") is None


def test_a_line_tried_before_is_told_as_tried_and_neither_counted_nor_tried_again():
    line = advised_with(tried("1000"))
    assert line.flag == "--tomcat-threads 1000" and line.not_helped is not None
    said = told.sentence(line, lambda r: r.thread_mode)
    assert ("--tomcat-threads 1000 is not suggested again: --tomcat-threads 1000 was tried at this point "
            "(/runs/r/tries/tomcat-threads-1000/, 2026-12-02) and did not help") in said
    assert "; try --" not in said and TRIED_FLAG.findall(said) == []  # the terminal's count of settings to try
    made, left = tries.chosen([line], {}, [dict(concurrency=1000)], paired=True)
    assert made == [] and left[0].why == ("tried before at this point (/runs/r/tries/tomcat-threads-1000/, "
                                          "2026-12-02): --tomcat-threads 1000 did not help")


def test_a_smaller_try_or_none_leaves_the_advice_as_it_was():
    for kept in ((tried("800"),), ()):
        line = advised_with(*kept)
        assert line.not_helped is None
        said = told.sentence(line, lambda r: r.thread_mode)
        assert TRIED_FLAG.findall(said) == [("--tomcat-threads", "1000")]


def test_what_did_not_help_is_kept_for_this_machine_a_month():
    count = len(cores.available())
    assert triedcache.load(count, NOW) == ()  # the units' own clean cache
    triedcache.add(count, [tried("1000"), tried("400", days_ago=40)], NOW)
    assert [k.value for k in triedcache.load(count, NOW)] == ["1000"]  # a month-old try is not read
    document = json.loads(triedcache.machinecache.path_for(triedcache.KIND, count).read_text())
    assert len(document["tried"]) == 2 and document["tried"][0]["flag"] == "--tomcat-threads"
    triedcache.add(count, [tried(str(n)) for n in range(triedcache.KEPT + 5)], NOW)
    assert len(triedcache.load(count, NOW)) == triedcache.KEPT


def test_a_try_of_one_setting_that_did_not_help_is_kept_at_each_point_it_judged_the_same_or_worse(tmp_path, capsys):
    from vtlab.cli import nohelp
    from vtlab.compare import tried as judged
    from vtlab.compare.stats import BETTER, SAME, WORSE, Change

    line = advised_with()
    at = {users: dataclasses.replace(line, row=dataclasses.replace(line.row, concurrency=users))
          for users in (400, 600, 800)}
    attempt = tries.Try("tomcat-threads-1000", (("--tomcat-threads", "1000"),), {}, (line, *at.values()), ())
    outcomes = [judged.Outcome(line, Change(196.0, 197.0, 1.0, -2.0, 4.0, SAME)),
                judged.Outcome(at[400], Change(190.0, 180.0, -10.0, -15.0, -5.0, WORSE)),
                judged.Outcome(at[600], Change(190.0, 250.0, 60.0, 40.0, 80.0, BETTER)),
                judged.Outcome(at[800], why="the try did not measure this line")]
    out = tmp_path / "tries" / attempt.name
    nohelp.keep(out, attempt, outcomes, lambda r: r.thread_mode)
    kept = triedcache.load(len(cores.available()))
    assert [(k.flag, k.value, k.point) for k in kept] == [("--tomcat-threads", "1000", point_of(line.row)),
                                                          ("--tomcat-threads", "1000", point_of(at[400].row))]
    assert kept[0].folder == str(out) and "196 → 197 req/s" in kept[0].said
    assert "kept as no help at 2 point(s): later runs on this machine do not suggest it there" in \
        capsys.readouterr().out
    nohelp.keep(out, attempt, outcomes, lambda r: r.thread_mode)  # the try resumed and judged again
    assert len(triedcache.load(len(cores.available()))) == 2
