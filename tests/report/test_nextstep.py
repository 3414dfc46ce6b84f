"""Where a run gave no answer, the line that says what would give one: from the flags that set its rows apart,
grouped by cause, the most frequent first; the machine's drift answered by pairing a sequential run, and by more
and longer blocks a paired one."""

from __future__ import annotations

from vtlab.report import nextstep


def test_the_most_frequent_causes_are_named_with_what_answers_them():
    rows = [["generator-priced:45%±55%", "too-noisy", "host-speed:74%"], ["noisy-neighbour", "too-noisy"],
            ["not-steady", "jit-not-settled"], ["jit-not-settled"], ["generator-interference"]]
    told = nextstep.line(rows, paired=False)
    assert told == ("To get an answer: --paired, the modes measured as one (both JVMs up, blocks taken in turns: the "
                    "machine's drift falls on both) — 3 rows; --warmup 90, a longer warm-up (the compiler still ran "
                    "at the hold) — 2 rows."), told
    assert nextstep.line(rows, paired=True).startswith("To get an answer: --blocks 5 --hold 20")


def test_notes_alone_and_valid_rows_give_no_line():
    assert nextstep.line([["generator-priced:45%±55%", "host-speed:74%", "jit-busy:30%"]], paired=False) == ""
    assert nextstep.line([], paired=True) == ""


def test_the_services_own_failures_point_at_its_log():
    assert "its log (logs/)" in nextstep.line([["errors-above-threshold"], ["writes-mismatch"]], paired=False)
