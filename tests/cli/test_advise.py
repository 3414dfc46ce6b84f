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
