"""What a run prints as it ends: a screenful, not the report. The report's answer (each scenario's ratio with its
interval and each mode's wall in words), the rows set apart with what flagged them, and where the whole report is;
`--verbose` prints the report itself. pyperf's and hyperfine's summaries are the model: the figure a user came for
first, the rest a file away."""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

from vtlab.explain import validity
from vtlab.report import nextstep
from vtlab.results import capacityfile, record
from vtlab.results import rows as measured_rows

# The answer's lines shown at most: a profile of many scenarios says how many more the report holds.
ANSWER_LINES = 14
# The advice section's heading (report.advice.TITLE) and a flag it suggests trying, as its sentences say it
ADVICE = "## Before you flip: what to change"
# (the settings `vtlab advise --try` sets on vtlab's own service: plan.tries.OPTIONS)
TRIED_FLAG = re.compile(r"; try (--tomcat-threads|--pools|--client-pool|--offload-pool|--jdk) ([^;,.\s]+)")
# The flags named in the line that sets rows apart, the most frequent first.
FLAGS_NAMED = 4


def summary(markdown: str, analysis_csv: Path) -> str:
    """The report's title and answer, the flagged rows counted by flag, and a pointer to the rest."""
    lines = markdown.splitlines()
    title = next((line for line in lines if line.startswith("# ")), "")
    # a capacity search answers in its own section first (report.capacity)
    answer = [*(line for heading in lines if heading.startswith("## Capacity") for line in [heading, *_section(lines,
              heading)]), *_section(lines, "## The answer")]
    while answer and not answer[0].strip():
        answer = answer[1:]
    while answer and not answer[-1].strip():
        answer = answer[:-1]
    shown = answer[:ANSWER_LINES]
    more = len([line for line in answer[ANSWER_LINES:] if line.startswith("- ")])
    told = [title, "", *shown]
    if more:
        told.append(f"- … {more} more in the report")
    with open(analysis_csv, newline="") as handle:
        rows = list(csv.DictReader(handle))
    told += ["", flagged(rows)]
    if any("no ratio" in line for line in answer):
        told += [step] if (step := next_step(rows, analysis_csv.parent / "matrix.csv")) else []
    told += [advised] if (advised := to_try(lines, analysis_csv.parent)) else []
    told.append("the whole report: --verbose, or `vtlab report RUN` (report.md beside it)")
    return "\n".join(told)


def to_try(lines: list[str], run_dir: Path) -> str:
    """One line: the settings the report's advice section suggests (its "try --flag value") that `vtlab advise --try`
    can set, and the command that re-measures them; "" where it suggests none, or the run is one a try cannot
    re-measure (a user's service, a cluster's, a capacity search)."""
    if not _triable(run_dir):
        return ""
    found: dict[str, list[str]] = {}
    for line in _section(lines, ADVICE):
        for flag, value in TRIED_FLAG.findall(line):
            if value not in found.setdefault(flag, []):
                found[flag].append(value)
    if not found:
        return ""
    named = ", ".join(f"{flag} {'/'.join(values)}" for flag, values in found.items())
    return (f"Before you flip: {len(found)} setting{'s' if len(found) > 1 else ''} to try ({named}); "
            f"`vtlab advise {run_dir} --try` re-measures each on its points")


def _triable(run_dir: Path) -> bool:
    if (run_dir / capacityfile.NAME).exists():
        return False
    try:
        run = record.read(run_dir)
    except (OSError, record.MalformedRecord):
        return False
    return run.user_service is None and run.kubernetes is None


def next_step(rows: list[dict[str, str]], matrix: Path) -> str:
    """What would give the answer a scenario lacks, from the flags of analysis.csv's rows set apart
    (report.nextstep)."""
    return nextstep.line(((row.get("flags") or "").split(";") for row in rows
                          if row.get("valid", "").lower() != "true"), _in_turns(matrix))


def _in_turns(matrix: Path) -> bool:
    """Whether the run took its blocks in turns (a paired run): its matrix.csv says so of its rows."""
    return any(row.taken_in_turns for row in measured_rows.read(matrix))


def flagged(rows: list[dict[str, str]]) -> str:
    """One line: how many of analysis.csv's rows are set apart (not valid), by flag, the most frequent first; or that
    every row is valid."""
    invalid = [row for row in rows if row.get("valid", "").lower() != "true"]
    if not invalid:
        return f"Every row is valid ({len(rows)} of {len(rows)})."
    # what set each apart (explain.validity.invalidating), not the notes beside it (jit-busy, host-speed, …)
    counts = Counter(flag.split(":")[0] for row in invalid
                     for flag in validity.invalidating((row.get("flags") or "").split(";")) if flag)
    named = ", ".join(f"{flag} {count}" for flag, count in counts.most_common(FLAGS_NAMED))
    others = len(counts) - FLAGS_NAMED
    return (f"{len(invalid)} of {len(rows)} rows set apart (not published as answers): {named}"
            + (f" and {others} more flags" if others > 0 else "") + "; each is named in the report.")


def _section(lines: list[str], heading: str) -> list[str]:
    """A section's lines without its heading, up to the next heading of its level; none where it is absent."""
    if heading not in lines:
        return []
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]
