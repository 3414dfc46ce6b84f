"""tries.json: what `vtlab advise RUN --try` found, beside the run — each try's settings, its run folder, its verdict
and each advised line's before and after (in words and as figures), and the advice not tried with why. One module
owns its schema: the advise command writes it, the run's report reads it (its advice section tells each try)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

NAME = "tries.json"


@dataclass(frozen=True)
class TriedRecord:
    """One try as the file keeps it: its settings as flags, its folder under the run, its verdict, each line said."""
    settings: str
    folder: str
    verdict: str
    said: tuple[str, ...]


def write(run_dir: Path, document: dict) -> Path:
    path = run_dir / NAME
    part = path.with_suffix(".part")
    part.write_text(json.dumps(document, indent=2, allow_nan=False) + "\n")
    part.replace(path)
    return path


def read(run_dir: Path) -> tuple[TriedRecord, ...]:
    """The run's tries, in the order tried; () where none was (or the file cannot be read: its report tells none)."""
    try:
        document = json.loads((run_dir / NAME).read_text())
        return tuple(TriedRecord(" ".join(f"{flag} {value}" for flag, value in entry["settings"]), entry["folder"],
                                 entry["verdict"], tuple(line["said"] for line in entry["lines"]))
                     for entry in document["tries"])
    except (OSError, ValueError, KeyError, TypeError):
        return ()
