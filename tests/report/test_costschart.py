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
