"""`vtlab doctor`: each check reads the real machine (or a sysfs-shaped folder) and says what to do."""

import socket

import pytest

from vtlab.cli.main import main
from vtlab.rig import doctor


def test_a_cpufreq_governor_other_than_performance_and_turbo_are_warnings_with_their_fix(tmp_path):
    for cpu in ("cpu0", "cpu1"):
        (tmp_path / cpu / "cpufreq").mkdir(parents=True)
        (tmp_path / cpu / "cpufreq" / "scaling_governor").write_text("powersave\n")
    (tmp_path / "intel_pstate").mkdir()
    (tmp_path / "intel_pstate" / "no_turbo").write_text("0\n")
    governor, turbo = doctor.cpu_frequency(str(tmp_path))
    assert governor.status == doctor.WARN and "powersave" in governor.found and "performance" in governor.fix
    assert turbo.status == doctor.WARN and "no_turbo" in turbo.fix


def test_no_cpufreq_is_information_not_a_warning(tmp_path):
    [finding] = doctor.cpu_frequency(str(tmp_path))
    assert finding.status == doctor.INFO


def test_a_plan_with_more_users_than_open_files_allow_is_warned():
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert doctor.open_files(soft).status == doctor.WARN  # users + headroom exceed the limit
    assert doctor.open_files(10).status == doctor.OK


def test_a_taken_port_names_the_tier_and_the_variable_that_moves_it(monkeypatch):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        monkeypatch.setattr(doctor, "STUB_PORT", listener.getsockname()[1])
        by_topic = {f.topic: f for f in doctor.ports(pg_running=True)}
        taken = by_topic[f"port {listener.getsockname()[1]}"]
    assert taken.status == doctor.WARN and "stub" in taken.found and "VTLAB_STUB_PORT" in taken.fix
    assert not any("PostgreSQL" in f.found for f in by_topic.values())  # our running database holds its port


@pytest.mark.parametrize("headroom, code, last", [(0, 0, "all well"), (10**9, 1, "1 warning(s)")])
def test_doctor_exits_1_with_warnings_and_0_when_all_is_well(monkeypatch, capsys, headroom, code, last):
    monkeypatch.setattr(doctor, "FD_HEADROOM", headroom)
    monkeypatch.setattr(doctor, "ports", lambda pg_running: [])  # a developer's own rig may hold the ports
    monkeypatch.setattr(doctor, "other_harnesses", lambda: doctor.Finding(doctor.OK, "other vtlab runs", "", "", ""))
    monkeypatch.setattr(doctor, "cpu_frequency", lambda: [])
    monkeypatch.setattr(doctor, "free_disk", lambda rows: doctor.Finding(doctor.OK, "disk", "", "", ""))
    assert main(["doctor", "--conc", "10"]) == code
    out = capsys.readouterr().out
    assert out.strip().endswith(last) and "JDK" in out


def test_doctor_refuses_a_bad_flag_like_run(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["doctor", "--modes", "green"])
    assert exit_info.value.code == 2 and "--modes" in capsys.readouterr().err


def test_the_service_needs_a_file_per_connection_in_and_out(monkeypatch):
    """The 10,000-user row that held 19,999 of 20,000 open files: its service needs two per user."""
    import resource
    assert doctor.open_files_needed(10_000) == 20_000 + doctor.FD_HEADROOM
    monkeypatch.setattr(resource, "getrlimit", lambda which: (20_000, 20_000))
    assert doctor.open_files(10_000).status == doctor.WARN and doctor.open_files(9_000).status == doctor.OK


def test_an_accept_queue_the_kernel_caps_below_a_burst_of_connects_is_warned_with_the_sysctl(tmp_path):
    somaxconn = tmp_path / "somaxconn"
    somaxconn.write_text("4096\n")
    # 10,000 users ramped over 30 s connect 334 a second: they fit
    assert doctor.accept_backlog(10_000, 334, str(somaxconn)).status == doctor.OK
    # a spike of ×3 on 5,000 users connects 10,000 at once
    warned = doctor.accept_backlog(15_000, 10_000, str(somaxconn))
    assert warned.status == doctor.WARN and warned.fix.startswith("sysctl -w net.core.somaxconn=10000")


def test_the_limit_is_raised_to_the_need_where_allowed_else_to_the_hard_limit(monkeypatch):
    import resource
    calls = []
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, 20_000))

    def refuse_above_hard(which, limits):
        calls.append(limits)
        if limits[1] > 20_000:
            raise ValueError("not allowed to raise maximum limit")
    monkeypatch.setattr(resource, "setrlimit", refuse_above_hard)
    doctor.raise_open_files_limit(21_024)
    assert calls == [(21_024, 21_024), (20_000, 20_000)]
    calls.clear()
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: calls.append(limits))
    doctor.raise_open_files_limit(21_024)
    assert calls == [(21_024, 21_024)]  # root: both limits up to the need


def test_a_heap_set_below_what_the_users_keep_live_is_warned_and_vtlabs_own_sizing_is_not():
    # 10,000 users keep 64 + 10,000 × 150 / 1024 ≈ 1,529 MB live; the run gave them 1 GB
    small = doctor.heap(10_000, ("-XX:+UseParallelGC", "-Xmx4g", "-Xmx1g"))  # the last -Xmx wins, as in the JVM
    assert small.status == doctor.WARN and small.fix.startswith("--jvm-opts=-Xmx3840m")
    assert doctor.heap(10_000, ("-Xmx4g",)).status == doctor.OK
    assert doctor.heap(10_000, ("-Xmx4194304k",)).status == doctor.OK
    sized = doctor.heap(10_000, ())
    assert sized.status == doctor.OK and "sized to 3840 MB" in sized.found
    # several option sets (one per --jvm-opts): the one that warns is told, whichever comes first
    assert doctor.heaps(10_000, (("-Xmx4g",), ("-XX:+UseSerialGC", "-Xmx1g"))).found.startswith(
        "--jvm-opts sets -Xmx to 1,024 MB")
    assert doctor.heaps(10_000, ((), ("-Xmx4g",))).found == sized.found
