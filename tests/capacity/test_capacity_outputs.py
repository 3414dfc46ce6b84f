"""capacity.json read back as written; `vtlab capacity`'s flags (bad ones: exit 2 naming the flag, nothing
started) and its dry run; `vtlab compare` on two capacity runs, gated on `capacity<-5%`."""

import datetime
import json
import math

import pytest
from clirun import run_cli
from simulated import Service

from vtlab.capacity import search, summary
from vtlab.cli.main import main
from vtlab.core import cores, objective
from vtlab.plan import calibration
from vtlab.results import capacityfile
from vtlab.report import capacity as report_capacity
from vtlab.results.capacityfile import CapacityRun, ModeCapacity, PointRecord


def _searched():
    settings = search.Settings(objective.parse("p99<=1500ms"), budget_s=3600.0)
    return search.search(["platform", "virtual"], 50, Service(), settings)


def test_capacity_json_reads_back_as_it_was_written(tmp_path):
    found = _searched()
    capacityfile.write(tmp_path, found)
    assert capacityfile.read(tmp_path) == found
    written = json.loads((tmp_path / "capacity.json").read_text())
    assert written["version"] == 1 and written["objective"] == "p99<=1500ms"
    assert written["modes"][0]["points"][0]["outcome"] == "pass"


def test_an_unknown_figure_is_null_in_the_file_and_nan_again_when_read(tmp_path):
    never_broke = ModeCapacity("virtual", 800.0, 800.0, math.nan, "budget spent")
    capacityfile.write(tmp_path, CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0, (never_broke,)))
    assert json.loads((tmp_path / "capacity.json").read_text())["modes"][0]["bracket_high"] is None
    assert math.isnan(capacityfile.read(tmp_path).modes[0].bracket_high)


@pytest.mark.parametrize("content, said", [("{", "cannot be read"), ('{"version": 9}', "version 9"),
                                           ('{"version": 1, "modes": []}', "lacks objective")])
def test_a_damaged_capacity_json_is_refused_saying_what_is_wrong(tmp_path, content, said):
    (tmp_path / "capacity.json").write_text(content)
    with pytest.raises(capacityfile.MalformedCapacity, match=said):
        capacityfile.read(tmp_path)


def test_the_summary_says_capacity_bracket_where_it_broke_the_wall_and_the_model():
    said = "\n".join(summary.lines(_searched()))
    # the staircase 50, 160 (toward the 200 req/s ceiling), 200 (the ceiling, not past it), then bisection: 179,
    # 189, 184; p99 = 1 s + 1 s (rate - 180) / (200 - rate) is 1,250 ms at 184 and 1,818 ms at 189
    assert ("platform: 184 req/s (bracket 184–189, 3%), p99 crossed 1500 ms at 189 req/s: thread-pool, "
            "200 threads busy") in said
    assert "model: 200 req/s by Little's law (thread-pool" in said and "measured -8% from it" in said


def _mode(name, low, high, wall, k6_ms):
    points = (PointRecord(low, "pass", "", low, {}, 0, 100, k6_ms_per_req=k6_ms),
              PointRecord(high, "fail", "", high, {}, 0, 100, k6_ms_per_req=k6_ms * 1.1))
    return ModeCapacity(name, low, low, high, "bracket within 5%", "p99 crossed 1500 ms", wall, "", high, points)


