import pytest

from vtlab.cli.main import main

from clirun import run_cli


@pytest.mark.parametrize("argv, flag, accepted", [
    (["--modes", "platform,green"], "--modes", "platform, virtual, webflux"),
    (["--pools", "50,x"], "--pools", "integers >= 1"),
    (["--conc", "0"], "--conc", "integers >= 1"),
    (["--reps", "0"], "--reps", "from 1 to 100"),
    (["--hold", "1"], "--hold", "from 2 to 3600"),
    (["--conn-mode", "sometimes"], "--conn-mode", "released, held"),
    (["--path-mode", "async"], "--path-mode", "normal, synchronized, synchronized-platform-http, pinned-control"),
    (["--workload", "io"], "--workload", "order-summary, write, offload, fanout, sleep, cpu"),
    (["--fanout", "parallel"], "--fanout", "sequential, structured"),
    (["--pool-impl", "c3p0"], "--pool-impl", "hikari, agroal"),
    (["--server", "undertow"], "--server", "tomcat, jetty, netty"),
    (["--http-client", "okhttp"], "--http-client", "jdk, apache, reactor, jetty"),
    (["--client-pool", "0"], "--client-pool", "connections per route"),
    (["--context", "mdc"], "--context", "none, threadlocal, scopedvalue"),
    (["--context-kb", "0"], "--context-kb", "kilobytes"),
    (["--db-latency", "-3"], "--db-latency", "milliseconds per direction"),
    (["--db-jitter", "x"], "--db-jitter", "milliseconds"),
    (["--downstream-latency", "a"], "--downstream-latency", "milliseconds per direction"),
    (["--executor", "green"], "--executor", "platform, virtual"),
    (["--offload-pool", "0"], "--offload-pool", "platform offload threads"),
    (["--sleep-ms", "-5"], "--sleep-ms", "milliseconds"),
    (["--cpu-work", "0"], "--cpu-work", "SHA-256 rounds"),
    (["--model", "poisson"], "--model", "closed"),
    (["--profile", "huge"], "--profile", "quick"),
    (["--stub-delay", "-1"], "--stub-delay", "milliseconds"),
    (["--cpus", "app=99"], "--cpus", "not available"),
    (["--cpus", "db=0"], "--cpus", "TIER=CPUS"),
    (["--profiles", "cpu,heap"], "--profiles", "cpu, alloc, lock, wall"),
    (["--bogus"], "--bogus", "unrecognized"),
])
def test_bad_flags_name_the_flag_and_what_it_accepts(capsys, argv, flag, accepted):
    code, err = run_cli(capsys, "run", *argv)
    assert code == 2
    assert flag in err and accepted in err


@pytest.mark.parametrize("argv, words", [
    (["--aa", "virtual", "--modes", "platform,virtual"], ["--aa virtual with --modes platform,virtual"]),
    (["--aa", "webflux"], ["--aa", "platform", "virtual"]),
    (["--sequential", "--blocks", "3"], ["--blocks", "--paired"]),
    (["--paired", "--sequential"], ["--paired with --sequential", "give one of them"]),
    (["--paired", "--blocks", "1"], ["--blocks", "from 2 to 50"]),
    (["--paired", "--reps", "2"], ["--reps with --paired", "--blocks"]),
    (["--paired", "--jvm-per-row"], ["--jvm-per-row with --paired"]),
    (["--paired", "--modes", "virtual"], ["--paired", "both arms"]),
    (["--paired", "--aot", "on"], ["--aot on with --paired"]),
    (["--paired", "--pools", "250"], ["--pools 250: both arms' JVMs, up together, hold 500", "--pools 245 or fewer"]),
    (["--sequential", "--pools", "600"], ["--pools 600: vtlab's PostgreSQL takes 490"]),
])
def test_a_paired_plan_that_cannot_run_is_refused_naming_the_flag(capsys, tmp_path, argv, words):
    argv = ["run", *argv, "--out", str(tmp_path / "run"), "--dry-run"]
    try:  # argparse exits on a value it refuses; the plan's refusals are returned
        code, err = main(argv), capsys.readouterr().err
    except SystemExit as exited:
        code, err = exited.code, capsys.readouterr().err
    assert code == 2 and all(word in err for word in words), err
    assert not (tmp_path / "run").exists()


