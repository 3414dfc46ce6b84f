"""The report's scenario sections (writes, offload, fan-out, sleep, cpu, pinning, JEP 491 before/after, the swapped
parts: pools, downstream clients, servers; latency, request context, the reactive twin): for each scenario present in a
run, a table and a verdict in words, computed from the analysis alone. One module a scenario; pure: no I/O, no
drawing."""

from __future__ import annotations

from vtlab.report.scenarios import (context, cpu, fanout, jep491, latency, offload, parts, pinning, reactive, shapes,
                                   sleep, writes)
from vtlab.report.scenarios.common import Analysis, Label, Section

# The order the report tells them in.
BEFORE_PARTS = (writes, offload, fanout, sleep, cpu, pinning, jep491)
AFTER_PARTS = (latency, context, reactive, shapes)


def sections(analysis: Analysis, mode_label: Label) -> list[Section]:
    """Every scenario's section present in the run, in the order the report tells them: the swapped parts (pools,
    clients, servers) after JEP 491."""
    built = [*(scenario.section(analysis, mode_label) for scenario in BEFORE_PARTS),
             *parts.sections(analysis, mode_label),
             *(scenario.section(analysis, mode_label) for scenario in AFTER_PARTS)]
    return [section for section in built if section is not None]


__all__ = ["Section", "sections"]