def test_the_capacity_ratio_is_told_with_the_range_both_brackets_allow_and_each_capacity_beside_the_host_s_speed():
    # platform 190-199 held by its threads, virtual 1,187-1,239 by the CPU: 1,187 / 190 = 6.25, the brackets allow
    # 1,187 / 199 = 5.96 to 1,239 / 190 = 6.52
    run = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0,
                      (_mode("platform", 190, 199, "thread-pool", 0.52), _mode("virtual", 1187, 1239, "cpu", 0.31)),
                      in_turn=True)
    assert run.ratio() == (pytest.approx(6.2474, abs=1e-4), pytest.approx(5.9648, abs=1e-4),
                           pytest.approx(6.5211, abs=1e-4))
    said = "\n".join(summary.lines(run))
    assert "virtual ÷ platform capacity: 6.25× (the brackets allow 5.96–6.52×); the modes searched in turn" in said
    assert ("k6 at the capacity: 0.310 ms of CPU a request; a CPU wall: the capacity moves with the "
            "host's speed") in said
    assert "k6 at the capacity: 0.520 ms of CPU a request; a thread-pool wall, sized by its setting: the host's" in said
    told = report_capacity.section(run).sentences
    assert ("Virtual threads carry 6.25× the platform threads' capacity; the brackets allow 5.96–6.52× (the modes "
            "searched at once, their points taken in turn on two warm JVMs up together).") in told
    # platform never broke: the ratio may be lower without bound, never higher than 1,239 / 190
    open_top = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0,
                           (ModeCapacity("platform", 190.0, 190.0, math.nan, "budget spent"),
                            _mode("virtual", 1187, 1239, "cpu", 0.31)))
    assert open_top.ratio_allowed() == "at most 6.52× (no load above platform's capacity broke the objective)"
    said = "\n".join(summary.lines(open_top))
    assert "6.25× (at most 6.52×" in said and "nan" not in said
    alone = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0, (_mode("virtual", 1187, 1239, "cpu", 0.31),))
    assert math.isnan(alone.ratio()[0]) and "÷ platform" not in "\n".join(summary.lines(alone))


def test_a_capacity_json_from_before_the_speed_index_and_turns_reads_with_none(tmp_path):
    capacityfile.write(tmp_path, _searched())
    written = json.loads((tmp_path / "capacity.json").read_text())
    del written["in_turn"]
    for mode in written["modes"]:
        for point in mode["points"]:
            del point["k6_ms_per_req"]
    (tmp_path / "capacity.json").write_text(json.dumps(written))
    read = capacityfile.read(tmp_path)
    assert not read.in_turn and math.isnan(read.modes[0].host_index_ms())


@pytest.mark.parametrize("argv, flag, accepted", [
    (["--slo", "p99<500ms"], "--slo", "p50, p90, p99 or p99.9 in ms or s"),
    (["--slo", "p99<=500ms", "--precision", "0"], "--precision", "a percentage above 0"),
    (["--slo", "p99<=500ms", "--budget", "soon"], "--budget", "minutes (15 or 15m) or seconds (900s)"),
    (["--slo", "p99<=500ms", "--model", "poisson"], "--model", "one of closed, open"),
    (["--slo", "p99<=500ms", "--start", "0"], "--start", "an integer from 1"),
])
def test_bad_flags_exit_2_naming_the_flag_and_what_it_accepts(capsys, argv, flag, accepted):
    code, err = run_cli(capsys, "capacity", *argv)
    assert code == 2 and f"argument {flag}" in err and accepted in err


def test_loads_the_search_chooses_are_refused_before_anything_starts(capsys):
    assert main(["capacity", "--slo", "p99<=500ms", "--rates", "100"]) == 2
    assert "--rates: the search chooses each point's load" in capsys.readouterr().err


def test_the_dry_run_prints_the_search_s_plan_and_starts_nothing(capsys):
    assert main(["capacity", "--slo", "p99<=500ms,errors<=0.1%", "--modes", "platform", "--precision", "3%",
                 "--budget", "10", "--dry-run"]) == 0
    out = capsys.readouterr().out
    # quick: 100 users through a 1 s downstream make 100 req/s
    assert ("p99<=500ms,errors<=0.1% for platform (open model); start 100 req/s (profile quick's 100 users through "
            "its 1 s downstream)") in out
    assert "bisection to 3%; budget 10 min" in out and "platform order-summary open model 100 req/s" in out


