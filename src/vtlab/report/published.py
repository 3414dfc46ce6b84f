"""The published headline beside this run's: at each of the published experiment's user counts, the published
virtual/platform ratio and this run's, each beside its Little's-law ceiling — the fraction of the ceiling reached,
there and here. The published figures are the project's own copy (reference/published.csv, each with its source),
so the section never depends on a file outside the repository. This run's ratio is computed only where both modes
have a valid rep (report.ratio); where one has none, the section says why and sets its figures apart."""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vtlab.core import dimensions
from vtlab.report import ratio, validrows
from vtlab.report.labels import fmt
from vtlab.report.scenarios.common import Section
from vtlab.core.settings import PUBLISHED
from vtlab.explain.model import Aggregate

SOURCE = "tucanoo-springboot-virtualthreads"  # the experiment `--profile headline` repeats
PUBLISHED_THREADS = 200  # its Tomcat's request threads (Spring Boot's default)
COLUMNS = [("users", "users"), ("published", "published platform → virtual req/s"),
           ("published_ratio", "published ratio (of its ceiling)"), ("here", "here platform → virtual req/s"),
           ("here_ratio", "here ratio [95%] (of its ceiling)"), ("limit", "here: virtual's limit · bottleneck")]


@dataclass(frozen=True)
class Point:
    users: int
    platform_rps: float
    virtual_rps: float
    downstream: str
    host: str

    @property
    def ratio(self) -> float:
        return self.virtual_rps / self.platform_rps

    @property
    def ceiling_ratio(self) -> float:
        """Little's law with one downstream delay for both: (users ÷ delay) ÷ (threads ÷ delay)."""
        return self.users / PUBLISHED_THREADS


def points(path: Path = PUBLISHED, source: str = SOURCE) -> dict[int, Point]:
    """The published experiment's closed-model points where both modes have a throughput, by user count."""
    with open(path, newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["source"] == source and row["model"] == "closed"]
    by_users: dict[int, dict[str, dict[str, str]]] = {}
    for row in rows:
        if row["concurrency"] and row["throughput_rps"] and row["thread_mode"] in ("platform", "virtual"):
            by_users.setdefault(int(row["concurrency"]), {})[row["thread_mode"]] = row
    return {users: Point(users, float(modes["platform"]["throughput_rps"]), float(modes["virtual"]["throughput_rps"]),
                         modes["virtual"]["downstream_ms"], modes["virtual"]["host"])
            for users, modes in sorted(by_users.items()) if len(modes) == 2}


def section(aggregates: Sequence[Aggregate], published: dict[int, Point]) -> Section | None:
    """The comparison, when this run measured both modes at one of the published user counts (released
    connections, the plain order-summary path, closed model); None otherwise."""
    here: dict[int, dict[str, Aggregate]] = {}
    for a in aggregates:
        row = a.row
        if (row.workload == "order-summary" and row.conn_mode == "released" and row.path_mode == "normal"
                and row.load_model == "closed" and not dimensions.is_variant(row) and row.concurrency in published):
            here.setdefault(row.concurrency, {})[row.thread_mode] = a
    paired = {users: modes for users, modes in here.items() if {"platform", "virtual"} <= set(modes)}
    if not paired:
        return None
    table, verdict = [], []
    for users in sorted(paired):
        point, p, v = published[users], paired[users]["platform"], paired[users]["virtual"]
        table.append(_line(point, p, v))
        verdict.append(_point_sentence(point, p, v))
    first = published[min(paired)]
    verdict.append(f"Published: {SOURCE} ({first.host}, {first.downstream} ms downstream, 200 Tomcat threads, "
                   f"pool 50); here the same user counts with the downstream delay this run used "
                   f"({fmt(paired[min(paired)]['virtual'].row.stub_delay_ms)} ms), so each Little's-law rate asks the "
                   "same of each CPU (docs/published-experiment.md: `--profile headline`).")
    return Section("published", "The published headline, reproduced", verdict, table, columns=COLUMNS)


def _ceiling(p: Aggregate, v: Aggregate) -> float:
    """This run's Little's-law ratio at the point: the users' ceiling over the platform threads'."""
    return v.line.ceilings.concurrency / p.line.ceilings.threads


def _here(line: Aggregate) -> str:
    return fmt(ratio.told_rps(line)) + ("" if line.valid else " (invalid)")


def _line(point: Point, p: Aggregate, v: Aggregate) -> dict[str, str]:
    """The point's table line: the published figures and ratio, this run's beside them (no ratio from invalid
    lines: the cell says why instead)."""
    told, ceiling = ratio.between(p, v), _ceiling(p, v)
    return {
        "users": f"{point.users:,}",
        "published": f"{fmt(point.platform_rps)} → {fmt(point.virtual_rps)}",
        "published_ratio": f"{point.ratio:.2f}× of {point.ceiling_ratio:.1f}× "
                           f"({point.ratio / point.ceiling_ratio:.0%})",
        "here": f"{_here(p)} → {_here(v)}",
        "here_ratio": (f"{told.text()} of {fmt(ceiling, 1)}× ({_share(told.value, ceiling)})" if told.computed
                       else told.text()),
        "limit": f"{v.limit} · {v.bottleneck}" + ("" if v.valid else f" (not valid: {validrows.reasons(v)})"),
    }


def _point_sentence(point: Point, p: Aggregate, v: Aggregate) -> str:
    published = (f"At {point.users:,} users the published rig reached {point.ratio:.1f}× of its "
                 f"{point.ceiling_ratio:.1f}× Little's-law ratio ({point.ratio / point.ceiling_ratio:.0%}); ")
    told, ceiling = ratio.between(p, v), _ceiling(p, v)
    if not told.computed:
        why = validrows.unanswered([("platform", [p]), ("virtual", [v])]) or told.why_not
        return published + f"here no ratio is computed: {why}."
    return published + (f"here {told.value:.1f}× of {fmt(ceiling, 1)}× ({_share(told.value, ceiling)}), the virtual "
                        f"row limited by {v.limit} ({v.bottleneck}).")


def _share(value: float, ceiling: float) -> str:
    return "–" if not ceiling or math.isnan(ceiling) or math.isinf(ceiling) else f"{value / ceiling:.0%}"
