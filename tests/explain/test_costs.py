"""Fixed and marginal costs apart, on hand-made staircases whose answer is known: a fixed cost per second and a
cost per request put in, the fit gives them back; noise added, its interval still holds them; two steps give an
exact line with no error; steps at one rate determine no slope; an invalid step is left out."""

import math

import pytest
from rows import row

from vtlab.core import dimensions
from vtlab.explain import costs
from vtlab.explain.model import Measured, Verdict

FIXED_KIB_S = 40 * 1024     # 40 MiB/s, whatever the load
PER_REQUEST_KIB = 80


def step(rate, users, jvm_step, mode="virtual", rep=1, flags=(), **measured):
    """A step of a staircase: the row's dimensions, its throughput and where it stood on its JVM."""
    return Verdict(row=dimensions.parse(row(thread_mode=mode, concurrency=users, rep=rep)),
                   measured=Measured(throughput_rps=rate, jvm_step=jvm_step, **measured), valid=not flags,
                   flags=tuple(flags))


def alloc_step(rate, users, jvm_step, kib_per_req, **changes):
    return step(rate, users, jvm_step, alloc_kb_per_req=kib_per_req, **changes)


# 40 MiB/s + 80 KiB a request: 40,960 ÷ 100 + 80 = 489.6 KiB a request at 100 req/s, 40,960 ÷ 400 + 80 = 182.4 at
# 400, 40,960 ÷ 1,000 + 80 = 120.96 at 1,000.
EXACT = [alloc_step(100, 100, 1, 489.6), alloc_step(400, 400, 2, 182.4), alloc_step(1000, 1000, 3, 120.96)]


def test_a_fixed_cost_per_second_and_a_cost_per_request_are_given_back_by_the_fit():
    (family,) = costs.families(EXACT)
    alloc = family.fits["alloc"]
    assert alloc.marginal == pytest.approx(PER_REQUEST_KIB)
    assert alloc.fixed == pytest.approx(FIXED_KIB_S)
    assert alloc.why == "" and alloc.points == 3
    assert alloc.marginal_half == pytest.approx(0, abs=1e-6)  # no residual: an exact line
    # the fixed part's share of each step's total: 40,960 of 48,960 KiB/s at 100 req/s, of 72,960 at 400
    assert family.fits["alloc"].fixed_share(100) == pytest.approx(40960 / 48960)
    assert family.fits["alloc"].fixed_share(400) == pytest.approx(40960 / 72960)


def test_with_noise_the_intervals_hold_the_costs_put_in():
    # two reps' staircases, each total per second off by a few hundred KiB/s: 48,960 + 300 at 100 req/s, and so on
    noisy = [alloc_step(100, 100, 1, 492.6), alloc_step(400, 400, 2, 181.4), alloc_step(1000, 1000, 3, 121.26),
             alloc_step(100, 100, 1, 486.1, rep=2), alloc_step(400, 400, 2, 183.15, rep=2),
             alloc_step(1000, 1000, 3, 120.86, rep=2)]
    (family,) = costs.families(noisy)
    alloc = family.fits["alloc"]
    assert family.reps == 2 and alloc.points == 6 and alloc.dof == 4  # all steps of both reps in one line
    assert alloc.marginal_half > 0 and alloc.fixed_half > 0
    assert alloc.marginal - alloc.marginal_half <= PER_REQUEST_KIB <= alloc.marginal + alloc.marginal_half
    assert alloc.fixed - alloc.fixed_half <= FIXED_KIB_S <= alloc.fixed + alloc.fixed_half


