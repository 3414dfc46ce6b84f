"""The published headline beside a run's: the project's own copy of the figures, the ratios and the fractions of
their Little's-law ceilings, there and here."""

from __future__ import annotations

import pytest
from rows import BASE, META, RUN

from vtlab.explain import analyze
from vtlab.plan import planner, presets
from vtlab.report import published


def test_the_published_experiment_is_read_from_the_projects_own_copy():
    points = published.points()
    assert sorted(points) == [500, 2500, 10_000]
    assert points[2500].platform_rps == 2226 and points[2500].virtual_rps == 13673
    assert points[2500].ratio == pytest.approx(6.14, abs=0.01) and points[2500].ceiling_ratio == 12.5
    assert points[500].ceiling_ratio == 2.5


def row(mode: str, users: int, rps: float, p50_ms: float, **changes) -> dict[str, str]:
    hold = 30
    values = {**BASE, "thread_mode": mode, "concurrency": users, "throughput_rps": rps, "http_reqs": rps * hold,
              "ok_requests": rps * hold, "p50_ms": p50_ms, "p99_ms": p50_ms * 1.2, "stub_delay_ms": 800,
              "throughput_first_half_rps": rps, "throughput_second_half_rps": rps, "tomcat_connections_max": users,
              **changes}
    return {key: str(value) for key, value in values.items()}


def test_each_measured_ratio_stands_beside_the_published_one_and_both_ceilings():
    rows = [row("platform", 100, 124, 805), row("virtual", 100, 124, 805),  # the low-load row: 805 ms service time
            row("platform", 2500, 248, 10_000), row("virtual", 2500, 1700, 1470, host_cpu_pct=97)]
    aggregates = analyze.analyse(rows, RUN).aggregates
    section = published.section(aggregates, published.points())
    assert section is not None and [line["users"] for line in section.table] == ["2,500"]
    line = section.table[0]
    assert line["published"] == "2,226 → 13,673" and line["published_ratio"] == "6.14× of 12.5× (49%)"
    # here: 1,700 ÷ 248 = 6.85×, of (2,500 ÷ 0.805) ÷ (200 ÷ 0.805) = 12.5×: 55%
    assert line["here_ratio"].startswith("6.85×") and "of 12.5× (55%)" in line["here_ratio"]
    assert "At 2,500 users the published rig reached 6.1× of its 12.5× Little's-law ratio (49%)" in section.verdict[0]


def test_a_run_at_the_published_points_is_reported_with_the_published_section(tmp_path):
    import csv as csvlib

    from vtlab.report import render
    from vtlab.results import table

    rows = [row("platform", 100, 124, 805), row("virtual", 100, 124, 805), row("platform", 500, 248, 2000),
            row("virtual", 500, 620, 806)]
    with open(tmp_path / table.CSV_NAME, "w", newline="") as handle:
        writer = csvlib.DictWriter(handle, fieldnames=table.COLUMNS, restval="")
        writer.writeheader()
        writer.writerows({key: value for key, value in r.items() if key in table.COLUMNS} for r in rows)
    table.write_metadata(tmp_path, META)
    paths = render.render(tmp_path)
    assert "The published headline, reproduced" in paths["html"].read_text()
    assert "| 2.64× of 2.5× (105%) | 248 → 620 | 2.50× of 2.5× (100%) |" in paths["markdown"].read_text()


def test_a_run_without_the_published_user_counts_in_both_modes_has_no_such_section():
    rows = [row("platform", 2500, 248, 10_000), row("virtual", 1000, 900, 900)]
    assert published.section(analyze.analyse(rows, RUN).aggregates, published.points()) is None


def test_the_headline_profile_keeps_the_published_users_and_scales_the_delay_to_the_cpus():
    assert [presets.headline_delay_ms(cpus) for cpus in (2, 4, 16)] == [800, 400, 100]
    rows = planner.build("headline", planner.Overrides()).rows
    assert sorted({r.concurrency for r in rows}) == [500, 2500, 10_000]
    assert {(r.conn_mode, r.hikari_pool, r.tomcat_max_threads) for r in rows} == {("released", 50, 200)}
    assert {r.thread_mode for r in rows} == {"platform", "virtual"}
