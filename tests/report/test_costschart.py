"""The costs as a picture (report.costschart): on hand-made staircases of both modes whose service CPU is a known
fixed cost a second plus a known cost a request, the figure draws every step's cost a request where it was measured
and the fit's fixed ÷ rate + marginal through them; no line where one rate gives nothing to fit; drawn in report.html
and its series in charts.json."""

import json

import pytest
from rows import META, RUN, row

from vtlab.explain import analyze, costs
from vtlab.report import costschart, render
from vtlab.results import table


def staircase(mode, fixed_ms_s, per_request_ms, rates=(100, 400, 1000)):
    """A step a rate, serving as many req/s, the service's CPU fixed + per request × rate (ms of CPU a second)."""
    return [row(thread_mode=mode, concurrency=rate, throughput_rps=rate, throughput_ci95_rps=2, ok_requests="",
                http_reqs=rate * 30, tomcat_connections_max=rate, throughput_first_half_rps=rate,
                throughput_second_half_rps=rate, tomcat_max_threads=1000, jvm_step=place, host_cpu_pct=50,
                app_cpu_pct=(fixed_ms_s + per_request_ms * rate) / 10)
            for place, rate in enumerate(rates, start=1)]


def test_each_step_is_drawn_at_its_cost_a_request_and_the_fit_through_them_as_fixed_over_rate_plus_marginal():
    # platform 30 ms/s + 0.5 ms a request; virtual 80 ms/s + 0.4 ms
    analysis = analyze.analyse(staircase("platform", 30, 0.5) + staircase("virtual", 80, 0.4), RUN)
    _, data = costschart.figure(costs.families(analysis.verdicts))
    platform, virtual = data["cpu"]["platform"], data["cpu"]["virtual"]
    assert platform["rates"] == [100, 400, 1000]
    assert platform["per_request"] == pytest.approx([0.8, 0.575, 0.53])      # 0.5 + 30 / rate
    assert virtual["per_request"] == pytest.approx([1.2, 0.6, 0.48])         # 0.4 + 80 / rate
    assert virtual["marginal"] == pytest.approx(0.4) and virtual["fixed"] == pytest.approx(80)
    assert virtual["curve_rates"][0] == pytest.approx(100) and virtual["curve_rates"][-1] == pytest.approx(1000)
    assert virtual["curve"][0] == pytest.approx(1.2) and virtual["curve"][-1] == pytest.approx(0.48)
    assert len(virtual["curve"]) == costschart.CURVE_POINTS


def measured(mode, totals_ms_s, rates=(100, 400, 1000)):
    """The staircase's steps with the service's CPU a second given as measured, not as a line."""
    steps = staircase(mode, 0, 0, rates)
    for step, total in zip(steps, totals_ms_s, strict=True):
        step["app_cpu_pct"] = total / 10
    return steps


def test_a_fixed_part_below_0_draws_the_marginal_alone_and_no_curve():
    # virtual's seconds 40, 205 and 498 ms at 100, 400 and 1,000 req/s: least squares by hand, slope 212,500 ÷
    # 420,000 = 0.506 ms a request, intercept 247.67 − 0.506 × 500 = −5.3 ms/s: a fixed part below 0 (the GC's pauses
    # of a default run's 10 s blocks fitted so, 2026-12-07), which the curve would bend below the marginal
    analysis = analyze.analyse(staircase("platform", 30, 0.5) + measured("virtual", (40, 205, 498)), RUN)
    _, data = costschart.figure(costs.families(analysis.verdicts))
    virtual = data["cpu"]["virtual"]
    assert virtual["fixed"] == pytest.approx(-5.3, abs=0.05) and virtual["marginal"] == pytest.approx(0.506, abs=0.001)
    assert virtual["curve_drawn"] is False and "curve" not in virtual
    assert virtual["per_request"] == pytest.approx([0.4, 205 / 400, 0.498])  # the steps still drawn
    assert data["cpu"]["platform"]["curve_drawn"] is True and len(data["cpu"]["platform"]["curve"]) > 0


def test_a_fit_falling_with_the_load_draws_its_steps_alone():
    # 300, 270 and 210 ms a second at 100, 400 and 1,000 req/s: -0.1 ms a request, exactly: no cost a request
    analysis = analyze.analyse(staircase("platform", 30, 0.5) + measured("virtual", (300, 270, 210)), RUN)
    _, data = costschart.figure(costs.families(analysis.verdicts))
    virtual = data["cpu"]["virtual"]
    assert virtual["per_request"] == pytest.approx([3.0, 0.675, 0.21])
    assert "marginal" not in virtual and "curve" not in virtual


def test_a_scenario_measured_at_one_rate_draws_no_costs_figure():
    analysis = analyze.analyse(staircase("platform", 30, 0.5, rates=(100,)), RUN)
    assert costschart.figure(costs.families(analysis.verdicts)) is None


def test_the_report_draws_the_costs_figure_and_keeps_its_series(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / table.METADATA_NAME).write_text(json.dumps(META))
    writer = table.CsvWriter(run_dir / table.CSV_NAME)
    for cells in staircase("platform", 30, 0.5) + staircase("virtual", 80, 0.4):
        writer.append({column: cells.get(column, "") for column in table.COLUMNS})
    render.render(run_dir)
    assert "id='fig-costs'" in (run_dir / "report.html").read_text()
    drawn = json.loads((run_dir / "charts.json").read_text())["costs"]
    assert drawn["cpu"]["platform"]["marginal"] == pytest.approx(0.5)
