"""A request mix told entry by entry: each point and mode's entries over its valid rows' holds, from their kept
series; the expected figures worked out by hand below."""

from __future__ import annotations

from types import SimpleNamespace

from rows import row

from vtlab.core import dimensions
from vtlab.report import byentry
from vtlab.series import store


def _verdict(valid: bool = True, rps: float = 0.0, **changes):
    parsed = dimensions.parse(row(workload="service", stub_delay_ms=0, concurrency=10, **changes))
    return SimpleNamespace(row=parsed, valid=valid, measured=SimpleNamespace(throughput_rps=rps))


def _series(run_dir, verdict, requests):
    folder = run_dir / "series"
    folder.mkdir(exist_ok=True)
    made = [store.Request(1.0 + i, ms, status, phase, "a", status == "200", entry)
            for i, (entry, ms, status, phase) in enumerate(requests)]
    store.write_k6(store.k6_path(folder, dimensions.slug(verdict.row)), store.K6Series(made), 0)


def test_each_entry_is_told_over_its_points_valid_rows(tmp_path):
    first, second = _verdict(rps=40, rep=1), _verdict(rps=20, rep=2)   # two blocks of one point, virtual
    invalid = _verdict(valid=False, rps=99, thread_mode="platform")
    _series(tmp_path, first, [("a", 10, "200", "hold"), ("a", 20, "200", "hold"), ("a", 30, "200", "hold"),
                              ("b", 100, "200", "hold"), ("b", 5, "500", "hold"), ("a", 1, "200", "warmup")])
    _series(tmp_path, second, [("a", 40, "200", "hold"), ("b", 200, "200", "hold")])
    _series(tmp_path, invalid, [("a", 1, "200", "hold")])
    told = byentry.lines(tmp_path, [first, second, invalid], 200)
    # a: 3 of block 1's 4 successes at 40 req/s (30), 1 of block 2's 2 at 20 (10): 20 req/s the blocks' mean; its
    # successes 10, 20, 30, 40 ms: p50 25 (k6's rule, between the 2nd and 3rd), p99 30 + 0.97 × 10
    # b: 1 of 4 at 40 (10), 1 of 2 at 20 (10): 10 req/s; 100 and 200 ms: p50 150, p99 199; one 500
    assert [(line.mode, line.entry, line.rows, line.valid, line.requests, round(line.share, 4), line.throughput_rps,
             line.p50_ms, round(line.p99_ms, 6), line.failures) for line in told] == [
        ("virtual", "a", 2, True, 4, round(4 / 7, 4), 20.0, 25.0, 39.7, ()),
        ("virtual", "b", 2, True, 3, round(3 / 7, 4), 10.0, 150.0, 199.0, (("500", 1),)),
        # a point with no valid row: told over its rows, marked, and never the slowest said
        ("platform", "a", 1, False, 1, 1.0, 99.0, 1.0, 1.0, ())]
    section = byentry.section(told)
    assert section is not None and [line["failed"] for line in section.table] == ["none", "1 × 500", "none"]
    assert [line["mode"] for line in section.table] == ["virtual", "virtual", "platform, not valid"]
    assert "The slowest p99: b at 199.0 ms (virtual, 10 users)." in section.verdict
    assert told[0].scenario == "your service"  # the default JDK unsaid


def test_one_scenario_on_two_jdks_is_told_apart(tmp_path):
    on21, on25 = _verdict(rps=10, jdk=21), _verdict(rps=10, jdk=25)
    for verdict in (on21, on25):
        _series(tmp_path, verdict, [("a", 10, "200", "hold")])
    assert [line.scenario for line in byentry.lines(tmp_path, [on21, on25], 200)] == [
        "your service, JDK 21", "your service"]


def test_a_run_whose_requests_carry_no_entry_has_no_section(tmp_path):
    plain = _verdict(rps=10)
    _series(tmp_path, plain, [("", 10, "200", "hold")])
    assert byentry.lines(tmp_path, [plain], 200) == () and byentry.section(()) is None
