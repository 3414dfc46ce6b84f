"""A paired run told: the first screen answers with the paired ratio (its pairs counted), an A/A with the false
difference it found and whether its interval holds 1.00×, the section says how far the machine moved under the
blocks, and report.json carries every pair. Rendered from run folders made by hand, so the data could say
otherwise."""

import json

from vtlab.core.arms import ARM_B_OPTION
from vtlab.report import render
from vtlab.results import table

from rows import META, row


def block(mode: str, rep: int, rps: float, k6_ms: float, **changes):
    """A clean 100-user block of 30 s: its requests and halves agree with its throughput."""
    return row(**{"thread_mode": mode, "rep": rep, "throughput_rps": rps, "http_reqs": round(rps * 30),
                  "ok_requests": round(rps * 30), "throughput_first_half_rps": rps, "throughput_second_half_rps": rps,
                  "load_cpu_ms_per_req": k6_ms, **changes})


def old_and_new(*new_rps):
    """A before/after's blocks: old.jar's 100 req/s and new.jar's given, pair by pair in the order AB BA BA AB."""
    old = [block("virtual", rep, 100, 0.2) for rep in (1, 2, 3, 4)]
    new = [block("virtual", rep, rps, 0.2, jvm_opts=ARM_B_OPTION) for rep, rps in enumerate(new_rps, start=1)]
    return [old[0], new[0], new[1], old[1], new[2], old[2], old[3], new[3]]


def run_folder(tmp_path, rows, a="platform", b="virtual", versus=(), aa_floor=None):
    run_dir = tmp_path / "run"
    run_dir.mkdir(parents=True)
    plan = {"profile": "quick", "model": "closed", "ramp_s": 5, "warmup_s": 45, "hold_s": 30, "stub_delay_ms": 1000,
            "stub_jitter_ms": 0, "overrides": {}, "rows": [],
            "paired": {"a": a, "b": b, "aa": a == b and not versus, "blocks": 4, "seed": 11,
                       **({"versus": list(versus)} if versus else {}),
                       **({"aa_floor": aa_floor} if aa_floor is not None else {})}}
    (run_dir / table.METADATA_NAME).write_text(json.dumps({**META, "plan": plan}))
    writer = table.CsvWriter(run_dir / table.CSV_NAME)
    for cells in rows:
        writer.append({column: cells.get(column, "") for column in table.COLUMNS})
    render.render(run_dir)
    return run_dir


def test_the_answer_is_the_paired_ratio_and_the_section_shows_the_machine_moving(tmp_path):
    # ratios 2.0, 2.2, 1.8, 2.0 (tests/explain/test_pairs.py works them: 1.99499 [1.75105, 2.27293]); the machine
    # slows under the last two pairs: k6's CPU per request 0.30 -> 0.45 on platform (+50%), 0.20 -> 0.25 (+25%)
    rows = [block("platform", 1, 40, 0.30), block("virtual", 1, 80, 0.20),
            block("virtual", 2, 88, 0.20), block("platform", 2, 40, 0.30),
            block("virtual", 3, 72, 0.25), block("platform", 3, 40, 0.45),
            block("platform", 4, 45, 0.45), block("virtual", 4, 90, 0.25)]
    run_dir = run_folder(tmp_path, rows)
    md = (run_dir / "report.md").read_text()
    assert "virtual ÷ platform at 100 users: 1.99× [1.75–2.27] paired, 4 pairs" in md
    assert "k6's CPU per request, the host's speed index, moved up to 50.0% within an arm" in md
    assert "an arm's throughput up to 25.0%" in md  # virtual: 90 / 72
    assert "the counted pairs' ratios 22.2%" in md  # 2.2 / 1.8
    assert "| 3 | BA | 40.0 | 72.0 | 1.800 | 0.450 / 0.250 | yes |" in md
    drawn = json.loads((run_dir / "charts.json").read_text())["paired"]  # what the pairs' chart draws
    assert drawn["ratio"] == [2.0, 2.2, 1.8, 2.0] and drawn["counted"] == [True] * 4
    assert drawn["k6_ms_a"] == [0.30, 0.30, 0.45, 0.45] and drawn["k6_ms_b"] == [0.20, 0.20, 0.25, 0.25]
    paired = json.loads((run_dir / "report.json").read_text())["paired"]
    assert [pair["order"] for pair in paired[0]["pairs"]] == ["ab", "ba", "ba", "ab"]
    assert abs(paired[0]["ratio"] - 1.99499) < 5e-5 and abs(paired[0]["low"] - 1.75105) < 5e-5


