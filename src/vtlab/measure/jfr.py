"""Pinned virtual threads as the service's JFR recording saw them: jdk.VirtualThreadPinned events counted by
their reason (results.cells.format_reasons writes the counts into the row's pinned_reasons cell)."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from pathlib import Path

PINNED_EVENT = "jdk.VirtualThreadPinned"
NO_REASON_FIELD = "no reason recorded (JDK < 24)"


def pinned_by_reason(jfr_tool: Path, recording: Path,
                     window: tuple[float, float] | None = None) -> dict[str, int] | None:
    """jdk.VirtualThreadPinned events of a recording (those that began within `window`, Unix s, where given: a
    dump holds the whole chunks its window overlaps), counted by their pinnedReason; None when the recording is
    missing or unreadable (so "no pinning" and "no data" never look alike)."""
    if not recording.exists():
        return None
    result = subprocess.run([str(jfr_tool), "print", "--json", "--stack-depth", "1", "--events", PINNED_EVENT,
                             str(recording)], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    return count_reasons(result.stdout, window)


def count_reasons(jfr_json: str, window: tuple[float, float] | None = None) -> dict[str, int]:
    counts: dict[str, int] = {}
    for event in json.loads(jfr_json).get("recording", {}).get("events", []):
        if event.get("type") != PINNED_EVENT:
            continue
        values = event.get("values", {})
        if window is not None and not window[0] <= _unix(str(values.get("startTime", ""))) <= window[1]:
            continue
        # JDK 21's event has no pinnedReason field (added in JDK 24 with JEP 491): say so, not "unknown"
        reason = str(values.get("pinnedReason") or "unknown") if "pinnedReason" in values else NO_REASON_FIELD
        counts[reason] = counts.get(reason, 0) + 1
    return counts


STAMP = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?")


def _unix(stamp: str) -> float:
    """JFR's JSON time stamp (ISO 8601, to the nanosecond, with an offset or Z) in Unix seconds; NaN if unreadable."""
    match = STAMP.fullmatch(stamp)
    if match is None:
        return float("nan")
    whole, fraction, offset = match.groups()
    moment = dt.datetime.fromisoformat(whole + ("+00:00" if offset in (None, "Z") else offset))
    return moment.timestamp() + (float("0." + fraction) if fraction else 0.0)