def test_a_search_into_a_folder_that_holds_a_run_exits_2_naming_out_and_starts_nothing(tmp_path, capsys):
    (tmp_path / "matrix.csv").write_text("thread_mode\nplatform\n")
    assert main(["capacity", "--slo", "p99<=500ms", "--start", "50", "--model", "closed",
                 "--out", str(tmp_path)]) == 2
    assert "--out" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matrix.csv"]  # nothing written beside it


def _capacity_run(folder, platform, bracket_high, objective_text="p99<=1500ms"):
    mode = ModeCapacity("platform", platform, platform, bracket_high, "bracket within 5%")
    folder.mkdir()
    capacityfile.write(folder, CapacityRun(objective_text, "open", "req/s", 0.05, 900.0, (mode,)))
    return str(folder)


def test_compare_gates_two_capacity_runs_only_on_a_drop_beyond_both_brackets(tmp_path, capsys):
    base = _capacity_run(tmp_path / "base", 200.0, 210.0)
    dropped = _capacity_run(tmp_path / "dropped", 170.0, 178.0)      # -15%, its bracket wholly below BASE's
    within = _capacity_run(tmp_path / "within", 186.0, 205.0)        # -7%, but the brackets overlap
    assert main(["compare", base, dropped, "--fail-on", "capacity<-5%"]) == 1
    assert "platform: 200 -> 170 (-15.0%, range -40 to -22) worse  FAILS the gate" in capsys.readouterr().out
    assert main(["compare", base, within, "--fail-on", "capacity<-5%"]) == 0
    assert (tmp_path / "within" / "capacity-compare.md").exists()


def test_compare_writes_the_capacity_comparison_as_json_and_html_beside_the_markdown(tmp_path, capsys):
    base = _capacity_run(tmp_path / "base", 200.0, 210.0)
    dropped = _capacity_run(tmp_path / "dropped", 170.0, 178.0)
    assert main(["compare", base, dropped, "--fail-on", "capacity<-5%"]) == 1
    written = json.loads((tmp_path / "dropped" / "capacity-compare.json").read_text())
    assert (written["objective"], written["unit"]) == ("p99<=1500ms", "req/s")
    # 170 - 200 = -30 (-15%); the range from the brackets: 170 - 210 = -40 to 178 - 200 = -22
    assert written["modes"] == [{"mode": "platform", "base": {"capacity": 200.0, "bracket_low": 200.0,
                                                              "bracket_high": 210.0, "stop": "bracket within 5%"},
                                 "new": {"capacity": 170.0, "bracket_low": 170.0, "bracket_high": 178.0,
                                         "stop": "bracket within 5%"},
                                 "delta": -30.0, "low": -40.0, "high": -22.0, "share": -0.15, "verdict": "worse"}]
    assert written["gate"] == {"failed": True, "breaches": [{"mode": "platform", "condition": "capacity<-5%",
                                                             "share": -0.15}], "incomplete": []}
    assert written["complete"] == {"base": True, "new": True}
    page = (tmp_path / "dropped" / "capacity-compare.html").read_text()
    assert ("<td>platform</td><td>200 req/s [200–210]</td><td>170 req/s [170–178]</td><td>-15.0%</td>"
            "<td>-40 to -22 req/s</td><td>worse</td>") in page
    assert "FAILED capacity&lt;-5%: platform, -15.0%" in page and page.count("<svg") == 2


def test_a_capacity_comparison_without_a_gate_says_none_was_asked(tmp_path, capsys):
    base = _capacity_run(tmp_path / "base", 200.0, 210.0)
    never_broke = _capacity_run(tmp_path / "new", 230.0, math.nan)
    assert main(["compare", base, never_broke]) == 0
    written = json.loads((tmp_path / "new" / "capacity-compare.json").read_text())
    assert "gate" not in written and written["modes"][0]["new"]["bracket_high"] is None
    assert written["modes"][0]["high"] is None  # a bracket with no upper edge reaches any load above it
    assert "<h2>Gate</h2>" not in (tmp_path / "new" / "capacity-compare.html").read_text()


