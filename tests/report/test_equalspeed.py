"""Where the host's own speed moved a CPU-bound pair's holds, the report compares the thread modes at equal host
speed: each mode's CPU a request in units of k6's, with intervals; nowhere else."""

from vtlab.explain import analyze
from vtlab.report import story

from rows import CPU_BOUND, PRICED, row

# tp4's two rows (2026-11-28), 10 users each on a host 99% busy: each hold's throughput followed k6's own CPU a request
# (host-speed), the service's CPU 2.548 ± 0.076 (platform) and 2.610 ± 0.066 (virtual) of k6's, every tier's together
# 4.168 ± 0.090 and 4.184 ± 0.079
MOVED = dict(CPU_BOUND, concurrency=10, tomcat_connections_max=10, throughput_trend_pct=-27,
             throughput_trend_ci95_pct=22, host_speed_slope=-1.0, host_speed_r2=0.94)
PLATFORM = dict(MOVED, thread_mode="platform", app_cpu_per_k6_cpu=2.548, app_cpu_per_k6_cpu_ci95=0.076,
                tiers_cpu_per_k6_cpu=4.168, tiers_cpu_per_k6_cpu_ci95=0.090)
VIRTUAL = dict(MOVED, thread_mode="virtual", app_cpu_per_k6_cpu=2.610, app_cpu_per_k6_cpu_ci95=0.066,
               tiers_cpu_per_k6_cpu=4.184, tiers_cpu_per_k6_cpu_ci95=0.079)


def told(*rows):
    return " ".join(story.explain(analyze.analyse(list(rows), PRICED)))


def test_a_pair_the_hosts_speed_moved_is_compared_in_k6s_units_with_intervals():
    text = told(row(**PLATFORM), row(**VIRTUAL))
    # service: 2.610 ÷ 2.548 = 1.0243, relative half-width √((0.066/2.610)² + (0.076/2.548)²) = 0.0391:
    # +2.4% [−1.6%, +6.4%]; every tier: 4.168 ÷ 4.184 = 0.9962, √((0.090/4.168)² + (0.079/4.184)²) = 0.0287:
    # 1.00× [0.97–1.02]
    assert ("At equal host speed (10 users released, pool 50; the host's own speed moved these holds, host-speed, "
            "so their throughputs are the machine's at each moment, not the thread modes'): in units of k6's own CPU "
            "over the same seconds") in text
    assert ("the service took 2.548 ± 0.076 of k6's CPU a request with platform threads and 2.610 ± 0.066 with "
            "virtual threads: virtual's +2.4% [-1.6%, +6.4%]; every tier together 4.168 against 4.184, so at this "
            "full host's CPU wall virtual threads serve 1.00× [0.97–1.02] what platform threads do") in text


def test_no_comparison_at_equal_speed_where_the_host_did_not_move_a_hold_or_a_row_fails_for_another_reason():
    steady = dict(throughput_trend_pct=1, throughput_trend_ci95_pct=3, host_speed_slope=-0.1, host_speed_r2=0.05)
    assert "equal host speed" not in told(row(**{**PLATFORM, **steady}), row(**{**VIRTUAL, **steady}))
    # the host had room: not a CPU race, whatever the fit
    roomy = dict(host_cpu_pct=60, app_cpu_pct=90)
    assert "equal host speed" not in told(row(**{**PLATFORM, **roomy}), row(**{**VIRTUAL, **roomy}))
    # one mode only
    assert "equal host speed" not in told(row(**VIRTUAL))
    # a row that also stalled: invalid beyond its steadiness
    stalled = dict(VIRTUAL, stall="stalled 12 s after its users began: 0.0 req/s completed for 5 s")
    assert "equal host speed" not in told(row(**PLATFORM), row(**stalled))
    # the costs not measured (k6's CPU unsampled)
    unmeasured = {**VIRTUAL, "app_cpu_per_k6_cpu": "", "tiers_cpu_per_k6_cpu": ""}
    assert "equal host speed" not in told(row(**PLATFORM), row(**unmeasured))
