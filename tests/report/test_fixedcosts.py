"""What a request costs, fixed and marginal apart: on hand-made staircases of both modes whose allocation is a known
fixed cost per second plus a known cost per request (the same small noise on both), the section names no difference
where the marginals are equal, says the per-request difference is mostly fixed cost, names one where the marginals
differ, and reaches report.md, report.html and report.json."""

import csv
import json

from rows import META, RUN, row

from vtlab.explain import analyze
from vtlab.report import fixedcosts, render
from vtlab.results import table

NOISE = (50, -100, 50)  # KiB/s added to each step's total, the same in both modes


def staircase(mode, fixed_kib_s, per_request_kib, rep=1):
    """Three steps at 100, 400 and 1,000 users serving as many req/s (1 s downstream, Tomcat allowed 1,000
    threads), each allocating fixed ÷ rate + per request (+ its noise ÷ rate) KiB a request."""
    return [row(thread_mode=mode, concurrency=rate, throughput_rps=rate, throughput_ci95_rps=2, ok_requests="",
                http_reqs=rate * 30, tomcat_connections_max=rate, throughput_first_half_rps=rate,
                throughput_second_half_rps=rate, tomcat_max_threads=1000, rep=rep, jvm_step=place,
                alloc_kb_per_req=(fixed_kib_s + per_request_kib * rate + noise) / rate)
            for place, (rate, noise) in enumerate(zip((100, 400, 1000), NOISE, strict=True), start=1)]


def section_of(rows):
    analysis = analyze.analyse(rows, RUN)
    assert all(v.valid for v in analysis.verdicts), [v.flags for v in analysis.verdicts]
    return fixedcosts.section(analysis)


# platform 1 MiB/s + 80 KiB a request, virtual 40 MiB/s + 80 KiB a request
EQUAL_MARGINALS = staircase("platform", 1024, 80) + staircase("virtual", 40960, 80)


def test_equal_marginals_with_different_fixed_parts_name_no_difference_and_say_it_is_fixed_cost():
    told = section_of(EQUAL_MARGINALS)
    text = " ".join(told.verdict)
    assert "virtual − platform, differs beyond its 95% interval in no figure; within it in service CPU, allocated" \
        in text
    # 40,960 − 1,024 = 39,936 KiB/s apart: 399.4 KiB a request at 100 req/s, 99.8 at 400, 39.9 at 1,000
    assert ("per request, virtual − platform by the fits is mostly fixed cost (a cost per second spread over the "
            "requests, not what serving one costs) in: allocated at 100 users +399.4 KiB, +399.4 KiB of it the fixed "
            "parts (40.0 MiB/s over 100.0 req/s against 1.0 MiB/s over 100.0), at 400 users +99.8 KiB") in text
    assert "the fixed parts' difference +39.0 MiB/s [" in text


def test_the_table_shows_the_marginal_the_fixed_part_and_its_share_at_each_load():
    lines = section_of(EQUAL_MARGINALS).table
    (virtual,) = [line for line in lines if line["mode"] == "virtual" and line["what"] == "allocated"]
    assert virtual["marginal"].startswith("80.0 KiB [")
    assert virtual["fixed"].startswith("40.0 MiB/s [")
    # 40,960 of 48,960 KiB/s at 100 req/s (84%), of 72,960 at 400 (56%), of 120,960 at 1,000 (34%)
    assert virtual["share"] == "100 users 84%, 400 users 56%, 1000 users 34%"
    (apart,) = [line for line in lines if line["mode"] == "virtual − platform" and line["what"] == "allocated"]
    assert "0.0 KiB [" in apart["marginal"] and apart["marginal"].endswith(": within error")
    assert apart["fixed"].endswith(": a difference")


def test_a_marginal_difference_beyond_its_interval_is_named():
    told = section_of(staircase("platform", 1024, 80) + staircase("virtual", 1024, 100))
    assert "differs beyond its 95% interval in allocated +20.0 KiB [" in " ".join(told.verdict)


def test_a_staircase_of_two_steps_is_told_without_error_and_its_difference_not_tested():
    told = section_of(staircase("platform", 1024, 80)[:2] + staircase("virtual", 1024, 100)[:2])
    (virtual,) = [line for line in told.table if line["mode"] == "virtual" and line["what"] == "allocated"]
    # (1,024 + 40,000 − 100 − 1,024 − 10,000 − 50) ÷ 300 = 99.5 KiB a request: the line through both steps
    assert virtual["marginal"] == "99.5 KiB (no error: 2 steps)"
    assert ("differs beyond its 95% interval in no figure; not tested in service CPU, allocated, GC pauses"
            in " ".join(told.verdict))


def test_a_total_that_falls_as_the_load_rises_is_said_to_be_no_cost_per_request():
    # 475, 400 and 250 ms/s of the service's CPU at 100, 400 and 1,000 req/s: 500 ms/s − 0.25 ms a request
    rows = staircase("platform", 1024, 80)
    for cells, percent in zip(rows, ("47.5", "40", "25"), strict=True):
        cells["app_cpu_pct"] = percent
    (cpu,) = [line for line in section_of(rows).table if line["what"] == "service CPU"]
    assert cpu["marginal"].startswith("-0.250 ms [")
    assert cpu["marginal"].endswith("; falling with the load: not a cost per request")


