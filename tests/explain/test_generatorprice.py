"""A CPU-bound service on cores it shares with k6 gets an answer: where the cross-check bounds what k6 cost the
row, the row stays valid, its wall is the CPU with who shared it, and it carries the throughput without k6; where it
cannot be bounded, or k6 saturated, the row is invalid as before. Every expected number is worked out by hand."""

import math

import pytest

from vtlab.explain import analyze, model

from rows import CPU_BOUND, PRICED, row


def verdict(**changes):
    return analyze.analyse([row(**{**CPU_BOUND, **changes})], PRICED).verdicts[0]


def test_a_cpu_bound_row_with_k6_at_12_percent_of_the_machine_is_valid_at_the_cpu_with_its_correction():
    result = verdict()
    # loss 1.8 × 0.12 = 0.216 ± 2.25 × 0.12 = 0.27: [−0.054, 0.486]
    assert result.valid and result.bottleneck == "cpu"
    assert "generator-priced:22%±27%" in result.flags and "generator-interference" not in result.flags
    assert result.measured.throughput_rps == 400  # kept as measured
    # 400 ÷ (1 − 0.216) = 510.20; 400 ÷ 1.054 = 379.51; 400 ÷ 0.514 = 778.21
    assert (result.without_generator_rps, result.without_generator_low_rps, result.without_generator_high_rps) == (
        pytest.approx(510.20, abs=0.01), pytest.approx(379.51, abs=0.01), pytest.approx(778.21, abs=0.01))
    # shares of the machine: 150 / 2 = 75%, 24 / 2 = 12%, 10 / 2 = 5%, 4 / 2 = 2%;
    # more: 1 / 0.784 − 1 = 27.6%, 1 / 1.054 − 1 = −5.1%, 1 / 0.514 − 1 = 94.6%
    assert result.evidence == (
        "host 97% busy (wall at 90%), shared by the service 75%, k6 12%, PostgreSQL 5%, the stub 2% of the "
        "machine; k6 took 12% of the machine, costing the service ~22% [-5%, 49%] of its throughput: without it "
        "the service would serve ~28% more [-5%, +95%] (priced against wrk, reference/generator-crosscheck)")
    cells = dict(zip(model.COLUMNS, model.cells(result), strict=True))
    assert (cells["without_generator_rps"], cells["without_generator_low_rps"],
            cells["without_generator_high_rps"]) == ("510.204", "379.507", "778.21")


def test_the_scenarios_line_carries_the_median_correction_of_its_reps():
    rows = [row(**{**CPU_BOUND, "rep": rep, "throughput_rps": rps, "http_reqs": rps * 30, "ok_requests": rps * 30})
            for rep, rps in ((1, 392), (2, 400), (3, 408))]
    (line,) = analyze.analyse(rows, PRICED).aggregates
    assert line.valid_reps == 3
    # the median rep, 400 req/s: 400 ÷ 0.784 = 510.20
    assert line.line.without_generator_rps == pytest.approx(510.20, abs=0.01)


def test_k6_beyond_the_priced_share_interferes_and_says_why():
    # 60% of one core: 30% of the machine, beyond the 25% priced
    result = verdict(load_cpu_pct=60, load_cpu_pct_max=70)
    assert not result.valid and "generator-interference" in result.flags
    assert result.bottleneck == "load-generator"
    assert result.evidence.endswith("; not bounded: k6 took 30% of the machine, beyond the 25% the cross-check "
                                    "priced")
    assert math.isnan(result.without_generator_rps)


def test_a_loss_whose_upper_end_reaches_the_whole_throughput_interferes_and_says_why():
    # 50% of one core: 25% of the machine, at the edge of the priced range; (1.8 + 2.25) × 0.25 = 1.0125
    result = verdict(load_cpu_pct=50, load_cpu_pct_max=60)
    assert not result.valid and "generator-interference" in result.flags
    assert result.evidence.endswith("; not bounded: the loss's 95% upper end, 101%, is the whole throughput or "
                                    "more: nothing bounds what the service would serve without k6")


def test_k6_saturated_stays_invalid_without_a_correction():
    # its peak 185% of its 2 cores' 200%: at least 90% of them
    result = verdict(load_cpu_pct_max=185)
    assert not result.valid and "generator-saturated" in result.flags and result.bottleneck == "load-generator"
    assert not any(flag.startswith("generator-priced") for flag in result.flags)
    assert math.isnan(result.without_generator_rps)


def test_a_quiet_host_carries_no_correction_at_all():
    # the same k6 on a host 60% busy: below the 86.8% from which the cross-check saw k6 cost anything
    result = verdict(host_cpu_pct=60, app_cpu_pct=90)
    assert not any(flag.startswith("generator") for flag in result.flags) and result.valid
    assert all(math.isnan(value) for value in (result.without_generator_rps, result.without_generator_low_rps,
                                               result.without_generator_high_rps))
    assert "k6 took" not in result.evidence