def test_the_errors_of_a_fit_are_the_residuals_over_the_spread_of_the_rates():
    # (100, 0), (200, 100), (300, 300): slope 1.5, intercept −166.67, residuals 16.67, −33.33, 16.67; s² = 1,666.67
    # on 1 degree of freedom, Sxx = 20,000: the slope's standard error √(1,666.67 ÷ 20,000) = 0.288675, its 95%
    # half-width t(1) = 12.706 times that, 3.66791
    line = costs.fit([(100, 0), (200, 100), (300, 300)])
    assert line.marginal == pytest.approx(1.5)
    assert line.fixed == pytest.approx(-166.6667, abs=1e-3)
    assert line.marginal_se == pytest.approx(0.288675, abs=1e-6)
    assert line.marginal_half == pytest.approx(3.66791, abs=1e-4)


def test_two_steps_give_an_exact_line_and_no_error():
    (family,) = costs.families(EXACT[:2])
    alloc = family.fits["alloc"]
    assert alloc.marginal == pytest.approx(PER_REQUEST_KIB) and alloc.fixed == pytest.approx(FIXED_KIB_S)
    assert alloc.why == "no error: 2 steps"
    assert math.isnan(alloc.marginal_half) and not alloc.has_error


def test_steps_at_one_rate_determine_no_slope():
    # a platform staircase at its thread wall: 400 and 1,000 users, both 199 req/s
    (family,) = costs.families([alloc_step(199, 400, 1, 300.0, mode="platform"),
                                alloc_step(199.4, 1000, 2, 290.0, mode="platform")])
    alloc = family.fits["alloc"]
    assert not alloc.determined
    assert alloc.why.startswith("not determined: rates 199.0, 199.4 req/s within 5%")


def test_steps_within_a_few_percent_are_taken_as_one_point():
    # 10 ms/s + 2 ms a request: 207.6 ms/s at 98.8 req/s, 405 at 197.5, 407.8 at 198.9 (app_cpu_pct a tenth of it);
    # 197.5 and 198.9 are one point at 198.2 req/s: two points, an exact line through the same costs
    (family,) = costs.families([step(98.8, 100, 1, "platform", app_cpu_pct=20.76),
                                step(197.5, 400, 2, "platform", app_cpu_pct=40.5),
                                step(198.9, 1000, 3, "platform", app_cpu_pct=40.78)])
    cpu = family.fits["cpu"]
    assert cpu.points == 2 and cpu.why == "no error: 2 steps"
    assert cpu.marginal == pytest.approx(2) and cpu.fixed == pytest.approx(10)
    assert family.merged == ("197.5 and 198.9 req/s (rep 1)",)


def test_an_invalid_step_is_left_out_of_the_fit():
    # the third step, 1,000 req/s, allocated 500 KiB a request (a neighbour's doing): left out, the line is the
    # first two steps' own
    told = [*EXACT[:2], alloc_step(1000, 1000, 3, 500.0, flags=("noisy-neighbour",))]
    (family,) = costs.families(told)
    assert [v.measured.throughput_rps for v in family.left_out] == [1000]
    assert family.fits["alloc"].marginal == pytest.approx(PER_REQUEST_KIB)
    assert family.fits["alloc"].why == "no error: 2 steps"


def test_rows_each_on_a_jvm_of_their_own_are_no_staircase():
    assert costs.families([alloc_step(100, 100, 1, 489.6), alloc_step(400, 400, 1, 182.4)]) == []


def test_equal_marginals_are_no_difference_however_far_apart_the_fixed_parts():
    # the same noise on both modes' totals: their slopes are equal, their fixed parts 1 MiB/s against 40 MiB/s
    platform = costs.fit([(100, 1024 + 8000 + 50), (400, 1024 + 32000 - 100), (1000, 1024 + 80000 + 50)])
    virtual = costs.fit([(100, 40960 + 8000 + 50), (400, 40960 + 32000 - 100), (1000, 40960 + 80000 + 50)])
    marginal, fixed = costs.difference(platform, virtual), costs.difference(platform, virtual, "fixed")
    assert marginal.delta == pytest.approx(0, abs=1e-9) and not marginal.named
    assert fixed.delta == pytest.approx(40960 - 1024) and fixed.named