def test_an_aa_answers_with_its_false_difference_and_says_whether_it_holds_one(tmp_path):
    same = [block("virtual", 1, 50, 0.2), block("virtual", 1, 51, 0.2, jvm_opts=ARM_B_OPTION),
            block("virtual", 2, 49, 0.2, jvm_opts=ARM_B_OPTION), block("virtual", 2, 50, 0.2)]
    md = (run_folder(tmp_path / "same", same, "virtual", "virtual") / "report.md").read_text()
    assert "virtual (arm b) ÷ virtual (arm a) at 100 users: 1.00× [" in md
    assert "the interval holds 1.00×: no difference shown, as there is none" in md
    apart = [block("virtual", 1, 50, 0.2), block("virtual", 1, 55, 0.2, jvm_opts=ARM_B_OPTION),
             block("virtual", 2, 56, 0.2, jvm_opts=ARM_B_OPTION), block("virtual", 2, 50, 0.2),
             block("virtual", 3, 50, 0.2), block("virtual", 3, 55.5, 0.2, jvm_opts=ARM_B_OPTION)]
    md = (run_folder(tmp_path / "apart", apart, "virtual", "virtual") / "report.md").read_text()
    assert "does not hold 1.00×: this design calls two identical JVMs different here" in md


def test_a_point_whose_every_pair_is_out_has_no_answer_and_says_why(tmp_path):
    rows = [block("platform", 1, 40, 0.3, error_rate=0.5), block("virtual", 1, 80, 0.2),
            block("virtual", 2, 80, 0.2), block("platform", 2, 40, 0.3, error_rate=0.5)]
    md = (run_folder(tmp_path, rows) / "report.md").read_text()
    assert "virtual ÷ platform at 100 users: no ratio: no pair of blocks counts (arm a: errors-above-threshold)" in md


def test_a_before_after_answers_with_the_change_from_one_jar_to_the_other(tmp_path):
    # new.jar serves 10% less in every pair but the last (ratios 0.90, 0.90, 0.88, 0.92: geometric mean 0.89989)
    slower = old_and_new(90, 90, 88, 92)
    md = (run_folder(tmp_path, slower, "virtual", "virtual", ("old.jar", "new.jar")) / "report.md").read_text()
    assert "new.jar (virtual) ÷ old.jar (virtual) at 100 users: 0.90× [0.87–0.93] paired, 4 pairs" in md
    assert "new.jar serves 10.0% less than old.jar: the interval lies wholly below 1.00×" in md
    assert "A/A" not in md  # a before/after is no A/A, though both arms run one mode


def test_a_mode_whose_every_block_the_machine_moved_stands_as_its_pairs_do_and_says_so(tmp_path):
    # every platform block took CPU from a neighbour (foreign 30% > the flag's threshold): no valid platform row,
    # yet each pair counts (the pairing stands beside the machine's drift) — the mode's line tells its figure
    noisy = dict(foreign_cpu_pct=30)
    rows = [block("platform", 1, 40, 0.30, **noisy), block("virtual", 1, 80, 0.20),
            block("virtual", 2, 80, 0.20), block("platform", 2, 40, 0.30, **noisy)]
    md = (run_folder(tmp_path / "drift", rows) / "report.md").read_text()
    assert "virtual ÷ platform at 100 users: 2.00× [2.00–2.00] paired, 2 pairs" in md
    assert ("platform threads: 40.0 req/s at 100 users, held by the users themselves, each waiting on the "
            "downstream call") in md
    assert "2 of its 2 blocks flagged for the machine's moving (noisy-neighbour), counted in their pairs" in md
    assert "set apart" not in md  # its blocks stand as their pairs do: none is set apart
    assert ("Every row is valid; 2 block(s) flagged for the machine's moving stand as their pairs do (noisy-neighbour "
            "2).") in md
    # a fault the pairing does not stand beside (failures) leaves no pair and no figure to tell
    failing = [block("platform", 1, 40, 0.30, error_rate=0.5), block("virtual", 1, 80, 0.20),
               block("virtual", 2, 80, 0.20), block("platform", 2, 40, 0.30, error_rate=0.5)]
    md = (run_folder(tmp_path / "failing", failing) / "report.md").read_text()
    assert "platform threads: no valid platform row" in md and "counted in their pairs" not in md