def test_capacity_searches_in_turn_only_two_modes_and_takes_no_blocks(capsys):
    assert main(["capacity", "--slo", "p99<=100ms", "--paired", "--modes", "virtual", "--dry-run"]) == 2
    assert "--paired with --modes virtual" in capsys.readouterr().err
    code, err = run_cli(capsys, "capacity", "--slo", "p99<=100ms", "--paired", "--blocks", "3")
    assert code == 2 and "--blocks" in err
    assert main(["capacity", "--slo", "p99<=100ms", "--paired", "--dry-run"]) == 0
    assert "the modes in turn, point by point" in capsys.readouterr().out
    assert main(["capacity", "--slo", "p99<=100ms", "--paired", "--aot", "on", "--dry-run"]) == 2
    assert "--paired with --aot on" in capsys.readouterr().err
    assert main(["capacity", "--slo", "p99<=100ms", "--paired", "--pools", "300", "--dry-run"]) == 2
    assert "--paired: --pools 300: both arms' JVMs, up together, hold 600" in capsys.readouterr().err
    # a cluster's pod a row: nothing to keep up together
    code, err = run_cli(capsys, "k8s", "render", "--out", "/nonexistent", "--paired")
    assert code == 2 and "--paired" in err


def test_open_model_without_rates_is_a_usage_error(capsys):
    assert main(["run", "--model", "open", "--dry-run"]) == 2
    assert "--rates" in capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    (["--db-latency", "5", "--db-jitter", "10"], ["--db-jitter", "--db-latency of at least 10"]),
    (["--downstream-jitter", "3"], ["--downstream-jitter", "--downstream-latency of at least 3"]),
    (["--modes", "webflux", "--workload", "write"], ["webflux", "order-summary"]),
    (["--url", "http://127.0.0.1:9", "--modes", "virtual", "--endpoint", "GET /x", "--profiles", "cpu"],
     ["--profiles with --url",
                                                                                   "--service"]),
])
def test_combinations_the_plan_cannot_measure_are_usage_errors(capsys, tmp_path, argv, words):
    assert main(["run", *argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert all(word in err for word in words)
    assert not (tmp_path / "run").exists()  # nothing started, nothing written


def test_out_with_existing_csv_needs_resume(tmp_path, capsys):
    (tmp_path / "matrix.csv").write_text("x\n")
    assert main(["run", "--out", str(tmp_path), "--dry-run"]) == 2
    assert "--resume" in capsys.readouterr().err


def test_dry_run_lists_rows_and_starts_nothing(capsys, tmp_path):
    assert main(["run", "--conc", "5", "--modes", "virtual", "--out", str(tmp_path / "r"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "virtual" in out and "5 users" in out
    assert not (tmp_path / "r").exists()


def test_jvm_opts_given_twice_are_two_sets_each_a_row_and_a_bad_set_is_refused(capsys, tmp_path):
    argv = ["run", "--profile", "hero", "--modes", "virtual", "--reps", "1", "--out", str(tmp_path / "r"), "--dry-run"]
    assert main([*argv, "--jvm-opts=-XX:+UseSerialGC -Xmx1g", "--jvm-opts="]) == 0
    out = capsys.readouterr().out
    assert "JVM -XX:+UseSerialGC -Xmx1g" in out and out.count("virtual order-summary") == 2
    code, err = run_cli(capsys, *argv, "--jvm-opts=-XX:+UseSerialGC", "--jvm-opts=UseParallelGC")
    assert code == 2 and "--jvm-opts: 'UseParallelGC' is not accepted; use JVM options, each starting with '-'" in err
    assert not (tmp_path / "r").exists()


def test_db_rejects_unknown_action(capsys):
    code, err = run_cli(capsys, "db", "restart")
    assert code == 2 and "start" in err


def test_setup_build_only_builds_the_tools_and_starts_no_database(capsys, monkeypatch):
    from vtlab.rig import build, postgres, procs
    built = []
    monkeypatch.setattr(procs, "install_signal_handlers", lambda: None)
    monkeypatch.setattr(build, "tools", lambda: built.append("tools") or {"jars_s": 1.0, "k6_s": 2.0})
    monkeypatch.setattr(postgres, "main_instance", lambda: pytest.fail("--build-only started the database"))
    assert main(["setup", "--build-only"]) == 0 and built == ["tools"]
    assert "vtlab setup: built (jars_s 1.0, k6_s 2.0)" in capsys.readouterr().out
    assert main(["setup", "--build-only", "--reseed"]) == 2 and built == ["tools"]
    err = capsys.readouterr().err
    assert "--reseed" in err and "--build-only" in err


def test_resume_of_a_csv_with_other_columns_is_refused_before_anything_starts(tmp_path, capsys):
    (tmp_path / "matrix.csv").write_text("ts_iso,thread_mode\n2026-01-01,virtual\n")
    assert main(["run", "--out", str(tmp_path), "--resume", "--dry-run"]) == 2
    assert "different columns" in capsys.readouterr().err


def test_a_results_folder_that_cannot_be_written_is_refused_before_anything_starts(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["run", "--out", str(tmp_path / "file" / "run")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "cannot write results" in err


def test_resume_of_a_damaged_csv_names_the_line_and_changes_nothing(tmp_path, capsys):
    from vtlab.results import table
    header = ",".join(table.COLUMNS)
    (tmp_path / "matrix.csv").write_text(f"{header}\n2026-01-01,virtual\n")
    assert main(["run", "--out", str(tmp_path), "--resume", "--dry-run"]) == 2
    assert "line(s) 2" in capsys.readouterr().err
    assert (tmp_path / "matrix.csv").read_text() == f"{header}\n2026-01-01,virtual\n"


@pytest.mark.parametrize("metadata, said", [
    ("{broken", "metadata.json: not JSON"),
    ('{"target": {"kubernetes": {"runners": 1}}}', "measured on a Kubernetes cluster"),
    ('{"target": {"jar": "/other.jar", "url": "", "call": "GET /y"}}', "measured /other.jar (GET /y)"),
])
def test_resume_reads_the_run_record_and_refuses_another_target_or_a_damaged_one(tmp_path, capsys, metadata, said):
    from vtlab.results import table
    (tmp_path / "matrix.csv").write_text(",".join(table.COLUMNS) + "\n")
    (tmp_path / "metadata.json").write_text(metadata)
    assert main(["run", "--out", str(tmp_path), "--resume", "--dry-run"]) == 2
    assert said in capsys.readouterr().err


def test_a_resumed_paired_run_keeps_the_order_it_began_with(capsys, tmp_path):
    import json

    from vtlab.core import dimensions
    from vtlab.plan import planner

    # 3 points of 3 couples: 2^9 orders, so a seed drawn anew would give another in all but 1 resume in 512
    began = planner.build("quick", planner.Overrides(paired=True, blocks=6, concurrency=(100, 400, 1000),
                                                     conn_modes=("released",), pair_seed=12345))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "metadata.json").write_text(json.dumps({"plan": began.describe()}))
    argv = ["run", "--paired", "--blocks", "6", "--conc", "100,400,1000", "--conn-mode", "released", "--out",
            str(run_dir), "--dry-run"]
    assert main([*argv, "--resume"]) == 0
    listed = [line.strip() for line in capsys.readouterr().out.splitlines()[1:]]
    assert listed == [dimensions.label(row) for row in began.rows]


def test_the_run_says_how_its_modes_are_measured_paired_or_why_not(capsys, pairing_quick):
    assert main(["run", "--dry-run"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "both modes' JVMs up, 3 blocks of 10 s each at every point, taken in turn" in first
    assert main(["run", "--dry-run", "--reps", "2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "each mode in its own stretch of time (--reps repeats each mode in its own stretch of time)" in first
    assert main(["run", "--dry-run", "--sequential"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "taken in turn" not in first and "own stretch of time" not in first
    assert main(["run", "--dry-run", "--aa", "virtual", "--conc", "1000", "--conn-mode", "released"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "two JVMs of one configuration up (an A/A), 4 blocks of 30 s each" in first and "both modes" not in first


def test_a_run_is_resumed_only_as_it_measured_its_modes_paired_or_one_after_the_other(capsys, tmp_path):
    import json
    import shutil
    from pathlib import Path

    from vtlab.results import table

    fixture = Path(__file__).parents[1] / "fixtures" / "quick-run"  # a default run of before: one mode after the other
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    shutil.copy(fixture / table.METADATA_NAME, run_dir / table.METADATA_NAME)
    table.CsvWriter(run_dir / table.CSV_NAME)  # this version's columns, no row yet
    assert main(["run", "--resume", "--out", str(run_dir), "--dry-run", "--paired"]) == 2
    assert "resume it with --sequential" in capsys.readouterr().err
    # no flag chose a design (the default now pairs): it resumes as it began, one mode after the other
    assert main(["run", "--resume", "--out", str(run_dir), "--dry-run"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "8 rows" in first and "taken in turn" not in first
    meta = json.loads((run_dir / table.METADATA_NAME).read_text())
    meta["plan"]["paired"] = {"a": "platform", "b": "virtual", "aa": False, "blocks": 3, "seed": 5}
    (run_dir / table.METADATA_NAME).write_text(json.dumps(meta))
    assert main(["run", "--resume", "--out", str(run_dir), "--dry-run", "--sequential"]) == 2
    assert "resume it with --paired" in capsys.readouterr().err
    assert main(["run", "--resume", "--out", str(run_dir), "--dry-run"]) == 0
    assert "taken in turn" in capsys.readouterr().out
