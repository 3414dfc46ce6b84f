"""The live line: its ETA, an upper bound from the rows' longest phases that only ever falls, and its successes a
second, from k6's own live counts whatever the target."""

import time

import pytest

from vtlab.measure import drive, load
from vtlab.measure.progress import Progress
from vtlab.series import windows


def at_row(progress, index, started):
    progress.index, progress.row_started = index, started


def test_the_eta_starts_at_every_rows_bound_and_drops_when_a_row_ends_early():
    progress = Progress(3, row_bound_s=100, first_row_extra_s=30)
    at_row(progress, 0, 0.0)
    assert progress.left_s(0.0) == 330  # the first row's extra warm-up, then two rows at their longest
    assert progress.left_s(10.0) == 320
    at_row(progress, 1, 50.0)  # the first row settled early and ended at 50 s
    assert progress.left_s(50.0) == 200
    assert progress.left_s(60.0) == 190


def test_more_rows_than_expected_leave_none_left_never_fewer():
    # a capacity search's 18th point of the 12 it expected: no row left, an ETA of the current row's bound at most
    progress = Progress(12, row_bound_s=100)
    at_row(progress, 17, 0.0)
    assert progress.rows_left() == 0
    assert progress.left_s(10.0) == 90


def test_the_eta_never_rises_even_when_a_row_runs_past_its_bound():
    progress = Progress(3, row_bound_s=100)
    at_row(progress, 0, 0.0)
    shown = [progress.left_s(float(now)) for now in range(0, 150, 5)]  # the first row overruns by 50 s
    at_row(progress, 1, 150.0)
    shown += [progress.left_s(float(now)) for now in range(150, 260, 5)]
    assert all(later <= earlier for earlier, later in zip(shown, shown[1:], strict=False))


def two_runners(folder):
    """A row's two k6 runners whose live files say 228 and 220 successes a second over their last five seconds."""
    runners = [load.Runner(None, folder / f"row.runner-{i}-of-2.csv.gz", folder / f"row.runner-{i}-of-2.json",
                           folder / f"k6-row.runner-{i}-of-2.log") for i in (1, 2)]
    start = round(time.time() * 1000) - 8000
    first = [0, 200, 430, 650, 880, 1100, 1330, 1560, 1790]  # (1790 - 650) / 5 = 228
    second = [0, 210, 440, 660, 880, 1100, 1320, 1540]  # (1540 - 440) / 5 = 220; its failures climb
    for runner, offset, counts in ((runners[0], 0, first), (runners[1], 400, second)):
        runner.live.write_text("".join(f"{start + offset + 1000 * s},{ok},{40 * s},0,20\n"
                                       for s, ok in enumerate(counts)))
    return runners


# what each target's meters hold while k6 reads 448 successes a second: vtlab's service counts its requests (read at
# 2 Hz; here 310 a second, its failures too), a user's jar may expose no request counter, and a URL without
# --metrics is read for no meters at all
OWN = windows.Series([(t / 2, {"requests_total": 155.0 * t, "jvm_threads": 40.0}) for t in range(21)])
USER_JAR = windows.Series([(t / 2, {"jvm_threads": 40.0}) for t in range(21)])
URL = windows.Series()


@pytest.mark.parametrize("meters", [OWN, USER_JAR, URL], ids=["own", "user-jar", "url"])
def test_the_live_line_shows_k6s_successes_a_second_whatever_the_targets_meters(tmp_path, capsys, meters):
    progress = Progress(2, row_bound_s=100)
    at_row(progress, 0, time.monotonic() - 12)
    drive.each_second(drive.LiveLine(progress, time.monotonic() - 10, None), None, time.monotonic() - 10,
                      two_runners(tmp_path), meters)
    line = capsys.readouterr().out
    assert "|   448.0 req/s ok |" in line, line
    assert "failed/s" in line  # the second runner's failures climb by 40 a second, beside the successes


def test_without_a_terminal_the_line_is_printed_once_as_the_hold_ends_and_not_again(tmp_path, capsys):
    progress = Progress(2, row_bound_s=100)
    at_row(progress, 0, time.monotonic() - 12)
    live = drive.LiveLine(progress, time.monotonic() - 10, hold_end_s=30.0)
    runners = two_runners(tmp_path)
    live.tick(runners)  # 10 s in: the first line of the row
    live.tick(runners)  # within 15 s of it and before the hold's end: nothing
    assert capsys.readouterr().out.count("req/s ok") == 1
    live.hold_end_s = 9.0  # a settling warm-up decided a hold that has ended by now
    live.tick(runners)
    live.tick(runners)
    out = capsys.readouterr().out
    assert out.count("the hold's end") == 1 and "448.0 req/s ok" in out, out


class Heard:
    """A stall watch that keeps what it was fed."""

    def __init__(self):
        self.fed: list[float] = []

    def observe(self, elapsed_s: float, completed_rps: float) -> None:
        self.fed.append(completed_rps)


STARVED = windows.Series([(t / 2, {"jvm_threads": 40.0}) for t in range(21)])  # its scrapes answered no counter


@pytest.mark.parametrize("meters, fed", [(STARVED, 448.0), (OWN, 448.0), (windows.Series(
    [(t / 2, {"requests_total": 500.0 * t}) for t in range(21)]), 1000.0)], ids=["starved", "own", "counter-more"])
def test_the_stall_watch_hears_what_completed_by_the_service_s_counter_or_k6_s_whichever_saw_more(tmp_path, meters,
                                                                                                  fed):
    # a CPU-bound virtual row served 870 req/s by k6 while its own scrapes starved: by its counter it completed
    # nothing, and was called stalled (cpu1, seq1); k6's 448 a second here, the counter's 310 or 1,000
    progress = Progress(2, row_bound_s=100)
    at_row(progress, 0, time.monotonic() - 12)
    watch = Heard()
    now = time.monotonic()
    series = windows.Series([(now - 10 + t, values) for t, values in meters.points])
    drive.each_second(drive.LiveLine(progress, now - 10, None), watch, now - 10, two_runners(tmp_path), series)
    assert watch.fed == [pytest.approx(fed)]
