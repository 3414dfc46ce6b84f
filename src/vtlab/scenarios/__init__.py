"""The report's scenario sections (writes, offload, fan-out, sleep, cpu, pinning, pools, latency,
request context, the reactive twin): for each scenario present in a run, a table and a verdict in
words, computed from the analysis alone. One module a scenario; pure: no I/O, no drawing."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vtlab.scenarios import context, cpu, fanout, latency, offload, pinning, pools, reactive, sleep, writes
from vtlab.scenarios.common import Line, Section

# The order the report tells them in.
ORDER = (writes, offload, fanout, sleep, cpu, pinning, pools, latency, context, reactive)


def sections(analysed: Sequence[Line], mode_label: Callable[[Line], str]) -> list[Section]:
    built = (scenario.section(analysed, mode_label) for scenario in ORDER)
    return [section for section in built if section is not None]


__all__ = ["Section", "sections"]
