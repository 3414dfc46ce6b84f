"""A before/after measured as one (`vtlab compare --service A.jar --vs B.jar`): each point's paired ratio read as a
change, judged better or worse only where its interval excludes 1.00×, gated on throughput; a point without a ratio
fails a gate; what cannot be a before/after is refused naming the flag, before anything starts."""

import math
import zipfile

import pytest

from vtlab.cli.main import main
from vtlab.compare import gate, paired
from vtlab.compare.stats import BETTER, SAME, UNKNOWN, WORSE
from vtlab.core.aafloor import AA, Floor
from vtlab.core.arms import Arms
from vtlab.core.dimensions import Row
from vtlab.explain.model import Pair, PairedPoint

VERSUS = Arms("virtual", "virtual", ("old.jar", "new.jar"))


def point(ratio, low=math.nan, high=math.nan, why_not="", users=100):
    pairs = tuple(Pair(block, "ab", 100.0, 100.0 * ratio) for block in (1, 2, 3, 4))
    row = Row(thread_mode="virtual", concurrency=users, workload="service")
    return PairedPoint(row, VERSUS, pairs, ratio, low, high, why_not)


@pytest.mark.parametrize("ratio, low, high, verdict", [
    (0.90, 0.88, 0.92, WORSE),    # B serves 10% less, the whole interval below 1.00×
    (1.08, 1.02, 1.14, BETTER),
    (0.99, 0.96, 1.02, SAME),     # the interval holds 1.00×: no change shown
])
def test_a_point_s_paired_ratio_is_a_change_of_b_against_a(ratio, low, high, verdict):
    moved = paired.change(point(ratio, low, high))
    assert moved.verdict == verdict
    assert moved.share == pytest.approx(ratio - 1) and moved.share_low == pytest.approx(low - 1)
    assert moved.share_high == pytest.approx(high - 1)


def test_a_change_within_the_machine_s_aa_floor_is_no_change_and_fails_no_gate():
    floor = Floor("m", (AA("2026-12-02T06:40:00+00:00", "/runs/aa", "virtual, 1,000 users", 0.98, 0.96, 1.0, 3),))
    small = point(0.988, 0.983, 0.992)  # 1.2% worse, the interval below 1.00× but inside the band 0.980–1.020
    assert paired.change(small).verdict == WORSE
    moved = paired.change(small, floor)
    assert moved.verdict == SAME and moved.why == "no larger than this machine's A/A floor of ±2.0%"
    assert not gate.breaches(gate.parse("throughput<-1%"), [("s", "throughput", moved)])
    assert paired.change(point(0.90, 0.88, 0.92), floor).verdict == WORSE  # beyond the band: as its interval says
    wide = paired.change(point(0.90, 0.82, 0.985), floor)  # its interval reaches into the band, its ratio does not
    assert wide.verdict == WORSE and gate.breaches(gate.parse("throughput<-5%"), [("s", "throughput", wide)])
    assert paired.change(point(0.90, 0.88, 0.92), Floor("m")).verdict == WORSE  # none measured: the interval's word


def test_the_gate_fails_a_worse_change_past_its_threshold_and_a_point_without_a_ratio():
    conditions = gate.parse("throughput<-5%")
    found = paired.changes([point(0.90, 0.88, 0.92), point(0.97, 0.95, 0.99, users=400)])
    breaches = gate.breaches(conditions, found)
    assert [b.scenario for b in breaches] == ["your service, 100 users"]  # -3% is worse but within 5%
    text = "\n".join(paired.lines([point(0.90, 0.88, 0.92), point(0.97, 0.95, 0.99, users=400)], found,
                                  {b.scenario for b in breaches}, gated=True))
    assert "new.jar against old.jar (virtual threads)" in text
    assert "100 users: -10.0% [-12.0% to -8.0%], 4 pairs, worse  FAILS the gate" in text
    assert "400 users: -3.0% [-5.0% to -1.0%], 4 pairs, worse\n" in text + "\n"
    none = [point(math.nan, why_not="no pair of blocks counts (arm b: stall)")]
    unknown = paired.changes(none)
    assert unknown[0][2].verdict == UNKNOWN and paired.unknown(unknown) and not gate.breaches(conditions, unknown)
    assert "no ratio (no pair of blocks counts (arm b: stall))  FAILS the gate" in "\n".join(
        paired.lines(none, unknown, set(), gated=True))
    one = paired.change(point(0.9))  # one pair counted: a ratio, no interval
    assert one.verdict == UNKNOWN and "no interval" in one.why


@pytest.fixture
def jars(tmp_path):
    """Two jars whose manifests say Spring Boot 3.5.7 executable jars: all a plan's flags read of them."""
    made = []
    for name in ("old.jar", "new.jar"):
        with zipfile.ZipFile(tmp_path / name, "w") as jar:
            jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nStart-Class: com.example.Things\n"
                                                 "Spring-Boot-Version: 3.5.7\n")
        made.append(str(tmp_path / name))
    return made


@pytest.mark.parametrize("argv, words", [
    (["compare", "--vs", "{new}"], "--vs {new} needs --service JAR"),
    (["compare", "--service", "{old}", "--endpoint", "GET /x"], "--service with compare needs --vs B.jar"),
    (["compare", "{old}", "--service", "{old}", "--vs", "{new}"], "give no run folders"),
    (["compare", "--service", "{old}", "--vs", "{new}", "--aa", "virtual"], "--aa with --vs"),
    (["compare", "--service", "{old}", "--vs", "{new}", "--modes", "virtual", "--fail-on", "p99>+10%"],
     "--fail-on p99>+10% with --vs"),
    (["compare", "--service", "{old}", "--vs", "{new}", "--endpoint", "GET /x"], "add --modes virtual or"),
    (["compare", "--service", "{old}", "--vs", "/no/such.jar", "--endpoint", "GET /x", "--modes", "virtual"],
     "--vs /no/such.jar: no such file"),
    (["run", "--vs", "{new}", "--endpoint", "GET /x"], "--vs {new} needs --service JAR"),
    (["compare", "{old}", "{new}", "--modes", "virtual"], "--modes measures, and goes with --service A.jar --vs"),
    (["compare", "{old}", "{new}", "--header", "X-A: 1"], "--header measures"),
    (["run", "--url", "http://127.0.0.1:1", "--vs", "{new}", "--modes", "virtual"], "needs --service JAR"),
])
def test_what_cannot_be_a_before_after_is_refused_naming_the_flag(capsys, tmp_path, jars, argv, words):
    names = {"{old}": jars[0], "{new}": jars[1]}
    argv = [names.get(arg, arg) for arg in argv] + ["--out", str(tmp_path / "run")]
    for name, path in names.items():
        words = words.replace(name, path)
    try:
        code, err = main(argv), capsys.readouterr().err
    except SystemExit as exited:
        code, err = exited.code, capsys.readouterr().err
    assert code == 2 and words in err, err
    assert not (tmp_path / "run").exists()  # nothing started


def test_a_before_after_plans_both_jars_blocks_in_turn(capsys, tmp_path, jars):
    code = main(["compare", "--service", jars[0], "--vs", jars[1], "--modes", "platform", "--endpoint", "GET /x",
                 "--conc", "50", "--blocks", "2", "--dry-run", "--out", str(tmp_path / "run")])
    listed = capsys.readouterr().out.splitlines()[1:]
    assert code == 0 and len(listed) == 4
    assert sum("-Dvtlab.arm=b" in line for line in listed) == 2 and all("platform" in line for line in listed)
    assert not (tmp_path / "run").exists()