def test_a_marginal_difference_beyond_both_errors_is_named_and_one_without_error_is_not_tested():
    platform = costs.fit([(100, 8000 + 50), (400, 32000 - 100), (1000, 80000 + 50)])
    virtual = costs.fit([(100, 10000 + 50), (400, 40000 - 100), (1000, 100000 + 50)])
    assert costs.difference(platform, virtual).named
    assert costs.difference(platform, virtual).delta == pytest.approx(20)
    exact = costs.fit([(100, 8000), (400, 32000)])
    assert costs.difference(exact, virtual).why == "not tested: a fit of 2 steps has no error"


def test_the_services_fixed_cpu_is_its_own_the_rigs_scrape_taken_out_where_counted():
    # 50 ms of CPU a second whatever the load, 10 of them the rig's scrape, and 1 ms a request: 15% of one core at
    # 100 req/s, 45% at 400, 105% at 1,000
    def cpu_steps(**scrape):
        return [step(100, 100, 1, app_cpu_pct=15, **scrape), step(400, 400, 2, app_cpu_pct=45, **scrape),
                step(1000, 1000, 3, app_cpu_pct=105, **scrape)]

    (counted,) = costs.families(cpu_steps(scrape_cpu_ms_per_s=10))
    assert counted.fits["cpu"].fixed == pytest.approx(40) and counted.fits["cpu"].marginal == pytest.approx(1)
    (uncounted,) = costs.families(cpu_steps())  # a user's service: its CPU as measured, the scrape in the fixed part
    assert uncounted.fits["cpu"].fixed == pytest.approx(50)


# 300 ms/s + 0.4 ms a request: 340 ms/s at 100 req/s, 500 at 500. The first step held with the JVM's compiler still
# busy, 250 ms/s more (590 ms/s: 59% of one core); the second with 2 ms/s of it (502 ms/s: 50.2%).
def compiling_steps(second_measured=True):
    second = {"jit_cpu_ms_per_s": 2} if second_measured else {}
    return [step(100, 100, 1, "platform", app_cpu_pct=59, jit_cpu_ms_per_s=250),
            step(500, 500, 2, "platform", app_cpu_pct=50.2, **second)]


def test_the_compilers_cpu_is_taken_out_of_the_services_fit_where_every_step_measured_it():
    (family,) = costs.families(compiling_steps())
    assert family.compiler_apart and family.name("cpu") == "service CPU, the compiler's apart"
    cpu = family.fits["cpu"]
    assert cpu.marginal == pytest.approx(0.4, rel=1e-12) and cpu.fixed == pytest.approx(300, rel=1e-12)
    # the compiler left in: (502 − 590) ÷ (500 − 100) = −0.22 ms a request, 590 + 0.22 × 100 = 612 ms/s: a line that
    # falls with the load, the compiler's fading burst read as a cost per request below nothing
    gross = costs.fit([(100, 590), (500, 502)])
    assert gross.marginal == pytest.approx(-0.22) and gross.fixed == pytest.approx(612)


def test_a_step_without_the_compilers_cpu_leaves_it_in_the_services_fit():
    (family,) = costs.families(compiling_steps(second_measured=False))
    assert not family.compiler_apart and family.name("cpu") == "service CPU"
    assert family.fits["cpu"].marginal == pytest.approx(-0.22) and family.fits["cpu"].fixed == pytest.approx(612)


def test_modes_whose_service_cpu_is_not_one_figure_are_not_compared():
    (platform,) = costs.families(compiling_steps())
    (virtual,) = costs.families([step(100, 100, 1, app_cpu_pct=34), step(500, 500, 2, app_cpu_pct=50)])
    assert not costs.comparable(platform, virtual, "cpu") and costs.comparable(platform, virtual, "alloc")
    assert costs.between(platform, virtual, "cpu").why == "not tested: the compiler's CPU taken apart in one mode only"
