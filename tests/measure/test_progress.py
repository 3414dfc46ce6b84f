"""The live line's ETA: an upper bound from the rows' longest phases that only ever falls."""

from vtlab.measure.progress import Progress


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


def test_the_eta_never_rises_even_when_a_row_runs_past_its_bound():
    progress = Progress(3, row_bound_s=100)
    at_row(progress, 0, 0.0)
    shown = [progress.left_s(float(now)) for now in range(0, 150, 5)]  # the first row overruns by 50 s
    at_row(progress, 1, 150.0)
    shown += [progress.left_s(float(now)) for now in range(150, 260, 5)]
    assert all(later <= earlier for earlier, later in zip(shown, shown[1:], strict=False))