def test_compare_refuses_capacity_runs_at_other_objectives_and_gates_that_never_apply(tmp_path, capsys):
    base = _capacity_run(tmp_path / "base", 200.0, 210.0)
    other = _capacity_run(tmp_path / "other", 170.0, 178.0, "p99<=500ms")
    assert main(["compare", base, other]) == 2
    assert "capacities at different objectives do not compare" in capsys.readouterr().err
    assert main(["compare", base, base, "--fail-on", "throughput<-5%"]) == 2
    assert "compare their capacity only" in capsys.readouterr().err


def _user_service_dry_run(capsys) -> str:
    assert main(["capacity", "--slo", "p99<=100ms", "--url", "http://127.0.0.1:9", "--endpoint", "GET /x",
                 "--modes", "virtual", "--dry-run"]) == 0
    return capsys.readouterr().out


def test_a_user_service_s_first_rate_is_where_this_machine_s_calibrated_request_takes_a_quarter_of_its_cpu(capsys):
    count = len(cores.available())
    # 4 ms of every tier's CPU a request (3 + 0.5 + 0.3 + 0.2): a quarter of `count` cores carries 62.5 × count req/s
    cost = calibration.ModeCost(service_ms=3.0, generator_ms=0.5, stub_ms=0.3, database_ms=0.2, rps=130.0)
    calibration.save(calibration.Calibration(
        machine=calibration.machine_key(count), cores=count, version=calibration.CALIBRATION_VERSION,
        measured_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        modes={"platform": cost, "virtual": cost}, quota=None))
    out = _user_service_dry_run(capsys)
    assert f"start {round(62.5 * count)} req/s (where a request of vtlab's own service would take 25% of this " \
           "machine's CPU, at the 4.00 ms of every tier its calibration measured at most)" in out


def test_without_a_calibration_a_user_service_starts_at_a_request_a_second_per_profile_user_and_says_why(capsys):
    assert "start 10 req/s (one request a second for each of profile service's 10 users; `vtlab calibrate` sizes " \
           "the start to this machine)" in _user_service_dry_run(capsys)


def _edge_mode(edge_wall: str, crossed: str = "") -> ModeCapacity:
    passed = PointRecord(1531, "pass", "p99 1220 ms within 1500 ms", 1531.0, {}, 0, 30_000, (), "cpu", "host 95% busy")
    edge = PointRecord(1616, "unsure", "p99 1613 ms (95% 1496–1729 ms) straddles 1500 ms", 1616.0, {}, 0, 32_000, (),
                       edge_wall, "host 97% busy" if edge_wall == "cpu" else "open model: 1616 of 1616 req/s offered")
    return ModeCapacity("virtual", 1531.0, 1531.0, 1616.0, "bracket within 5%", crossed=crossed,
                        points=(passed, edge))


def test_an_edge_too_close_to_call_with_no_failure_above_it_names_the_wall_its_row_saw():
    # cap10's virtual search: no load failed, 1,616 req/s was too close to call and its row saw the CPU's wall
    said = summary.headline(_edge_mode("cpu"), "req/s")
    assert said == ("virtual: 1,531 req/s (bracket 1,531–1,616, 6%), at 1,616 req/s (too close to call): cpu, host "
                    "97% busy")
    assert report_capacity.answer(_edge_mode("cpu"), "req/s").endswith(
        ", at 1,616 req/s (too close to call): cpu, host 97% busy.")
    # a row that saw only its own load names nothing; a failure above names its own wall, not the edge's
    assert "too close to call" not in summary.headline(_edge_mode("users"), "req/s")
    assert "too close to call" not in summary.headline(_edge_mode("cpu", crossed="p99 crossed 1500 ms"), "req/s")


