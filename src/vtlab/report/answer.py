"""The answer, scenario by scenario, for the report's first screen: virtual ÷ platform with the range both intervals
allow (valid lines only, report.ratio), each thread mode's wall in words, and the lines that are not valid set
apart with their flags. Built from the headline's pairs, so the first screen and the headline table never differ."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vtlab.core import dimensions
from vtlab.explain.model import Aggregate, Verdict
from vtlab.report import ratio, validrows
from vtlab.report.document import Answer, HeadlineLine
from vtlab.report.labels import fmt

MODES = ("platform", "virtual")


def answers(lines: Sequence[HeadlineLine]) -> list[Answer]:
    """One answer per scenario of the headline, in its order; a scenario's open-model lines are their own."""
    groups: dict[str, list[HeadlineLine]] = {}
    for line in lines:
        groups.setdefault(_scenario(line), []).append(line)
    return [_answer(scenario, group) for scenario, group in groups.items()]


def _scenario(line: HeadlineLine) -> str:
    either = line.platform or line.virtual
    return line.scenario + (", open model" if either and either.row.load_model == "open" else "")


def _answer(scenario: str, group: Sequence[HeadlineLine]) -> Answer:
    by_mode = {mode: [a for line in group if (a := getattr(line, mode))] for mode in MODES}
    row = (group[0].platform or group[0].virtual).row  # type: ignore[union-attr]  # a line holds a mode at least
    return Answer(scenario, _ratio(group), tuple(_wall(mode, by_mode[mode]) for mode in MODES if by_mode[mode]),
                  tuple(_apart(a) for line in group for mode in MODES
                        if (a := getattr(line, mode)) and not a.valid),
                  main=row.workload == "order-summary" and not dimensions.is_variant(row))


def _ratio(group: Sequence[HeadlineLine]) -> str:
    """At the highest load both modes answer validly; where none does, why not at the highest load measured."""
    told = [(line, ratio.between(line.platform, line.virtual)) for line in group]
    computed = [(line, r) for line, r in told if r.computed]
    line, chosen = (computed or told)[-1]
    where = load_words(line.platform or line.virtual)
    if not chosen.computed:
        return f"at {where}: {chosen.text()}"
    return f"virtual ÷ platform at {where}: {chosen.text()}"


def load_words(line: Aggregate | Verdict | None) -> str:
    """ "1,000 users", "150/s offered"."""
    if line is None:
        return "–"
    row = line.row
    return f"{fmt(row.target_rps)}/s offered" if row.load_model == "open" else f"{fmt(row.concurrency)} users"


def _wall(mode: str, lines: Sequence[Aggregate]) -> str:
    """Where the mode's best valid line stood and what held it, with the ceiling the analysis predicted."""
    valid = validrows.valid(lines)
    if not valid:
        return f"{mode} threads: {validrows.none_valid(mode, lines, load_words)}"
    best = max(valid, key=lambda a: a.throughput_median)
    predicted = "" if math.isnan(best.ceiling_rps) else f"; predicted ceiling {fmt(best.ceiling_rps)} req/s"
    return (f"{mode} threads: {fmt(best.throughput_median, 1)} req/s at {load_words(best)}, "
            f"held by {wall_words(best)} ({best.bottleneck}{predicted})")


def wall_words(line: Aggregate) -> str:
    """A bottleneck's name in words, with the row's own sizes where the wall has one."""
    row = line.row
    if line.bottleneck == "thread-pool" and row.tomcat_max_threads > 0:
        return f"the server's {fmt(row.tomcat_max_threads)} request threads"
    if line.bottleneck == "connection-pool" and row.hikari_pool > 0:
        return f"the {fmt(row.hikari_pool)}-connection pool"
    return WALL_WORDS.get(line.bottleneck, line.bottleneck)


WALL_WORDS = {"thread-pool": "the server's request threads", "connection-pool": "the connection pool",
              "cpu": "the CPU", "downstream": "the users themselves, each waiting on the downstream call",
              "users": "the users themselves", "client-pool": "the downstream client's connection pool",
              "connection-limit": "the connections the service can hold at once", "gc": "garbage collection",
              "overload": "overload (borrows timing out)", "failures": "failed requests",
              "load-generator": "the load generator", "stall": "a stall of the service",
              "out-of-memory": "the heap running out", "vu-cap": "k6's cap on users",
              "unexplained": "no wall the measurements name"}


def _apart(line: Aggregate) -> str:
    """ "platform 400 users: too-noisy — 198.8 req/s, figures from invalid rows, not an answer"."""
    return (f"{line.row.thread_mode} {load_words(line)}: {validrows.reasons(line)} — "
            f"{fmt(ratio.told_rps(line), 1)} req/s, {validrows.APART}")
