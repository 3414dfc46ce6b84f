"""A run cut again at its own hold: what differs from its CSV (nothing, when the cut follows k6's rules)."""

from pathlib import Path

from vtlab.results import table
from vtlab.series import recut


def recut_differences(run_dir: Path) -> list[dict[str, tuple[str, str]]]:
    """Per row, the CSV cells that cutting its kept series again at its own hold does not give back."""
    rows = table.read_rows(run_dir / table.CSV_NAME)
    return [{column: (row[column], table.format_value(cut[column])) for column in row
             if column != "ts_iso" and table.format_value(cut[column]) != row[column]}
            for row, cut in zip(rows, recut.recut_rows(run_dir), strict=True)]
