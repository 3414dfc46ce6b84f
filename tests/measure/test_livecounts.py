"""k6's live counts as the harness reads them: complete lines only."""

from vtlab.measure import livecounts


def test_a_live_files_half_written_last_line_is_left_out():
    parsed = livecounts.parse_live("1000,5,1,0,7\n2000,9,1,3,9\n30")
    assert parsed == [livecounts.Live(1.0, 5, 1, 0, 7), livecounts.Live(2.0, 9, 1, 3, 9)]

