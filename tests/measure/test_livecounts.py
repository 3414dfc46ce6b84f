"""k6's live counts as the harness reads them: complete lines only, each runner's, and the live line's rate of
successes over the last five seconds, summed over the runners, on made-up files whose rates are worked out by hand."""

import pytest

from vtlab.measure import livecounts

T0 = 1_700_000_000_000  # Unix ms of a runner's first line


def lines(start_ms, ok, failed=None, step_ms=1000):
    """A live file's text: a line each `step_ms` from `start_ms`, successes so far `ok`, failures `failed`."""
    failed = failed or [0] * len(ok)
    return "".join(f"{start_ms + i * step_ms},{good},{bad},0,10\n"
                   for i, (good, bad) in enumerate(zip(ok, failed, strict=True)))


def test_a_live_files_half_written_last_line_is_left_out():
    parsed = livecounts.parse_live("1000,5,1,0,7\n2000,9,1,3,9\n30")
    assert parsed == [livecounts.Live(1.0, 5, 1, 0, 7), livecounts.Live(2.0, 9, 1, 3, 9)]


def test_the_rate_is_the_successes_of_the_last_five_seconds_and_never_the_failures():
    # seconds 0..8; failures climb by 50 a second and count for nothing
    runner = livecounts.parse_live(lines(T0, [0, 200, 430, 650, 880, 1100, 1330, 1560, 1790],
                                         [50 * s for s in range(9)]))
    # the window is the line at 3 s to the line at 8 s: (1790 - 650) / 5
    assert livecounts.ok_rate([runner]) == 228.0


def test_a_line_a_few_milliseconds_early_or_late_still_opens_the_window():
    # the line that opens the window was written 3 ms earlier than a whole second: it is still the window's first
    text = lines(T0, [0, 100, 200]) + f"{T0 + 2997},300,0,0,10\n" + lines(T0 + 4000, [400, 500, 600, 700, 800])
    # its lines at 0, 1, 2, 2.997, 4 ... 8 s: from 2.997 s (300) to 8 s (800), over 5.003 s
    assert livecounts.ok_rate([livecounts.parse_live(text)]) == pytest.approx(500 / 5.003, rel=1e-6)


def test_a_runner_younger_than_the_window_is_counted_over_what_it_has_run():
    runner = livecounts.parse_live(lines(T0, [0, 90, 210]))
    assert livecounts.ok_rate([runner]) == 105.0  # 210 over its two seconds


def test_several_runners_are_summed_and_one_that_has_not_written_yet_adds_nothing(tmp_path):
    first, second, third, fourth = (tmp_path / f"row.runner-{i}-of-4.csv.gz.live" for i in range(1, 5))
    first.write_text(lines(T0, [0, 200, 430, 650, 880, 1100, 1330, 1560, 1790]))
    # 400 ms behind the first, its last line half written: from 2.4 s (440) to 7.4 s (1540), over 5 s
    second.write_text(lines(T0 + 400, [0, 210, 440, 660, 880, 1100, 1320, 1540]) + f"{T0 + 8400},17")
    third.write_text(f"{T0 + 800},35,0,0,10\n")  # one line: no time to divide its successes by yet
    # the fourth has not created its file yet
    runners = livecounts.read([first, second, third, fourth])
    assert [len(runner) for runner in runners] == [9, 8, 1, 0]
    assert livecounts.ok_rate(runners) == pytest.approx(228.0 + 220.0, rel=1e-6)


def test_no_runner_with_two_lines_yet_shows_no_successes(tmp_path):
    assert livecounts.ok_rate(livecounts.read([tmp_path / "absent.live"])) == 0.0
    assert livecounts.ok_rate([livecounts.parse_live(f"{T0},12,0,0,10\n")]) == 0.0


def test_a_stalled_service_shows_no_successes_while_k6_keeps_writing():
    # k6 writes its line each second whatever completes: the successes stop at 2,000 from 4 s on
    runner = livecounts.parse_live(lines(T0, [0, 500, 1000, 1500, 2000, 2000, 2000, 2000, 2000, 2000]))
    assert livecounts.ok_rate([runner]) == 0.0  # 4 s to 9 s


def test_the_failures_a_second_are_read_over_the_same_window_apart_from_the_successes():
    runner = livecounts.parse_live(lines(T0, [0, 200, 430, 650, 880, 1100, 1330, 1560, 1790],
                                         [0, 0, 0, 10, 10, 60, 110, 160, 210]))
    assert livecounts.failed_rate([runner]) == 40.0  # (210 - 10) / 5, the line at 3 s to the one at 8 s
    assert livecounts.ok_rate([runner]) == 228.0
