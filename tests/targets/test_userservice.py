"""The user's own service: what a jar must be, what the service is given, what k6 runs, how its rows are judged,
and every bad flag refused before anything starts."""

from __future__ import annotations

import json
import math
import socket

import pytest
from rows import BASE, META
from boots import BOOT_MANIFEST, boot_jar
from clirun import run_cli

from vtlab.explain import analyze
from vtlab.results import record
from vtlab.plan import planner, presets
from vtlab.report import story as report_story
from vtlab.targets import requestmix, userrow, userservice
from vtlab.explain.model import Verdict


GET_X = userservice.Call(mix=requestmix.endpoint("GET", "/x", None, None))


def test_a_spring_boot_jar_is_told_by_its_manifest_and_needs_3_2(tmp_path):
    assert userservice.boot_version(boot_jar(tmp_path / "a.jar", BOOT_MANIFEST.format("3.2.0"))) == "3.2.0"
    assert userservice.boot_version(boot_jar(tmp_path / "b.jar", BOOT_MANIFEST.format("4.1.1"))) == "4.1.1"
    with pytest.raises(ValueError, match="needs 3.2 or newer"):
        userservice.boot_version(boot_jar(tmp_path / "c.jar", BOOT_MANIFEST.format("3.1.5")))
    with pytest.raises(ValueError, match="not a Spring Boot executable jar"):
        userservice.boot_version(boot_jar(tmp_path / "d.jar", "Manifest-Version: 1.0\nMain-Class: x.Y\n"))
    (tmp_path / "e.jar").write_text("not a zip")
    with pytest.raises(ValueError, match="not a jar"):
        userservice.boot_version(tmp_path / "e.jar")
    with pytest.raises(ValueError, match="no such file"):
        userservice.boot_version(tmp_path / "missing.jar")


def test_the_service_gets_boots_own_settings_and_the_users_win_except_the_checked_mode():
    target = userservice.Target(call=GET_X, env=(
        ("STUB_URL", "{stub_url}/api"), ("SERVER_TOMCAT_THREADS_MAX", "20"),
        ("MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE", "health,prometheus,env")))
    env = userrow.service_env(target, True, 8123, 9123, {"SPRING_DATASOURCE_URL": "jdbc:postgresql://h/db"},
                                  "http://127.0.0.1:8081")
    assert env["SPRING_THREADS_VIRTUAL_ENABLED"] == "true"
    assert env["SERVER_PORT"] == "8123" and env["SERVER_ADDRESS"] == "127.0.0.1"
    assert env["MANAGEMENT_SERVER_PORT"] == "9123" and env["MANAGEMENT_SERVER_ADDRESS"] == "127.0.0.1"
    assert env["STUB_URL"] == "http://127.0.0.1:8081/api"
    assert env["SPRING_DATASOURCE_URL"] == "jdbc:postgresql://h/db"
    assert env["MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE"] == "health,prometheus,env"  # the user's own choice
    # nothing of vtlab's own service: a user's service reads Spring Boot's names only
    ours = {"VT_ENABLED", "DB_POOL_MAX", "CONN_MODE", "PATH_MODE", "TOMCAT_MAX_THREADS", "MANAGEMENT_PORT"}
    assert not ours & set(env)
    default = userrow.service_env(userservice.Target(call=GET_X), False, 1, 2, {}, None)
    assert default["MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE"] == "health,prometheus,metrics"  # what the rig reads
    assert default["SPRING_THREADS_VIRTUAL_ENABLED"] == "false"


