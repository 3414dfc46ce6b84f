"""k6's price on shared cores is fitted to the cross-check against wrk: the points where k6 cost more than the
between-run noise, the least busy host among them, and the slope of their cost against k6's share of the machine.
Every expected number is worked out by hand."""

from __future__ import annotations

import csv
import math

import pytest

from vtlab.core import constants, generatorcheck

COLUMNS = ("delay_ms", "connections", "client", "rep", "window_s", "rps", "app_cpu_pct", "client_cpu_pct",
           "stub_cpu_pct", "pg_cpu_pct", "host_cpu_pct", "cpus")


def results(path, *runs):
    """runs: (delay, connections, client, rps, client CPU % of one core, host % busy), on 2 CPUs."""
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(COLUMNS)
        for rep, (delay, conns, client, rps, cpu, host) in enumerate(runs, start=1):
            out.writerow([delay, conns, client, rep, 32, rps, 100, cpu, 20, 20, host, 2])
    return path


def test_k6_is_priced_from_the_points_where_it_cost_more_than_the_noise(tmp_path):
    path = results(tmp_path / "results.csv",
                   # k6 at 40% of one core = 20% of the machine, 700 against wrk's 1000: a 30% cost, host 86%
                   (0, 8, "k6", 700, 40, 86), (0, 8, "wrk", 1000, 10, 84),
                   # 60% of a core = 30%: 550 against 1000 (in two runs each), a 45% cost, host 97%
                   (0, 64, "k6", 500, 60, 96), (0, 64, "k6", 600, 60, 98), (0, 64, "wrk", 1000, 10, 95),
                   (0, 64, "wrk", 1000, 10, 95),
                   # a quiet host, 2% cost: inside a ± 5% noise, not priced
                   (1000, 1000, "k6", 980, 20, 40), (1000, 1000, "wrk", 1000, 4, 30))
    points = generatorcheck.points(path)
    assert [(p.connections, round(p.loss, 3), round(p.k6_share, 3)) for p in points] == [
        (8, 0.3, 0.2), (64, 0.45, 0.3), (1000, 0.02, 0.1)]
    price = generatorcheck.price(path, noise_share=0.05)
    # from the least busy costly host (86%); slope (0.2 × 0.3 + 0.3 × 0.45) / (0.2² + 0.3²) = 0.195 / 0.13 = 1.5
    assert price.host_busy_pct == pytest.approx(86) and price.loss_per_share == pytest.approx(1.5)
    # both costly points lie on that line (0.3 = 1.5 × 0.2, 0.45 = 1.5 × 0.3): no scatter about it, priced up to 30%
    assert (price.loss_per_share_se, price.loss_per_share_ci95) == (pytest.approx(0), pytest.approx(0))
    assert price.share_max == pytest.approx(0.3)
    # a noise wider than every cost prices nothing
    with pytest.raises(ValueError, match="nothing to price"):
        generatorcheck.price(path, noise_share=0.5)


def test_the_committed_cross_check_is_the_rigs_price():
    # reference/generator-crosscheck/ (2026-11-27): costly at 4, 32 and 256 connections (hosts 86.8, 96.4, 96.4% busy),
    # k6 shares 17.78/19.83/25.46% costing 47.63/47.96/27.12% (its README): from 86.8%, slope
    # (.1778 × .4763 + .1983 × .4796 + .2546 × .2712) / (.1778² + .1983² + .2546²) = .2489 / .1358 = 1.83;
    # re-measuring changes this line on purpose
    assert constants.CURRENT.generator_host_busy_pct == pytest.approx(86.8, abs=0.05)
    assert constants.CURRENT.generator_loss_per_share == pytest.approx(1.83, abs=0.005)


def test_one_costly_point_prices_a_slope_without_an_uncertainty(tmp_path):
    # 30% of the machine costing 45%: slope 1.5 through the origin, but no residual to say how far off it may be
    path = results(tmp_path / "results.csv", (0, 64, "k6", 550, 60, 96), (0, 64, "wrk", 1000, 10, 95))
    price = generatorcheck.price(path, noise_share=0.05)
    assert price.loss_per_share == pytest.approx(1.5) and price.share_max == pytest.approx(0.3)
    assert math.isnan(price.loss_per_share_se) and math.isnan(price.loss_per_share_ci95)


def test_the_committed_cross_checks_slope_carries_its_standard_error_and_priced_range():
    # the three costly points, x = k6's share, y = the loss: (.178, .476), (.198, .480), (.255, .271)
    # Σx² = .031684 + .039204 + .065025 = .135913; Σxy = .084728 + .095040 + .069105 = .248873; b = 1.8311
    # residuals y − b·x: .476 − .3259 = .1501, .480 − .3626 = .1174, .271 − .4669 = −.1959
    # Σe² = .02253 + .01379 + .03839 = .07471; s² = .07471 / (3 − 1) = .03735
    # s.e. = √(s² / Σx²) = √(.03735 / .135913) = √.2748 = .5242; t(2) = 4.303: half-width 4.303 × .5242 = 2.256
    rig = constants.CURRENT
    assert rig.generator_loss_per_share_se == pytest.approx(0.524, abs=0.003)
    assert rig.generator_loss_per_share_ci95 == pytest.approx(2.256, abs=0.015)
    assert rig.generator_priced_share_max == pytest.approx(0.2546, abs=0.0005)  # 25.46%: the 256-connection point
