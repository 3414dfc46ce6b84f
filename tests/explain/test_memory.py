"""Memory per waiting request: a least-squares slope with its interval, per scenario and thread model, told in the
report from the probed rows only."""

import math

from vtlab.explain import analyze, memory
from vtlab.report.labels import mode_label
from vtlab.report import memory as section

from rows import RUN, row


def test_the_slope_is_the_least_squares_line_with_students_interval():
    # 50 KB a request exactly: no residual, no width
    exact = memory.fit([(1000, 100 + 50 * 1000 / 1024), (2000, 100 + 50 * 2000 / 1024), (4000, 100 + 50 * 4000 / 1024)])
    assert math.isclose(exact.per_request_kb, 50) and math.isclose(exact.half_kb, 0, abs_tol=1e-9)
    assert math.isclose(exact.base_mb, 100)
    # by hand: x = 0, 1000, 2000, 3000 (mean 1500, Sxx = 5e6), y = 1, 49, 101, 149 (mean 75, Sxy = 248,000): slope
    # 0.0496 MB a request, base 0.6 MB; residuals 0.4, -1.2, 1.2, -0.4 (3.2 squared, 1.6 a degree of freedom), so the
    # half-width is t(2) × sqrt(1.6 / 5e6) MB a request
    noisy = memory.fit([(0, 1), (1000, 49), (2000, 101), (3000, 149)])
    assert math.isclose(noisy.per_request_kb, 0.0496 * 1024, rel_tol=1e-9) and math.isclose(noisy.base_mb, 0.6)
    half = 4.303 * math.sqrt(1.6 / 5e6) * 1024
    assert math.isclose(noisy.half_kb, half, rel_tol=1e-9)
    two = memory.fit([(1000, 10), (2000, 20)])
    assert math.isclose(two.per_request_kb, 10.24) and math.isnan(two.half_kb)
    assert math.isnan(memory.fit([(1000, 10), (1000, 12)]).per_request_kb)  # one load: no slope


PROBED = dict(stub_delay_ms=4000, probe_stack_reserved_mb=45, probe_stack_committed_mb=3.5, probe_threads=45)


def test_each_thread_model_is_fitted_over_its_probed_rows_and_the_report_tells_both():
    rows = [row(concurrency=n, probe_in_flight=n, probe_heap_live_mb=70 + n * 20 / 1024,
                probe_stack_chunks_mb=1 + n * 5 / 1024, probe_rss_mb=450 + n * 40 / 1024,
                probe_top_classes="[B=30.0;[C=9.0", **PROBED)
            for n in (500, 1500, 3000)]
    # a thread per user: each platform row's thread count is its users', and they are still one fit
    rows += [row(thread_mode="platform", tomcat_max_threads=n, concurrency=n, probe_in_flight=n,
                 probe_heap_live_mb=70 + n * 30 / 1024, probe_rss_mb=450 + n * 120 / 1024, probe_stack_chunks_mb=0,
                 **{**PROBED, "probe_threads": 45 + n, "probe_stack_reserved_mb": 45 + n,
                    "probe_stack_committed_mb": 3.5 + n * 0.1})
             for n in (500, 1500, 3000)]
    rows.append(row(concurrency=100))  # not probed: not a point of any fit
    analysis = analyze.analyse(rows, RUN)
    fits = {f.thread_mode: f for f in memory.per_request(analysis.verdicts)}
    assert math.isclose(fits["virtual"].heap.per_request_kb, 20)
    assert math.isclose(fits["virtual"].rss.per_request_kb, 40)
    assert math.isclose(fits["platform"].rss.per_request_kb, 120) and len(fits["platform"].lines) == 3
    assert math.isclose(fits["platform"].stack_reserved_kb, 1024)  # 3,045 MB over 3,045 threads
    told = section.section(analysis, mode_label)
    assert told is not None and len(told.table) == 6
    assert told.verdict[0].startswith(
        "virtual: each waiting request held 20.0 KB (95% interval 20.0–20.0) of live heap (of it 5.0 KB (95% interval "
        "5.0–5.0) of virtual threads' stack chunks) and 40.0 KB (95% interval 40.0–40.0) of RSS, fitted over 3 rows "
        "at 500–3,000 requests in flight. Its 45 platform threads at 3,000 in flight (carriers and the JVM's own: they "
        "do not grow with the requests) reserved 1,024 KB of stack each")
    assert told.verdict[1].startswith(
        "platform (a thread per user): each waiting request held 30.0 KB (95% interval 30.0–30.0) of live heap, "
        "102.4 KB (95% interval 102.4–102.4) of platform thread stack committed and 120.0 KB")
    # platform: 30 KB of heap and 102.4 KB of committed stack (0.1 MB a thread) against virtual's 20 KB
    assert ("Per waiting request, live heap and committed stack together: platform threads 132.4 KB, virtual threads "
            "20.0 KB — 6.6× as much (the RSS slopes also carry the heap the collector grew into)." in told.verdict)


def test_without_a_probed_row_there_is_no_section():
    assert section.section(analyze.analyse([row()], RUN), mode_label) is None