def test_k6_runs_the_users_script_or_the_endpoint_inside_vtlabs_phases(tmp_path):
    script = tmp_path / "mine.js"
    script.write_text("export default function () {}\n")
    entry = userservice.Call(script=script).entry_script(tmp_path / "k6").read_text()
    assert f'import * as user from "{script}";' in entry
    assert f'import {{ wrap }} from "{userservice.WRAPPER_SCRIPT}";' in entry
    assert "export default function (data) { run.iteration(data); }" in entry
    endpoint = userservice.Call(mix=requestmix.endpoint("GET", "/api/things/{id}", (5, 9), None))
    assert f'from "{requestmix.SCRIPT}"' in endpoint.entry_script(tmp_path / "e").read_text()
    assert json.loads(endpoint.k6_env()["VTLAB_MIX"]) == [
        {"name": "GET /api/things/{id}", "method": "GET", "path": "/api/things/{id}", "weight": 1.0, "body": None,
         "headers": {}, "ids": [5, 9], "idsFile": None, "success": [{"min": 200, "max": 299}]}]
    assert endpoint.describe() == "GET /api/things/{id} (ids 5-9)"


@pytest.mark.parametrize("text, accepted", [("GET /a/{id}", ("GET", "/a/{id}")), ("post /orders", ("POST", "/orders"))])
def test_an_endpoint_is_a_method_and_a_path(text, accepted):
    assert userservice.parse_endpoint(text) == accepted


