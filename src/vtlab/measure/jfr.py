"""Pinned virtual threads as the service's JFR recording saw them: jdk.VirtualThreadPinned events counted by
their reason (results.cells.format_reasons writes the counts into the row's pinned_reasons cell)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

PINNED_EVENT = "jdk.VirtualThreadPinned"
NO_REASON_FIELD = "no reason recorded (JDK < 24)"


def pinned_by_reason(jfr_tool: Path, recording: Path) -> dict[str, int] | None:
    """jdk.VirtualThreadPinned events of a recording, counted by their pinnedReason; None when the
    recording is missing or unreadable (so "no pinning" and "no data" never look alike)."""
    if not recording.exists():
        return None
    result = subprocess.run([str(jfr_tool), "print", "--json", "--stack-depth", "1", "--events", PINNED_EVENT,
                             str(recording)], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    return count_reasons(result.stdout)


def count_reasons(jfr_json: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for event in json.loads(jfr_json).get("recording", {}).get("events", []):
        if event.get("type") != PINNED_EVENT:
            continue
        values = event.get("values", {})
        # JDK 21's event has no pinnedReason field (added in JDK 24 with JEP 491): say so, not "unknown"
        reason = str(values.get("pinnedReason") or "unknown") if "pinnedReason" in values else NO_REASON_FIELD
        counts[reason] = counts.get(reason, 0) + 1
    return counts