def _at_host(name, low, high, wall, host_us):
    points = (PointRecord(low, "pass", "", low, {}, 0, 100, k6_ms_per_req=0.3, host_work_us=host_us),
              PointRecord(high, "fail", "", high, {}, 0, 100, k6_ms_per_req=0.3, host_work_us=host_us * 1.01))
    return ModeCapacity(name, low, low, high, "bracket within 5%", "p99 crossed 1500 ms", wall, "", high, points)


def test_each_capacity_is_told_beside_the_host_s_fixed_work_at_its_point():
    run = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0,
                      (_at_host("platform", 190, 199, "thread-pool", 362.0), _at_host("virtual", 1187, 1239, "cpu",
                                                                                       371.0)), in_turn=True)
    said = "\n".join(summary.lines(run))
    assert ("the host's fixed work there 371 µs of CPU (371–375 over the search's points); a CPU wall: the capacity "
            "moves with the host's speed") in said
    assert "the host's fixed work there 362 µs of CPU (362–366 over the search's points); a thread-pool wall" in said
    assert any("371 µs" in sentence for sentence in report_capacity.section(run).sentences)


def test_two_capacity_runs_are_put_on_one_scale_where_a_cpu_wall_held_and_both_read_the_host_s_speed():
    from vtlab.compare import capacity as compare_capacity

    # NEW's host 20% slower (the fixed work 432 µs against 360): its CPU-held 1,000 req/s is 1,200 on BASE's host;
    # platform's threads hold it at 190 whatever the host's speed
    base = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0,
                       (_at_host("platform", 190, 199, "thread-pool", 360.0), _at_host("virtual", 1250, 1300, "cpu",
                                                                                        360.0)))
    new = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0,
                      (_at_host("platform", 190, 199, "thread-pool", 432.0), _at_host("virtual", 1000, 1040, "cpu",
                                                                                       432.0)))
    said = "\n".join(compare_capacity.lines(base, new, compare_capacity.changes(base, new), set()))
    assert ("on BASE's host speed (the host's fixed work 360 µs of CPU in BASE, 432 in NEW; a cpu wall moves with "
            "it): NEW's 1,000 is 1,200 req/s: -4.0% from BASE's 1,250 on one scale, against -20.0% as measured") in said
    assert "a thread-pool wall, sized by its setting, which the host's speed does not move" in said
    unread = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0,
                         (_mode("virtual", 1000, 1040, "cpu", 0.31),))
    assert "host speed" not in "\n".join(compare_capacity.lines(base, unread, compare_capacity.changes(base, unread),
                                                                set()))


def test_a_capacity_whose_upper_edge_was_too_close_to_call_is_scaled_by_that_edge_s_wall():
    from vtlab.compare import capacity as compare_capacity

    # cap1 and cap2 (2026-12-01): the capacity's edge too close to call with the CPU at its wall, a GC wall failing
    # further up; NEW 1,138 req/s at 224 µs is 1,175 on BASE's 217 µs host: -11.6% of the -14.4% left on one scale
    def searched(capacity, edge, failed, host_us):
        points = (PointRecord(capacity, "pass", "", capacity, {}, 0, 100, wall="cpu", host_work_us=host_us),
                  PointRecord(failed, "fail", "", failed, {}, 0, 100, wall="gc", host_work_us=host_us),
                  PointRecord(edge, "unsure", "", edge, {}, 0, 100, wall="cpu", host_work_us=host_us))
        mode = ModeCapacity("virtual", capacity, capacity, edge, "bracket within 5%", "p99 crossed 1500 ms", "gc", "",
                            failed, points)
        return CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0, (mode,))
    base, new = searched(1329, 1392, 1506, 217.0), searched(1138, 1185, 1702, 224.0)
    said = "\n".join(compare_capacity.lines(base, new, compare_capacity.changes(base, new), set()))
    assert "NEW's 1,138 is 1,175 req/s: -11.6% from BASE's 1,329 on one scale, against -14.4% as measured" in said


