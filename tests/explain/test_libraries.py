"""A user's jar's libraries (core.libraries, explain.libraries): read from BOOT-INF/lib, each version against the first
its project made virtual-thread friendly, each told with the pins the rows saw in its frames, on which JDK; recorded
in metadata and told in the report's advice and report.json."""

import json
import zipfile

from rows import META, RUN, row

from vtlab.core import libraries
from vtlab.explain import analyze
from vtlab.explain import libraries as jarlibs
from vtlab.report import render
from vtlab.results import record, table
from vtlab.targets import userservice


def test_the_known_libraries_are_read_from_boot_inf_lib_with_their_versions_and_nothing_else():
    names = ["BOOT-INF/lib/postgresql-42.5.1.jar", "BOOT-INF/lib/HikariCP-5.1.0.jar",
             "BOOT-INF/lib/r2dbc-postgresql-1.0.5.RELEASE.jar", "BOOT-INF/lib/httpclient5-5.4.1.jar",
             "BOOT-INF/lib/spring-boot-3.5.7.jar", "BOOT-INF/classes/postgresql-1.jar", "postgresql-9.jar"]
    assert libraries.in_jar(names) == (("postgresql", "42.5.1"), ("HikariCP", "5.1.0"), ("httpclient5", "5.4.1"))
    assert libraries.version_key("42.10.1") > libraries.version_key("42.6.0") > libraries.version_key("42.5.4")
    assert libraries.version_key("9.0.0-rc1") == libraries.version_key("9.0") == (9,)
    assert libraries.version_key("42.2.27.jre7") == (42, 2, 27)


def test_a_jar_s_libraries_are_recorded_in_its_metadata_and_read_back(tmp_path):
    jar = tmp_path / "app.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        archive.writestr("BOOT-INF/lib/mysql-connector-j-8.4.0.jar", b"")
        archive.writestr("BOOT-INF/lib/HikariCP-5.1.0.jar", b"")
    target = userservice.Target(call=userservice.Call(script=tmp_path / "load.js"), jar=jar)
    described = json.loads(json.dumps(target.describe()))
    again = record.UserService.of(described)
    assert again.libraries == (("mysql-connector-j", "8.4.0"), ("HikariCP", "5.1.0"))
    assert again == record.UserService.of({**described, "libraries": []})  # a resumed run matches without them


def _virtual(jdk, frames=""):
    return row(thread_mode="virtual", jdk=jdk, pinned_frames=frames)


PG_PIN = "org.postgresql.core.v3.QueryExecutorImpl.execute:356=monitor-inferred/12/840.0/95.0"


def test_an_old_driver_is_told_to_pin_before_its_fix_with_the_pins_its_frames_showed_on_jdk_21():
    verdicts = analyze.analyse([_virtual(21, PG_PIN), _virtual(25)], RUN).verdicts
    (pg,) = jarlibs.told((("postgresql", "42.5.1"),), verdicts)
    assert pg.friendly is False and pg.pins == ((21, "monitor-inferred", 12, 840.0),)
    said = jarlibs.sentence(pg)
    assert said.startswith("PostgreSQL's JDBC driver (postgresql 42.5.1): before 42.6.0: its synchronized around I/O "
                           "pins a virtual thread's carrier on JDK 21–23")
    assert "pinned in its frames 12 times (840 ms) on JDK 21, holding a monitor (inferred" in said


def test_a_fixed_driver_and_a_pool_no_release_fixed_are_told_with_no_pin_seen_or_not_looked_for():
    on_21 = analyze.analyse([_virtual(21)], RUN).verdicts
    pg, hikari = jarlibs.told((("postgresql", "42.7.8"), ("HikariCP", "5.1.0")), on_21)
    assert pg.friendly is True and "42.6.0 or later: it replaced its synchronized" in jarlibs.sentence(pg)
    assert "no pin seen in its frames on JDK 21" in jarlibs.sentence(pg)
    assert hikari.friendly is None and "no version of it replaced its synchronized" in jarlibs.sentence(hikari)
    (only_25,) = jarlibs.told((("postgresql", "42.7.8"),), analyze.analyse([_virtual(25)], RUN).verdicts)
    assert "no virtual row ran on a JDK before 24, where a monitor pins" in jarlibs.sentence(only_25)


def test_the_report_tells_the_jar_s_libraries_with_the_advice_and_in_report_json(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    target = {"jar": "/x/app.jar", "call": "GET /api/x/{id}", "libraries": [["postgresql", "42.5.1"]]}
    (run_dir / table.METADATA_NAME).write_text(json.dumps({**META, "target": target}))
    writer = table.CsvWriter(run_dir / table.CSV_NAME)
    for cells in (row(thread_mode="platform", jdk=21), _virtual(21, PG_PIN)):
        writer.append({column: cells.get(column, "") for column in table.COLUMNS})
    render.render(run_dir)
    assert "PostgreSQL's JDBC driver (postgresql 42.5.1): before 42.6.0" in (run_dir / "report.md").read_text()
    (told,) = json.loads((run_dir / "report.json").read_text())["libraries"]
    assert told["version"] == "42.5.1" and told["friendly"] is False
    assert told["pins"] == [{"jdk": 21, "held": "monitor-inferred", "events": 12, "ms": 840.0}]



def test_a_section_of_libraries_alone_has_its_sentences_and_no_empty_table():
    from vtlab.report import advice

    (pg,) = jarlibs.told((("postgresql", "42.5.1"),), analyze.analyse([_virtual(21)], RUN).verdicts)
    alone = advice.section((), str, (pg,))
    assert alone.table == [] and alone.columns == []
    assert alone.verdict[-1].startswith("PostgreSQL's JDBC driver (postgresql 42.5.1)")


def test_a_before_after_tells_each_jar_s_libraries_against_its_own_arm_s_rows(tmp_path):
    from vtlab.core.arms import ARM_B_OPTION

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    target = {"jar": "/x/old.jar", "vs": "/x/new.jar", "call": "GET /api/x/{id}",
              "libraries": [["postgresql", "42.5.1"]], "vs_libraries": [["postgresql", "42.7.8"]]}
    plan = {"profile": "quick", "model": "closed", "ramp_s": 5, "warmup_s": 45, "hold_s": 30, "stub_delay_ms": 1000,
            "stub_jitter_ms": 0, "overrides": {}, "rows": [],
            "paired": {"a": "virtual", "b": "virtual", "aa": False, "blocks": 2, "seed": 1,
                       "versus": ["old.jar", "new.jar"]}}
    (run_dir / table.METADATA_NAME).write_text(json.dumps({**META, "plan": plan, "target": target}))
    writer = table.CsvWriter(run_dir / table.CSV_NAME)
    # old.jar's blocks pin in the driver; new.jar's do not
    for cells in (_virtual(21, PG_PIN), row(thread_mode="virtual", jdk=21, jvm_opts=ARM_B_OPTION),
                  row(thread_mode="virtual", jdk=21, jvm_opts=ARM_B_OPTION, rep=2), _virtual(21, PG_PIN) | {"rep": 2}):
        writer.append({column: cells.get(column, "") for column in table.COLUMNS})
    render.render(run_dir)
    old, new = json.loads((run_dir / "report.json").read_text())["libraries"]
    assert (old["jar"], old["version"], old["pins"][0]["events"]) == ("old.jar", "42.5.1", 24)
    assert (new["jar"], new["version"], new["pins"]) == ("new.jar", "42.7.8", [])