def test_a_before_after_s_second_arm_is_labelled_apart_and_no_step_of_the_first_arm_s_staircase(tmp_path):
    # two jars of platform threads at 400 users: 180 and 200 threads' worth (vs1, 2026-11-28); the story once read
    # the other jar's 179 req/s as a step of the first's staircase ("throughput did not flatten: 179 ... 200")
    b = dict(jvm_opts=ARM_B_OPTION)
    rows = [block("platform", 1, 200, 0.3, concurrency=400), block("platform", 1, 179, 0.3, concurrency=400, **b),
            block("platform", 2, 179, 0.3, concurrency=400, **b), block("platform", 2, 199, 0.3, concurrency=400)]
    md = (run_folder(tmp_path, rows, "platform", "platform", ("old.jar", "new.jar")) / "report.md").read_text()
    assert "did not flatten" not in md
    assert "new.jar (platform) ÷ old.jar (platform) at 400 users: 0.90×" in md


def test_the_section_says_how_the_blocks_were_loaded_in_turns_or_each_a_k6_run(tmp_path):
    def point(**changes):
        return [block("platform", 1, 40, 0.3, **changes), block("virtual", 1, 80, 0.2, **changes),
                block("virtual", 2, 82, 0.2, **changes), block("platform", 2, 41, 0.3, **changes)]
    in_turns = (run_folder(tmp_path / "t", point(taken_in_turns="yes")) / "report.md").read_text()
    assert "a block was its arm's turn" in in_turns and "a k6 run of its own" not in in_turns
    runs = (run_folder(tmp_path / "r", point()) / "report.md").read_text()
    assert "Each block was a k6 run of its own" in runs and "its arm's turn" not in runs
    # a point that could not take turns beside one that did (a resumed point's last block was a k6 run): named
    told = (run_folder(tmp_path / "m", point(taken_in_turns="yes") + point(concurrency=400)) / "report.md").read_text()
    assert "a block was its arm's turn" in told
    assert "released, pool 50, 400 users: each block a k6 run of its own" in told


def test_where_the_host_s_speed_was_read_the_section_tells_it_by_the_fixed_work_across_both_arms(tmp_path):
    # the fixed work took 400 µs under the first couple and 460 µs under the second (+15%, both arms alike); k6's CPU
    # per request moved 50% within platform's arm (its load's own cost, which is no host index across loads)
    rows = [block("platform", 1, 40, 0.30, host_work_us=400), block("virtual", 1, 80, 0.20, host_work_us=402),
            block("virtual", 2, 88, 0.20, host_work_us=404), block("platform", 2, 40, 0.30, host_work_us=401),
            block("virtual", 3, 72, 0.25, host_work_us=455), block("platform", 3, 40, 0.45, host_work_us=460),
            block("platform", 4, 45, 0.45, host_work_us=458), block("virtual", 4, 90, 0.25, host_work_us=459)]
    md = (run_folder(tmp_path, rows) / "report.md").read_text()
    assert "the host's speed (a fixed work's CPU time) moved up to 15.0%, k6's CPU per request up to 50.0%" in md
    assert "a pair's two blocks saw the host within 1.1% of each other" in md  # block 3: 460 / 455
    assert "the host's speed index" not in md


def test_the_host_s_speed_is_told_where_k6_s_cpu_was_not_read(tmp_path):
    rows = [block("platform", 1, 40, "", host_work_us=400), block("virtual", 1, 80, "", host_work_us=404),
            block("virtual", 2, 88, "", host_work_us=440), block("platform", 2, 40, "", host_work_us=436)]
    md = (run_folder(tmp_path, rows) / "report.md").read_text()
    assert "the host's speed (a fixed work's CPU time) moved up to 10.0%, an arm's throughput up to 10.0%" in md


# This machine's A/A floor as a run records it (core.aafloor): one A/A point, 0.98× [0.96–1.00], a false difference of
# 1 ÷ 0.98 − 1 = 2.04%, its band 0.980–1.020×.
FLOOR = {"machine": "m", "measured": [{"measured_at": "2026-12-02T06:40:00+00:00", "run_dir": "/runs/aa",
                                       "point": "virtual, released, pool 50, 1,000 users",
                                       "ratio": 0.98, "low": 0.96, "high": 1.00, "pairs": 3}]}