def test_capacity_runs_whose_host_speed_was_read_in_other_units_are_not_put_on_one_scale():
    from dataclasses import replace

    from vtlab.compare import capacity as compare_capacity

    base = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0, (_at_host("virtual", 1250, 1300, "cpu", 360.0),),
                       host_work_unit="CPython 3.11, 3000 steps")
    new = replace(base, modes=(_at_host("virtual", 1000, 1040, "cpu", 432.0),),
                  host_work_unit="CPython 3.13, 3000 steps")
    said = "\n".join(compare_capacity.lines(base, new, compare_capacity.changes(base, new), set()))
    assert ("read in other units (CPython 3.11, 3000 steps in BASE, CPython 3.13, 3000 steps in NEW): not put on one "
            "scale") in said and "on BASE's host speed" not in said


def test_a_capacity_whose_host_moved_under_its_point_is_not_put_on_one_scale():
    from dataclasses import replace

    from vtlab.compare import capacity as compare_capacity

    # cap1 against cap2 (2026-12-07): cap1's 1,622 at a host steady at ~241 µs (its deciles 16% apart); cap2's 1,690
    # at a median of 325 µs whose readings moved between ~240 and ~370 (54%): scaled by that median it read 2,280,
    # +40.6%, a speed the host never held
    def at(capacity, host_us, spread, wall="cpu"):
        mode = _at_host("virtual", capacity, round(capacity * 1.04), wall, host_us)
        return replace(mode, points=tuple(replace(point, host_work_spread_pct=spread) for point in mode.points))

    def compared(base_mode, new_mode):
        base = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0, (base_mode,))
        new = CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0, (new_mode,))
        return "\n".join(compare_capacity.lines(base, new, compare_capacity.changes(base, new), set()))

    said = compared(at(1622, 241.0, 16.5), at(1690, 325.0, 54.0))
    assert ("the host's fixed work 241 µs of CPU in BASE, 325 in NEW, each its point's median; the host's speed moved "
            "under NEW's point (54.0% from the 10th to the 90th percentile; steady within 30%): a cpu wall moves with "
            "the host's speed, but the median of a moving host is not its speed there, so not put on one scale"
            ) in said
    assert "2,279" not in said and "on BASE's host speed" not in said
    assert ("the host's fixed work there 325 µs of CPU (325–328 over the search's points), moving 54.0% under the "
            "capacity's point (from the 10th to the 90th percentile): the median of a moving host, not its speed "
            "there") in "\n".join(summary.lines(CapacityRun("p99<=1500ms", "open", "req/s", 0.05, 900.0,
                                                            (at(1690, 325.0, 54.0),))))
    # BASE's host moved, or both: named as such
    assert "moved under BASE's point (48.0% from" in compared(at(1622, 241.0, 48.0), at(1690, 325.0, 16.5))
    assert "moved under BASE and NEW's points (48.0% and 54.0% from" in compared(at(1622, 241.0, 48.0),
                                                                                at(1690, 325.0, 54.0))
    # both steady, the limit itself included: on one scale, as before — 1,690 at 325 µs on BASE's 241 µs host is 2,279
    said = compared(at(1622, 241.0, 16.5), at(1690, 325.0, 30.0))
    assert "NEW's 1,690 is 2,279 req/s: +40.5% from BASE's 1,622 on one scale, against +4.2% as measured" in said
    assert "not recorded" not in said and "moved under" not in said
    # a capacity kept before the spread was: scaled, and said to be unread
    assert ("NEW's 1,690 is 2,279 req/s: +40.5% from BASE's 1,622 on one scale, against +4.2% as measured (how far the "
            "host moved under NEW's point was not recorded)") in compared(at(1622, 241.0, 16.5),
                                                                          at(1690, 325.0, math.nan))
    # a wall a setting sizes is not scaled whatever the host did, so its spread is not told
    said = compared(at(190, 241.0, 16.5, "thread-pool"), at(189, 325.0, 54.0, "thread-pool"))
    assert "a thread-pool wall, sized by its setting" in said and "moved under" not in said
