"""The answer, scenario by scenario, for the report's first screen: virtual ÷ platform with the range both intervals
allow (valid lines only, report.ratio), each thread mode's wall in words, and the lines that are not valid set
apart with their flags. Built from the headline's pairs, so the first screen and the headline table never differ.

The first screen tells SHOWN answers in full, the plain service's first, those with a ratio before those without;
every other scenario is folded under one line that counts them, so a run of many scenarios still shows the main
chart above the fold of a 1280×800 window."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from vtlab.core import dimensions
from vtlab.core.aafloor import Floor as AAFloor
from vtlab.explain.model import Aggregate, PairedPoint, Verdict
from vtlab.explain.queues import pinned_carriers_wall
from vtlab.explain.validity import IN_A_PAIR, invalidating
from vtlab.report import paired, ratio, validrows
from vtlab.report.document import Answer, HeadlineLine
from vtlab.report.labels import fmt, load_of

MODES = ("platform", "virtual")
# Answers told in full on the first screen: one row of its grid at 1280 px (two answers of 440 px or more side by
# side), so that the answers above the main chart take the same height however many scenarios the run measured.
SHOWN = 2


def answers(lines: Sequence[HeadlineLine], points: Sequence[PairedPoint] = (),
            floor: AAFloor | None = None) -> list[Answer]:
    """One answer per scenario of the headline, in its order, a scenario's open-model lines their own; all but the
    first screen's SHOWN are folded. A paired run's `points` answer in place of the ratio of two aggregates, each
    said to lie within the machine's A/A `floor` where it does; an A/A's answer is each point's false difference, a
    before/after's its change."""
    if points and points[0].arms.aa:
        return _placed(paired.aa_answers(points))
    if points and points[0].arms.versus:
        return _placed(paired.versus_answers(points, floor))
    groups: dict[str, list[HeadlineLine]] = {}
    for line in lines:
        groups.setdefault(_scenario(line), []).append(line)
    by_point = paired.by_point(points)
    return _placed([_answer(scenario, group, by_point, floor) for scenario, group in groups.items()])


def _placed(told: Sequence[Answer]) -> list[Answer]:
    """The plain service's answers with a ratio first, then its others, in the headline's order; a variant's is
    always folded (its section tells it)."""
    ranked = sorted(range(len(told)), key=lambda i: (not told[i].main, not told[i].has_ratio, i))
    shown = {i for i in ranked[:SHOWN] if told[i].main}
    return [replace(answer, folded=i not in shown) for i, answer in enumerate(told)]


def folded_line(told: Sequence[Answer]) -> str:
    """The fold's one line: "17 more scenarios: 7 with a ratio, 10 without one; 5 with rows set apart, not valid";
    one alone, "1 more scenario, with no ratio"; "more" only where an answer is shown above it; "" where nothing is
    folded."""
    folded = [answer for answer in told if answer.folded]
    if not folded:
        return ""
    with_ratio = sum(answer.has_ratio for answer in folded)
    apart = sum(bool(answer.apart) for answer in folded)
    more = "more " if len(folded) < len(told) else ""
    if len(folded) == 1:
        return (f"1 {more}scenario, with {'a' if with_ratio else 'no'} ratio"
                + ("; its rows set apart, not valid" if apart else ""))
    counts = [f"{with_ratio} with a ratio", f"{len(folded) - with_ratio} without one"]
    return (f"{len(folded)} {more}scenarios: " + ", ".join(counts)
            + (f"; {apart} with rows set apart, not valid" if apart else ""))


# A capacity search's ratio at a load both modes were measured at: its first point, as a rule, which says nothing of
# capacity (both modes carry a load far below their walls alike).
SEARCH_POINT = (" — at the highest load both searches measured, a point of the search, not its answer: the capacity "
                "ratio is the section above's")


def in_a_search(told: Sequence[Answer]) -> list[Answer]:
    """A capacity run's answers, each ratio at a common load said for what it is (SEARCH_POINT)."""
    return [replace(answer, ratio=answer.ratio + SEARCH_POINT) if answer.has_ratio else answer for answer in told]


def _scenario(line: HeadlineLine) -> str:
    either = line.platform or line.virtual
    return line.scenario + (", open model" if either and either.row.load_model == "open" else "")