def test_an_answer_that_excludes_one_but_not_the_machine_s_aa_floor_is_told_within_it(tmp_path):
    # pairs' ratios 1.01, 1.015, 1.01, 1.015: log mean 0.0124194, sd 0.0028512, t(3) 3.182 → 1.0125× [1.0079–1.0171]:
    # the interval excludes 1.00× but reaches into the floor's band (to 1.0204)
    rows = [block("platform", 1, 100, 0.3), block("virtual", 1, 101, 0.2),
            block("virtual", 2, 101.5, 0.2), block("platform", 2, 100, 0.3),
            block("virtual", 3, 101, 0.2), block("platform", 3, 100, 0.3),
            block("platform", 4, 100, 0.3), block("virtual", 4, 101.5, 0.2)]
    md = (run_folder(tmp_path / "within", rows, aa_floor=FLOOR) / "report.md").read_text()
    assert ("virtual ÷ platform at 100 users: 1.01× [1.01–1.02] paired, 4 pairs — within this machine's A/A floor "
            "(±2.0%): no larger than two identical JVMs' false difference") in md
    assert "This machine's A/A floor is ±2.0%: the widest false difference of the 1 A/A point(s) it keeps" in md
    assert "(virtual, released, pool 50, 1,000 users: 0.98× [0.96–1.00], 2026-12-02 06:40 UTC)" in md
    assert "Within it, though each interval excludes 1.00×: released, pool 50, 100 users (1.01× [1.01–1.02])." in md
    floor = json.loads((tmp_path / "within" / "run" / "report.json").read_text())["aa_floor"]
    assert abs(floor["share"] - (1 / 0.98 - 1)) < 1e-9 and [row["concurrency"] for row in floor["within"]] == [100]
    md = (run_folder(tmp_path / "none", rows) / "report.md").read_text()  # a run from before: no floor, no words
    assert "A/A floor" not in md and "No A/A has been measured" not in md


def test_an_answer_beyond_the_floor_is_told_as_its_interval_says(tmp_path):
    rows = [block("platform", 1, 40, 0.30), block("virtual", 1, 80, 0.20),
            block("virtual", 2, 88, 0.20), block("platform", 2, 40, 0.30),
            block("virtual", 3, 72, 0.25), block("platform", 3, 40, 0.45),
            block("platform", 4, 45, 0.45), block("virtual", 4, 90, 0.25)]
    md = (run_folder(tmp_path, rows, aa_floor=FLOOR) / "report.md").read_text()
    assert "virtual ÷ platform at 100 users: 1.99× [1.75–2.27] paired, 4 pairs\n" in md
    assert "No answer whose interval excludes 1.00× lies within it." in md
    assert "within this machine's A/A floor" not in md


def test_an_answer_whose_interval_holds_one_is_not_told_as_within_the_floor(tmp_path):
    # ratios 1.00 and 1.02 of two pairs: 1.01× [0.89–1.15], t(1) = 12.7: the interval says it, not the floor
    rows = [block("platform", 1, 100, 0.3), block("virtual", 1, 100, 0.2),
            block("virtual", 2, 102, 0.2), block("platform", 2, 100, 0.3)]
    md = (run_folder(tmp_path, rows, aa_floor=FLOOR) / "report.md").read_text()
    assert "paired, 2 pairs\n" in md and "within this machine's A/A floor" not in md


def test_a_run_planned_where_no_aa_was_measured_says_so_and_how_to_measure_one(tmp_path):
    rows = [block("platform", 1, 40, 0.3), block("virtual", 1, 80, 0.2),
            block("virtual", 2, 80, 0.2), block("platform", 2, 40, 0.3)]
    md = (run_folder(tmp_path, rows, aa_floor={"machine": "m", "measured": []}) / "report.md").read_text()
    assert "No A/A has been measured on this machine yet, so each answer stands on its own interval alone" in md
    assert "`vtlab run --aa virtual --conc 1000 --conn-mode released` measures one" in md


def test_a_before_after_within_the_floor_shows_no_change(tmp_path):
    # new.jar 1.01, 1.015, 1.01, 1.015 of old.jar: the interval above 1.00×, within the floor
    rows = old_and_new(101, 101.5, 101, 101.5)
    md = (run_folder(tmp_path, rows, "virtual", "virtual", ("old.jar", "new.jar"), FLOOR) / "report.md").read_text()
    assert ("no change shown beyond this machine's A/A floor (±2.0%): the ratio is no farther from 1.00× than two "
            "identical JVMs' have been here") in md
