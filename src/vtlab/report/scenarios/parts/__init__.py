"""The sections that swap one part of vtlab's service for another at the same settings: the JDBC pool, the downstream
client, the embedded server."""

from __future__ import annotations

from vtlab.report.scenarios.common import Analysis, Label, Section
from vtlab.report.scenarios.parts import clients, pools, servers

ORDER = (pools, clients, servers)


def sections(analysis: Analysis, mode_label: Label) -> list[Section]:
    built = (part.section(analysis, mode_label) for part in ORDER)
    return [section for section in built if section is not None]