def _answer(scenario: str, group: Sequence[HeadlineLine], points: Mapping[tuple[str, ...], PairedPoint],
            floor: AAFloor | None) -> Answer:
    by_mode = {mode: [a for line in group if (a := getattr(line, mode))] for mode in MODES}
    row = (group[0].platform or group[0].virtual).row  # type: ignore[union-attr]  # a line holds a mode at least
    words, has_ratio = _paired_ratio(group, points, floor) if points else _ratio(group)
    return Answer(scenario, words, tuple(_wall(mode, by_mode[mode]) for mode in MODES if by_mode[mode]),
                  tuple(_apart(a) for line in group for mode in MODES
                        if (a := getattr(line, mode)) and not a.valid),
                  main=row.workload == "order-summary" and not dimensions.is_variant(row), has_ratio=has_ratio)


def _ratio(group: Sequence[HeadlineLine]) -> tuple[str, bool]:
    """At the highest load both modes answer validly; where none does, why not at the highest load measured. With
    whether a ratio was computed."""
    told = [(line, ratio.between(line.platform, line.virtual)) for line in group]
    computed = [(line, r) for line, r in told if r.computed]
    line, chosen = (computed or told)[-1]
    where = load_words(line.platform or line.virtual)
    if not chosen.computed:
        return f"at {where}: {chosen.text()}", False
    return f"virtual ÷ platform at {where}: {chosen.text()}", True


def _paired_ratio(group: Sequence[HeadlineLine], points: Mapping[tuple[str, ...], PairedPoint],
                  floor: AAFloor | None) -> tuple[str, bool]:
    """A paired run's: at the highest load whose paired ratio was computed, said to lie within the machine's A/A
    `floor` where it does; where none was, why not at the highest load measured; the ratio of two aggregates only
    where no point of the group was paired."""
    told = [point for line in group if (point := paired.of_line(points, (line.platform or line.virtual).row))]
    if not told:
        return _ratio(group)
    computed = [point for point in told if point.computed]
    chosen = (computed or told)[-1]
    within = (f" — within this machine's A/A floor (±{floor.share:.1%}): no larger than two identical JVMs' false "
              "difference" if paired.within_floor(chosen, floor) else "")
    return paired.answer_ratio(chosen) + within, chosen.computed


def load_words(line: Aggregate | Verdict | None) -> str:
    """ "1,000 users", "150/s offered"."""
    return "–" if line is None else load_of(line.row)


def _wall(mode: str, lines: Sequence[Aggregate]) -> str:
    """Where the mode's best valid line stood and what held it, with the ceiling the analysis predicted, and how many
    of its blocks stand only as their pairs do (explain.pairs.standing)."""
    valid = validrows.valid(lines)
    if not valid:
        return f"{mode} threads: {validrows.none_valid(mode, lines, load_words)}"
    best = _top_of_plateau(valid)
    predicted = "" if math.isnan(best.ceiling_rps) else f"; predicted ceiling {fmt(best.ceiling_rps)} req/s"
    return (f"{mode} threads: {fmt(best.throughput_median, 1)} req/s at {load_words(best)}, "
            f"held by {wall_words(best)} ({best.bottleneck}{predicted}){_in_pairs(best)}")


def _top_of_plateau(valid: Sequence[Aggregate]) -> Aggregate:
    """The mode's line to tell: its best, or where lines at higher loads served as much within the intervals, the
    highest of them. A plateau is a wall, and its top names it; its foot, a load too small to reach it (pc1,
    2026-12-02: 209 req/s at 10 users "held by the users themselves", 206 at 100 and 400 held by a pool of 10)."""
    best = max(valid, key=lambda a: a.throughput_median)
    level = [a for a in valid if a.interval_high >= best.throughput_median or a.throughput_median >= best.interval_low]
    return max(level, key=lambda a: (_load(a), a.throughput_median))


def _load(line: Aggregate) -> float:
    return float(line.row.target_rps if line.row.load_model == "open" else line.row.concurrency)


def _in_pairs(line: Aggregate) -> str:
    """ ", 2 of its 3 blocks flagged for the machine's moving (hypervisor-steal;too-noisy), counted in their pairs"
    (hero, 2026-11-28: 5.72× paired while every platform block was noisy-neighbour); "" where no block needed its
    pair to stand."""
    stood = [member for member in line.members if IN_A_PAIR in member.flags]
    if not stood:
        return ""
    flags = ";".join(dict.fromkeys(flag for member in stood for flag in invalidating(member.flags)))
    return (f", {len(stood)} of its {len(line.members)} blocks flagged for the machine's moving ({flags}), counted "
            "in their pairs")


def wall_words(line: Aggregate) -> str:
    """A bottleneck's name in words, with the row's own sizes where the wall has one."""
    row = line.row
    carriers = line.line.measured.vt_parallelism
    if pinned_carriers_wall(row, line.bottleneck) and carriers > 0:
        return f"its {fmt(carriers)} carrier threads, each request pinning one"
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
