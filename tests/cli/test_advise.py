"""`vtlab advise`: the run's advice printed; with --try --dry-run each try's command, nothing measured; bad input
exits 2 naming what is wrong, nothing started."""

import shutil
from pathlib import Path

from vtlab.cli.main import main

QUICK = Path(__file__).parent.parent / "fixtures" / "quick-run"


def test_the_advice_is_printed_and_each_try_s_command_with_dry_run(tmp_path, capsys):
    run_dir = tmp_path / "quick"
    shutil.copytree(QUICK, run_dir)
    assert main(["advise", str(run_dir), "--try", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "platform at 1,000 users: held by its request threads (200)" in out
    # one mode after the other, as the run was: the advised mode alone where only its line was advised
    commands = {line.split(": vtlab ")[0]: line.split(": vtlab ")[1].split() for line in out.splitlines()
                if line.startswith("vtlab advise: try ")}
    threads = commands["vtlab advise: try --tomcat-threads 1000"]
    assert threads[:3] == ["run", "--profile", "quick"] and "--sequential" in threads
    for flag, value in (("--modes", "platform"), ("--conc", "400,1000"), ("--conn-mode", "released"),
                        ("--tomcat-threads", "1000"), ("--out", f"{run_dir}/tries/tomcat-threads-1000")):
        assert threads[threads.index(flag) + 1] == value, (flag, threads)
    pools = commands["vtlab advise: try --pools 100"]
    for flag, value in (("--modes", "platform,virtual"), ("--pools", "100"), ("--conc", "100"),
                        ("--conn-mode", "held")):
        assert pools[pools.index(flag) + 1] == value, (flag, pools)
    assert not (run_dir / "tries").exists() and not (run_dir / "tries.json").exists()


def test_bad_input_exits_2_naming_it(tmp_path, capsys):
    assert main(["advise", str(tmp_path)]) == 2
    assert "is not a run folder" in capsys.readouterr().err
    run_dir = tmp_path / "quick"
    shutil.copytree(QUICK, run_dir)
    assert main(["advise", str(run_dir), "--dry-run"]) == 2
    assert "--dry-run prints the tries' commands: give it with --try" in capsys.readouterr().err
    (run_dir / "capacity.json").write_text("{}")
    assert main(["advise", str(run_dir), "--try"]) == 2
    assert "is a capacity search" in capsys.readouterr().err


USERS = Path(__file__).parent.parent / "recorded" / "users-script" / "script"


def users_run(tmp_path):
    """A recorded run of a user's jar (its k6 script), pointed at a jar and script of this test's own."""
    import json

    from boots import BOOT_MANIFEST, boot_jar

    run_dir = tmp_path / "users"
    shutil.copytree(USERS, run_dir)
    jar = boot_jar(tmp_path / "app.jar", BOOT_MANIFEST.format("4.1.1"))
    script = tmp_path / "two-calls.js"
    script.write_text("export default function () {}\n")
    metadata = json.loads((run_dir / "metadata.json").read_text())
    metadata["target"].update(jar=str(jar), call=f"k6 script {script}", db="vtlab",
                              env_names=["SERVER_TOMCAT_THREADS_MAX"])
    (run_dir / "metadata.json").write_text(json.dumps(metadata))
    return run_dir, jar, script


def test_a_try_on_a_users_service_needs_its_flags_again_and_the_same_ones(tmp_path, capsys):
    run_dir, jar, script = users_run(tmp_path)
    assert main(["advise", str(run_dir), "--try", "--dry-run"]) == 2
    assert f"measured your service ({jar}); give its flags again" in capsys.readouterr().err
    same = ["--service", str(jar), "--script", str(script), "--db", "--service-env", "SERVER_TOMCAT_THREADS_MAX=50"]
    assert main(["advise", str(run_dir), *same]) == 2
    assert "--service gives the service a try starts: give it with --try" in capsys.readouterr().err
    other = tmp_path / "other.js"
    other.write_text("export default function () {}\n")
    for changed, words in (([*same[:3], str(other), *same[4:]], f"call: the run's k6 script {script}, given k6 "),
                           (same[:4] + same[5:], "database: the run's vtlab, given none"),
                           (same[:5], "--service-env names: the run's SERVER_TOMCAT_THREADS_MAX, given none")):
        assert main(["advise", str(run_dir), "--try", "--dry-run", *changed]) == 2
        assert words in capsys.readouterr().err, changed
    assert main(["advise", str(run_dir), "--try", "--dry-run", *same]) == 0
    capsys.readouterr()
    assert not (run_dir / "tries").exists()


def test_flags_of_a_users_service_are_refused_for_a_run_of_vtlabs_own(tmp_path, capsys):
    run_dir = tmp_path / "quick"
    shutil.copytree(QUICK, run_dir)
    assert main(["advise", str(run_dir), "--try", "--service", str(tmp_path / "x.jar")]) == 2
    assert "--service describes your service" in capsys.readouterr().err