@pytest.mark.parametrize("call, words", [
    (lambda: userservice.parse_endpoint("/a"), "give a method and a path"),
    (lambda: userservice.parse_endpoint("FETCH /a"), "methods: GET"),
    (lambda: userservice.parse_ids("9-1"), "FIRST-LAST"),
    (lambda: userservice.parse_ids("a-b"), "FIRST-LAST"),
    (lambda: userservice.parse_env(["NOVALUE"]), "NAME=VALUE"),
    (lambda: userservice.check_url("ftp://x"), r"http\(s\) URL"),
])
def test_malformed_target_values_say_what_they_accept(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_a_user_service_plan_keeps_the_users_dimensions_only():
    rows = planner.build("service", planner.Overrides(workloads=(presets.SERVICE_WORKLOAD,))).rows
    assert {(r.thread_mode, r.workload, r.hikari_pool, r.tomcat_max_threads) for r in rows} == {
        ("platform", "service", 0, 0), ("virtual", "service", 0, 0)}
    spike = planner.build("spike", planner.Overrides(workloads=(presets.SERVICE_WORKLOAD,))).rows
    assert {r.shape for r in spike} == {"spike"} and {r.workload for r in spike} == {"service"}


def test_a_user_service_with_vtlabs_database_takes_its_latency_on_every_row(tmp_path):
    from vtlab.cli.main import main

    # the latency is the rig's, between the service and vtlab's PostgreSQL: a dimension of every row, as for its own
    rows = planner.build("service", planner.Overrides(workloads=(presets.SERVICE_WORKLOAD,), db_latencies=(0, 5),
                                                      db_jitter_ms=1)).rows
    assert {(r.db_latency_ms, r.db_jitter_ms) for r in rows} == {(0, 0), (5, 1)}
    assert main(["run", "--service", jar(tmp_path), "--endpoint", "GET /x", "--db", "--db-latency", "5",
                 "--dry-run"]) == 0


def jar(tmp_path):
    return str(boot_jar(tmp_path / "svc.jar", BOOT_MANIFEST.format("4.1.1")))


@pytest.mark.parametrize("argv, words", [
    (["--endpoint", "GET /x"], "--endpoint needs --service JAR or --url URL"),
    (["--profile", "service"], "--profile service needs --service JAR or --url URL"),
    (["--service", "{jar}"], "say what to call"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--script", "{jar}"], "say what to call"),
    (["--service", "{jar}", "--endpoint", "GET /x/{id}"], "give --ids FIRST-LAST or --ids-file FILE"),
    (["--service", "{jar}", "--endpoint", "GET /x/{id}", "--ids", "1-3", "--pools", "10"], "--pools sets a part"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--db-latency", "5"], "--db-latency adds latency between your "
     "service and vtlab's PostgreSQL (through Toxiproxy): it needs --db"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--db-url", "jdbc:postgresql://h/d", "--db-latency", "5"],
     "it needs --db, not --db-url"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--db", "--db-jitter", "2"], "--db-jitter 2 needs a --db-latency"),
    (["--url", "http://127.0.0.1:1", "--modes", "virtual", "--endpoint", "GET /x", "--db-latency", "5"],
     "--db-latency configures a service vtlab starts"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--downstream-latency", "5"], "--downstream-latency sets a part"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--modes", "webflux"], "--modes webflux"),
    (["--service", "{jar}", "--url", "http://127.0.0.1:1", "--endpoint", "GET /x"], "give one"),
    (["--url", "http://127.0.0.1:1", "--endpoint", "GET /x"], "--modes platform or --modes virtual"),
    (["--url", "http://127.0.0.1:1", "--modes", "virtual", "--endpoint", "GET /x", "--db"], "--db configures"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--metrics", "http://127.0.0.1:1/m"], "--metrics is for --url"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--db", "--db-url", "jdbc:postgresql://h/d"], "give one"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--health", "health"], "starting with /"),
    (["--service", "{jar}", "--script", "/no/such.js"], "--script /no/such.js: no such file"),
    (["--service", "{jar}", "--endpoint", "GET /x/{id}", "--ids-file", "/no/ids"], "holds no id"),
    (["--url", "http://127.0.0.1:1", "--modes", "virtual", "--endpoint", "GET /x", "--aa", "virtual"],
     "--paired with --url"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--paired", "--port", "18080"], "--port 18080 with --paired"),
])
def test_wrong_target_flags_are_usage_errors_naming_the_flag(capsys, tmp_path, argv, words):
    argv = [arg.replace("{jar}", jar(tmp_path)) for arg in argv]
    code = cli_code(capsys, argv)
    assert code[0] == 2 and words in code[1], code


def cli_code(capsys, argv):
    from vtlab.cli.main import main

    code = main(["run", *argv, "--dry-run"])
    return code, capsys.readouterr().err


def test_a_taken_port_and_an_unreachable_url_are_the_environments_fault(capsys, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        from vtlab.cli.main import main

        code = main(["run", "--service", jar(tmp_path), "--endpoint", "GET /x", "--port", str(port),
                         "--out", str(tmp_path / "run")])
        assert code == 3 and f"--port {port}: the port is taken" in capsys.readouterr().err
    code = main(["run", "--url", f"http://127.0.0.1:{port}", "--modes", "virtual", "--endpoint", "GET /x",
                     "--out", str(tmp_path / "run2")])
    assert code == 3 and "cannot be reached" in capsys.readouterr().err
    for run in ("run", "run2"):  # nothing started, nothing written
        assert not (tmp_path / run).exists() or not any((tmp_path / run).iterdir())


def test_the_bad_port_flag_names_what_it_accepts(capsys):
    code, err = run_cli(capsys, "run", "--port", "70000")
    assert code == 2 and "--port" in err and "from 1 to 65535" in err


# --- how a user's service's rows are judged -------------------------------------------------------------

SERVICE = {**BASE, "workload": "service", "hikari_pool": "0", "tomcat_max_threads": "0", "stub_delay_ms": "0",
           "pool_max": "50", "tomcat_threads_config": "-1"}


def service_row(**changes):
    return {**SERVICE, **{k: str(v) for k, v in changes.items()}}


def judged(*rows, url: str = "") -> Verdict:
    return analyze.analyse(list(rows), record.from_dict({**META, "target": {"url": url}})).verdicts[-1]


def test_a_user_services_threads_and_pool_are_what_it_reported():
    low = service_row(thread_mode="platform", tomcat_threads_config=20, concurrency=10, p50_ms=200,
                      throughput_rps=49)
    high = service_row(thread_mode="platform", tomcat_threads_config=20, concurrency=60, p50_ms=600,
                       throughput_rps=98, tomcat_connections_max=60)
    result = judged(low, high)
    assert result.limit == "thread-pool" and result.bottleneck == "thread-pool"
    assert math.isclose(result.ceilings.threads, 20 / 0.2, rel_tol=1e-6)  # its 20 threads ÷ its 200 ms
    assert result.service_time_source == "p50 at lowest load" and result.valid


def test_what_a_user_service_does_not_expose_is_said_never_guessed():
    blind = service_row(thread_mode="platform", pool_max="", tomcat_threads_config="", hikari_active_max="",
                        jvm_threads_max="", meter_samples=0, app_cpu_pct="")
    result = judged(blind, url="http://127.0.0.1:8080")  # a service vtlab did not start: its CPU is not to be seen
    assert result.valid  # not measured is not wrong
    assert {"not-exposed:meters", "not-exposed:hikari_active_max", "not-exposed:jvm_threads_max",
            "not-exposed:app_cpu_pct"} <= set(result.flags)
    assert math.isnan(result.ceilings.pool) and math.isnan(result.ceilings.threads) and math.isnan(result.ceilings.cpu)
    assert [text.split(":")[0] for text in result.ceilings.missing] == ["pool", "cpu", "thread-pool"]
    assert result.limit == "concurrency"  # the one ceiling its measurements allow
    story = report_story._not_measured_story([result])
    assert story and "its CPU and memory" in story[0] and "tomcat_threads_config_max_threads" in story[0]


def test_a_jar_vtlab_started_whose_cpu_went_unread_is_a_broken_row_not_an_unexposed_meter():
    result = judged(service_row(thread_mode="platform", tomcat_threads_config=20, app_cpu_pct=""))
    assert "missing-app_cpu_pct" in result.flags and not result.valid


def test_a_scripts_users_that_think_between_requests_are_not_all_in_flight():
    # 400 users sleeping 1 s between 200 ms requests: ~333 req/s, ~67 requests in the service, below 200 threads
    low = service_row(thread_mode="platform", tomcat_threads_config=200, concurrency=10, p50_ms=200, mean_ms=200,
                      throughput_rps=8.3)
    thinking = service_row(thread_mode="platform", tomcat_threads_config=200, concurrency=400, p50_ms=200,
                           mean_ms=200, throughput_rps=333)
    result = judged(low, thinking)
    assert not result.queued and result.bottleneck != "thread-pool"
    assert math.isclose(result.ceilings.concurrency, 333 * 0.2 / 0.2, rel_tol=1e-6)


def test_a_user_service_without_an_unqueued_row_has_no_service_time_rather_than_an_invented_one():
    result = judged(service_row(thread_mode="platform", tomcat_threads_config=20, concurrency=400))
    assert math.isnan(result.service_time_ms) and "not measured" in result.service_time_source
    assert any("no row measured the service time" in text for text in result.ceilings.missing)


def test_settings_vtlab_gives_every_row_cannot_be_overridden():
    for name in ("SERVER_PORT", "SPRING_THREADS_VIRTUAL_ENABLED", "MANAGEMENT_SERVER_PORT", "server_address"):
        with pytest.raises(ValueError, match="vtlab sets it for every row"):
            userservice.parse_env([f"{name}=1"])


def test_the_record_names_a_services_settings_but_never_their_values():
    target = userservice.Target(call=GET_X, url="http://me:secret@127.0.0.1:8080/app?token=t",
                                env=(("SPRING_DATASOURCE_PASSWORD", "hunter2"),),
                                args=("--spring.datasource.password=hunter2", "--debug"))
    described = str(target.describe())
    assert "hunter2" not in described and "secret" not in described and "token" not in described
    assert target.describe()["url"] == "http://127.0.0.1:8080/app"
    assert target.describe()["args"] == ["--spring.datasource.password=…", "--debug"]


@pytest.mark.parametrize("virtual, started, tomcat, accepted", [
    (True, 3, -1, True), (False, 0, 200, True),
    (False, 5, 200, True),     # the service's own virtual-thread executor: Tomcat still serves on its platform pool
    (True, 5, 200, False),     # virtual threads somewhere, but Tomcat on platform threads: not the row's mode
    (False, 0, -1, False),
    (True, 2, None, True), (True, 0, None, False), (False, 0, None, True), (False, 1, None, False),
])
def test_the_mode_a_row_asked_for_is_proved_by_tomcat_where_it_tells_else_by_the_virtual_threads(
        virtual, started, tomcat, accepted):
    if accepted:
        userrow.check_mode(virtual, started, tomcat)
    else:
        with pytest.raises(userservice.TargetError, match="SPRING_THREADS_VIRTUAL_ENABLED"):
            userrow.check_mode(virtual, started, tomcat)


@pytest.mark.parametrize("argv, words", [
    (["--service", "{jar}", "--endpoint", "GET /x", "--keep"], "--keep"),
    (["--url", "http://127.0.0.1:1", "--modes", "virtual", "--endpoint", "GET /x", "--jdk", "21"], "--jdk configures"),
    (["--service", "{jar}", "--endpoint", "GET /x", "--service-env", "SERVER_PORT=1"], "use --port"),
    (["--url", "http://127.0.0.1:1", "--modes", "virtual", "--endpoint", "GET /x", "--aot", "on"],
     "with --url the service runs as it is"),
    (["--service", "{old_jar}", "--endpoint", "GET /x", "--aot", "on"], "is Spring Boot 3.2.5; its AOT cache needs"),
])
def test_more_flags_that_do_not_fit_a_users_service_are_refused(capsys, tmp_path, argv, words):
    old_jar = str(boot_jar(tmp_path / "old.jar", BOOT_MANIFEST.format("3.2.5")))
    argv = [arg.replace("{jar}", jar(tmp_path)).replace("{old_jar}", old_jar) for arg in argv]
    code, err = cli_code(capsys, argv)
    assert code == 2 and words in err, err


def test_resuming_a_run_of_another_service_is_refused(capsys, tmp_path):
    from vtlab.cli.main import main
    from vtlab.results import table

    run = tmp_path / "run"
    run.mkdir()
    (run / "matrix.csv").write_text(",".join(table.COLUMNS) + "\n")
    table.write_metadata(run, {"target": {"jar": "/elsewhere/other.jar", "url": "", "call": "GET /y"}})
    code = main(["run", "--service", jar(tmp_path), "--endpoint", "GET /x", "--out", str(run), "--resume",
                     "--dry-run"])
    assert code == 2 and "measured /elsewhere/other.jar (GET /y)" in capsys.readouterr().err


def test_a_before_after_starts_arm_b_from_the_other_jar_and_arm_a_from_the_first(tmp_path, monkeypatch):
    from vtlab.targets import user, userjvm

    started = []

    class Jvm:
        def __init__(self, family):
            self.family = family

        def alive(self):
            return True

    def start(rig, plan, row, slug, target, java, database, jfr, stepped):
        started.append((plan.arm(row), target.jar.name, target.boot_version, target.actuator))
        return Jvm(plan.family(row))

    monkeypatch.setattr(userjvm, "start", start)
    target = userservice.Target(call=GET_X, jar=tmp_path / "svc.jar", boot_version="3.5.7",
                                vs=tmp_path / "new.jar", vs_boot_version="4.1.1", vs_actuator=False)
    plan = planner.build("service", planner.Overrides(workloads=(presets.SERVICE_WORKLOAD,), modes=("virtual",),
                                                      concurrency=(10,), versus=("svc.jar", "new.jar"), blocks=2,
                                                      pair_seed=1))
    service = user.UserService(target, {})
    service.plan, service.rig = plan, None  # no rig: the JVM's start is the fake's
    for row in plan.rows:
        service._jvm_for(row, "slug", None, tmp_path / "x.jfr", True)
    # one JVM per arm, each its own jar with what its own manifest and libraries say (its health path follows them)
    assert sorted(started) == [("a", "svc.jar", "3.5.7", True), ("b", "new.jar", "4.1.1", False)]
    assert userservice.jar_names(tmp_path / "a" / "app.jar", tmp_path / "b" / "app.jar") == (
        str(tmp_path / "a" / "app.jar"), str(tmp_path / "b" / "app.jar"))  # one file name twice: their paths
