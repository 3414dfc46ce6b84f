"""One cell of matrix.csv, read and written: a value's text (format_value), a number back from it (num), whether
a row is a failed one, and the 'reason=count' codec of the cells that count by a word (pinning reasons, failures
by status). Every stage that reads a row's cells reads them through here, so an empty or odd cell means the
same thing everywhere."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping


def format_value(value: object) -> str:
    if isinstance(value, float):
        if value != value:  # NaN: a reading that could not be taken stays visibly empty
            return ""
        return f"{value:.3f}".rstrip("0").rstrip(".") if abs(value) < 1e15 else str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def num(row: Mapping[str, object], column: str, default: float = math.nan) -> float:
    """A cell as a number; `default` where it is empty, missing or not a number (a reading not taken)."""
    value = row.get(column)
    if value in (None, ""):
        return default
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def failed(row: Mapping[str, object]) -> bool:
    """A row a tier died in: its cells are not a measurement and it gets no verdict but "failed"."""
    return bool(row.get("failed_tier"))


def format_reasons(counts: Mapping[str, int]) -> str:
    """'reason=count' pairs, most frequent first; ';' and '=' cannot occur in JFR's reason texts."""
    return ";".join(f"{reason}={count}" for reason, count in sorted(counts.items(), key=lambda kv: -kv[1]))


def format_frames(frames: Iterable[tuple[str, str, int, float, float]]) -> str:
    """(frame, kind, count, total ms, max ms) as 'frame=kind/count/total/max' pairs joined by ';' in their order;
    a Java frame's name holds no '=' nor ';'."""
    return ";".join(f"{frame}={kind}/{count}/{total:.1f}/{most:.1f}" for frame, kind, count, total, most in frames)


def parse_frames(text: str) -> list[tuple[str, str, int, float, float]]:
    """format_frames read back; a part that is not one is left out."""
    found = []
    for part in text.split(";"):
        frame, _, figures = part.rpartition("=")
        fields = figures.split("/")
        if frame and len(fields) == 4 and fields[1].isdigit():
            found.append((frame, fields[0], int(fields[1]), float(fields[2]), float(fields[3])))
    return found


def parse_reasons(text: str) -> dict[str, int]:
    pairs = (part.rsplit("=", 1) for part in text.split(";") if "=" in part)
    return {reason: int(count) for reason, count in pairs if count.isdigit()}
