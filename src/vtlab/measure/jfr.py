"""Pinned virtual threads as the service's JFR recording saw them: jdk.VirtualThreadPinned events counted by
their reason (results.cells.format_reasons writes the counts into the row's pinned_reasons cell), and grouped by
the first frame of the application or a library under the JDK's own (results.cells.format_frames: pinned_frames),
each with what pinned it as its stack shows it: a monitor, a class initializer or a native frame."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

PINNED_EVENT = "jdk.VirtualThreadPinned"
NO_REASON_FIELD = "no reason recorded (JDK < 24)"


# Deep enough to reach the application's frame under the JDK's own (sleep, park, a socket read: 4 to ~15 frames),
# shallow enough that a row pinning on every request (thousands of events, each frame ~0.7 KB of JSON) reads back
# in seconds
STACK_DEPTH = 24
# The JDK's own frames (names in dots: JFR writes a hidden class's with dots, the others with slashes): what pinned is
# asked of the first frame below them
JDK_PACKAGES = ("java.", "javax.", "jdk.", "sun.", "com.sun.")
# What held the carrier: a monitor where the event's reason says so (JDK 24+), or where a JDK 21 event, which names
# no reason, shows neither of the others on its stack (inferred: the only other thing that pins there); a class
# initializer or a native frame on the stack; another reason the event names. JEP 491 removed the monitor's pin in
# JDK 24; the others it does not.
MONITOR, INFERRED_MONITOR, CLASS_INIT, NATIVE, OTHER = "monitor", "monitor-inferred", "class-init", "native", "other"


@dataclass(frozen=True)
class PinnedFrame:
    frame: str          # "demo.shop.Pin.inLock:10": the first frame below the JDK's own, its line where known
    kind: str           # MONITOR, CLASS_INIT or NATIVE
    count: int
    total_ms: float
    max_ms: float


@dataclass(frozen=True)
class Pinned:
    reasons: dict[str, int]
    frames: tuple[PinnedFrame, ...]


def pinned(jfr_tool: Path, recording: Path, window: tuple[float, float] | None = None) -> Pinned | None:
    """jdk.VirtualThreadPinned events of a recording (those that began within `window`, Unix s, where given: a dump
    holds the whole chunks its window overlaps), by reason and by frame; None when the recording is missing or
    unreadable (so "no pinning" and "no data" never look alike)."""
    if not recording.exists():
        return None
    result = subprocess.run([str(jfr_tool), "print", "--json", "--stack-depth", str(STACK_DEPTH), "--events",
                             PINNED_EVENT, str(recording)], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    events = _events(result.stdout, window)  # the largest output the rig reads back: parsed once
    return Pinned(_reasons(events), _frames(events))


def _events(jfr_json: str, window: tuple[float, float] | None) -> list[dict]:
    return [event.get("values", {}) for event in json.loads(jfr_json).get("recording", {}).get("events", [])
            if event.get("type") == PINNED_EVENT and (window is None or window[0] <= _unix(
                str(event.get("values", {}).get("startTime", ""))) <= window[1])]


def group_frames(jfr_json: str, window: tuple[float, float] | None = None) -> tuple[PinnedFrame, ...]:
    """The events grouped by their first frame below the JDK's own and what held the carrier (_kind), the longest
    total first."""
    return _frames(_events(jfr_json, window))


def _frames(events: list[dict]) -> tuple[PinnedFrame, ...]:
    groups: dict[tuple[str, str], list[float]] = {}
    for values in events:
        frames = (values.get("stackTrace") or {}).get("frames", [])
        groups.setdefault((_first_own(frames), _kind(frames, values)), []).append(_ms(values.get("duration")))
    found = [PinnedFrame(frame, kind, len(times), sum(times), max(times)) for (frame, kind), times in groups.items()]
    return tuple(sorted(found, key=lambda f: (-f.total_ms, f.frame)))


def _name(frame: dict) -> str:
    """ "package.Class.method", in dots whichever way JFR wrote the class."""
    method = frame.get("method", {})
    return f"{method.get('type', {}).get('name', '?')}.{method.get('name', '?')}".replace("/", ".")


def _first_own(frames: list[dict]) -> str:
    """The first frame below the JDK's own, as "package.Class.method:line"; the top frame where all are the JDK's."""
    own = next((f for f in frames if not _name(f).startswith(JDK_PACKAGES)), frames[0] if frames else None)
    if own is None:
        return "no stack recorded"
    line = own.get("lineNumber", -1)
    return _name(own) + (f":{line}" if isinstance(line, int) and line >= 0 else "")


def _kind(frames: list[dict], values: dict) -> str:
    """What held the carrier: the event's reason where it names one (JDK 24+), else what the stack shows (JDK 21); a
    class initializer anywhere on the recorded stack, then a native frame."""
    reason = str(values.get("pinnedReason") or "").lower()
    if any(f.get("method", {}).get("name") == "<clinit>" for f in frames):
        return CLASS_INIT
    if "native" in reason or any(f.get("type") == "Native" for f in frames):
        return NATIVE
    if "monitor" in reason:
        return MONITOR
    return OTHER if reason else INFERRED_MONITOR


def _ms(duration: object) -> float:
    """JFR's ISO 8601 duration ("PT0.027747504S") in ms; 0 where unreadable."""
    match = re.fullmatch(r"PT(?:(\d+)M)?(?:([\d.]+)S)?", str(duration or ""))
    if match is None:
        return 0.0
    return (int(match.group(1) or 0) * 60 + float(match.group(2) or 0)) * 1000


def count_reasons(jfr_json: str, window: tuple[float, float] | None = None) -> dict[str, int]:
    return _reasons(_events(jfr_json, window))


def _reasons(events: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for values in events:
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
