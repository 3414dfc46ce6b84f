"""The report's scenario sections (writes, offload, fan-out, sleep, cpu, pinning, JEP 491 before/after, pools, the
downstream clients, latency, request context, the reactive twin): for each scenario present in a run, a table and a
verdict in words, computed from the analysis alone. One module a scenario; pure: no I/O, no drawing."""

from __future__ import annotations

from vtlab.report.scenarios import (clients, context, cpu, fanout, jep491, latency, offload, pinning, pools, reactive,
                                   shapes, sleep, writes)
from vtlab.report.scenarios.common import Analysis, Label, Section

# The order the report tells them in.
ORDER = (writes, offload, fanout, sleep, cpu, pinning, jep491, pools, clients, latency, context, reactive, shapes)


def sections(analysis: Analysis, mode_label: Label) -> list[Section]:
    built = (scenario.section(analysis, mode_label) for scenario in ORDER)
    return [section for section in built if section is not None]


__all__ = ["Section", "sections"]