def test_a_share_the_fit_cannot_carry_is_said_within_error_never_a_percentage_outside_0_to_100():
    # 500 ms/s − 0.25 ms a request (above): a fixed part above its total, shares of 105-200% by the fit
    rows = staircase("platform", 1024, 80)
    for cells, percent in zip(rows, ("47.5", "40", "25"), strict=True):
        cells["app_cpu_pct"] = percent
    (cpu,) = [line for line in section_of(rows).table if line["what"] == "service CPU"]
    assert cpu["share"] == "100 users within error, 400 users within error, 1000 users within error"
    # 20 KiB/s fixed beside 80 KiB a request, the steps' noise of ±100 KiB/s: the fixed part's interval holds 0
    (small,) = [line for line in section_of(staircase("platform", 20, 80)).table if line["what"] == "allocated"]
    assert small["share"].count("within error") == 3, small
    # two steps: no interval to carry a share
    (two,) = [line for line in section_of(staircase("platform", 1024, 80)[:2]).table if line["what"] == "allocated"]
    assert two["share"] == "100 users within error, 400 users within error"


def test_a_run_with_a_jvm_per_row_has_no_such_section():
    assert section_of([row(thread_mode="platform"), row(thread_mode="virtual")]) is None


def test_the_section_reaches_markdown_html_and_json(tmp_path):
    with open(tmp_path / table.CSV_NAME, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=table.COLUMNS, restval="", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(EQUAL_MARGINALS)
    table.write_metadata(tmp_path, META)
    paths = render.render(tmp_path)
    assert "## What a request costs, fixed and marginal apart" in paths["markdown"].read_text()
    assert "id='scenario-fixed-and-marginal'" in paths["html"].read_text()
    report = json.loads(paths["json"].read_text())
    platform, virtual = report["costs"]
    assert virtual["row"]["thread_mode"] == "virtual" and len(virtual["steps"]) == 3
    assert virtual["fits"]["alloc"]["marginal_low"] < 80 < virtual["fits"]["alloc"]["marginal_high"]
    assert virtual["fits"]["gc"]["why"] == "not determined: not measured"
    (pair,) = report["cost_differences"]
    assert pair["alloc"]["marginal"]["named"] is False and pair["alloc"]["fixed"]["named"] is True


def compiling(third_measured=True):
    """The platform staircase at 300 ms/s + 0.4 ms a request of service CPU (340, 460 and 700 ms/s at 100, 400 and
    1,000 req/s), its compiler's on top: 250 ms/s at the first step (still compiling), 3 and 1 at the others."""
    rows = staircase("platform", 1024, 80)
    for cells, percent, jit in zip(rows, ("59", "46.3", "70.1"), ("250", "3", "1"), strict=True):
        cells["app_cpu_pct"] = percent
        if third_measured or cells is not rows[-1]:
            cells["jit_cpu_ms_per_s"] = jit
    return rows


def test_the_service_cpu_is_fitted_without_the_compiler_and_the_compiler_has_a_line_of_its_own():
    lines = section_of(compiling()).table
    (cpu,) = [line for line in lines if line["what"] == "service CPU, the compiler's apart"]
    assert cpu["marginal"].startswith("0.400 ms [") and cpu["fixed"].startswith("300.000 ms/s [")
    (jit,) = [line for line in lines if line["what"].startswith("JIT compiler CPU")]
    assert jit["what"] == "JIT compiler CPU (taken out of the service CPU)"
    assert jit["fixed"] == "100 users 250.0 ms/s, 400 users 3.0 ms/s, 1000 users 1.0 ms/s"
    # 250 of 590 ms/s (42%), 3 of 463 (1%), 1 of 701 (0%)
    assert jit["share"] == "of the service's CPU: 100 users 42%, 400 users 1%, 1000 users 0%"


def test_a_step_without_the_compilers_cpu_is_fitted_as_measured_and_the_section_says_the_compiler_is_in_it():
    told = section_of(compiling(third_measured=False))
    (cpu,) = [line for line in told.table if line["what"] == "service CPU"]
    # (100, 590), (400, 463), (1,000, 701): about the mean rate 500 and total 584.67, Sxy = −400 × 5.33 − 100 ×
    # −121.67 + 500 × 116.33 = 68,200 over Sxx = 420,000: 0.162 ms a request, the compiler's burst read as a lower one
    assert cpu["marginal"].startswith("0.162 ms [")
    assert ("the service CPU is fitted as measured, the JIT compiler's time included: 1000 users had no compiler "
            "threads' CPU over its hold") in " ".join(told.verdict)
    (jit,) = [line for line in told.table if line["what"].startswith("JIT compiler CPU")]
    assert jit["what"] == "JIT compiler CPU (in the service CPU)"
    assert jit["fixed"].endswith("1000 users not measured")
