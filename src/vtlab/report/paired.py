"""A paired run told (explain.pairs): each point's answer is its paired ratio, said on the first screen in place of
the ratio of two aggregates (report.answer), and a section with every pair of blocks, their order and which counted.
An A/A's answer is the false difference it found: what "no difference" measures on this machine today; a
before/after's (--vs), the change from one jar to the other and whether the interval shows one."""

from __future__ import annotations

from collections.abc import Sequence

from vtlab.core.aafloor import Floor as AAFloor
from vtlab.core.arms import Arms, point_key
from vtlab.explain import pairs
from vtlab.explain.model import Analysis, PairedPoint
from vtlab.report.document import Answer
from vtlab.report.labels import fmt, load_of, scenario_label
from vtlab.report.scenarios.common import Section

TITLE = "Measured as one: the paired design"
COLUMNS = [("point", "point"), ("block", "block"), ("order", "order"), ("a", "arm a req/s"),
           ("b", "arm b req/s"), ("ratio", "b ÷ a"), ("k6", "k6 CPU a request, ms (a / b)"), ("counted", "counted")]


def arm_names(arms: Arms) -> tuple[str, str]:
    """ "platform", "virtual"; an A/A's "virtual (arm a)", "virtual (arm b)"; a before/after's "old.jar (virtual)"
    (arm a, the --service jar), "new.jar (virtual)" (arm b, the --vs jar)."""
    if arms.versus:
        return f"{arms.versus[0]} ({arms.a})", f"{arms.versus[1]} ({arms.b})"
    return (f"{arms.a} (arm a)", f"{arms.b} (arm b)") if arms.aa else (arms.a, arms.b)


def ratio_words(point: PairedPoint) -> str:
    """ "4.97× [4.91–5.03] paired, 4 pairs"; "4.97× paired, 1 pair (no interval)"; "no ratio: …"."""
    if not point.computed:
        return f"no ratio: {point.why_not}"
    counted = len(point.counted)
    many = f"{counted} pair{'' if counted == 1 else 's'}"
    if counted < 2:
        return f"{point.ratio:.2f}× paired, {many} (no interval: one ratio has no spread)"
    return f"{point.ratio:.2f}× [{point.low:.2f}–{point.high:.2f}] paired, {many}"


def answer_ratio(point: PairedPoint) -> str:
    """The first screen's ratio of a paired point: "virtual ÷ platform at 1,000 users: 4.97× [4.91–5.03] paired, 4
    pairs"."""
    a, b = arm_names(point.arms)
    return f"{b} ÷ {a} at {load_of(point.row)}: {ratio_words(point)}"


def by_point(points: Sequence[PairedPoint]) -> dict[tuple[str, ...], PairedPoint]:
    """Each point's answer by its key (core.arms.point_key: every key dimension but the arm's and the block)."""
    return {point_key(point.row): point for point in points}


def of_line(paired: dict[tuple[str, ...], PairedPoint], row: object) -> PairedPoint | None:
    """The paired point a headline line (any arm's row) belongs to."""
    return paired.get(point_key(row))


def aa_answers(points: Sequence[PairedPoint]) -> list[Answer]:
    """An A/A run's first screen: each point's false difference, and whether its interval holds 1.00×."""
    told = []
    for point in points:
        held = ("holds 1.00×: no difference shown, as there is none" if point.computed and point.contains_one
                else "does not hold 1.00×: this design calls two identical JVMs different here"
                if point.computed and len(point.counted) >= 2 else "")
        told.append(Answer(f"A/A, {scenario_label(point.row)}", answer_ratio(point),
                           tuple(line for line in (f"the interval {held}" if held else "",
                                                   _floor(point)) if line),
                           has_ratio=point.computed))
    return told


def versus_answers(points: Sequence[PairedPoint], floor: AAFloor | None = None) -> list[Answer]:
    """A before/after's first screen (--vs): each point's change from arm a's jar to arm b's, and whether its interval
    shows one, beyond the machine's A/A `floor` too."""
    told = []
    for point in points:
        a, b = point.arms.versus
        shown = ""
        if point.computed and len(point.counted) >= 2:
            shown = (f"no change shown: the interval holds 1.00× ({b} serves as {a} does, within it)"
                     if point.contains_one else
                     f"no change shown beyond this machine's A/A floor (±{floor.share:.1%}): the ratio is no farther "
                     "from 1.00× than two identical JVMs' have been here" if within_floor(point, floor) else
                     f"{b} serves {abs(point.ratio - 1):.1%} {'more' if point.ratio > 1 else 'less'} than {a}: the "
                     "interval lies wholly " + ("above" if point.low > 1 else "below") + " 1.00×")
        told.append(Answer(f"{b} against {a}, {scenario_label(point.row)}", answer_ratio(point),
                           tuple(line for line in (shown, _floor(point)) if line), has_ratio=point.computed))
    return told


def _floor(point: PairedPoint) -> str:
    share = point.half_width_share()
    return "" if share != share else f"its interval spans ±{share * 100:.1f}% of the ratio"


def within_floor(point: PairedPoint, floor: AAFloor | None) -> bool:
    """Whether a difference the point's interval shows (it excludes 1.00×) is no larger than the machine's A/A floor
    (core.aafloor): its ratio no farther from 1.00× than two identical JVMs' have been here. False where it has no
    interval, the interval holds 1.00× (it shows no difference to begin with) or the machine measured no A/A."""
    return (floor is not None and point.computed and len(point.counted) >= 2 and not point.contains_one
            and floor.holds(point.ratio))


def floor_words(floor: AAFloor | None, points: Sequence[PairedPoint]) -> list[str]:
    """This machine's A/A floor, as the run was planned with it, and which answers lie within it; nothing for a run
    that did not look for one (before it was recorded, an A/A's own)."""
    if floor is None or points[0].arms.aa:
        return []
    if not floor.known:
        return ["No A/A has been measured on this machine yet, so each answer stands on its own interval alone: the "
                "pairs' spread cannot see a difference the two JVMs would show with nothing to find. `vtlab run --aa "
                "virtual --conc 1000 --conn-mode released` measures one (~3 min); later paired runs here are told "
                "against it."]
    widest, low, high = floor.widest, *floor.band()
    told = (f"This machine's A/A floor is ±{floor.share:.1%}: the widest false difference of the "
            f"{len(floor.measured)} A/A point(s) it keeps ({widest.point}: {widest.ratio:.2f}× "
            f"[{widest.low:.2f}–{widest.high:.2f}], {widest.measured_at[:16].replace('T', ' ')} UTC), "
            f"{floor.held_one} of them holding 1.00×. A difference whose ratio lies within {low:.3f}–{high:.3f}× "
            "is no larger than the design's own.")
    inside = [f"{scenario_label(point.row)}, {load_of(point.row)} ({point.ratio:.2f}× [{point.low:.2f}–"
              f"{point.high:.2f}])" for point in points if within_floor(point, floor)]
    told += (" Within it, though each interval excludes 1.00×: " + "; ".join(inside) + "." if inside else
             " No answer whose interval excludes 1.00× lies within it.")
    return [told]


def _how_blocks_ran(points: Sequence[PairedPoint]) -> list[str]:
    """How the blocks were loaded: turns of one k6 per arm, or each a k6 run of its own (a point that could not take
    turns: the open model, a shaped or a write load, several runners, a resumed point's last block)."""
    in_turns = [point for point in points if point.in_turns]
    if not in_turns:
        return ["Each block was a k6 run of its own: a ramp, a warm-up and a cool-down beside its hold."]
    told = ("Each arm's users ran in one k6 for the whole point, its connections kept; a block was its arm's turn: "
            "the users' first requests spread over one request's wait, a settle, the hold. The other arm's turn began "
            "as one ended, its hold only once the ended arm's last requests had drained; where an arm's next block "
            "followed its own, its turn went on into it.")
    if len(in_turns) < len(points):
        told += " " + "; ".join(f"{scenario_label(point.row)}, {load_of(point.row)}" for point in points
                                if not point.in_turns) + ": each block a k6 run of its own."
    return [told]


def section(analysis: Analysis) -> Section | None:
    """The design in words, each point's answer and the pairs left out with why, and every pair in a table; None
    for a run not paired."""
    points = analysis.paired
    if not points:
        return None
    a, b = arm_names(points[0].arms)
    blocks = max(pair.block for point in points for pair in point.pairs)
    told = [f"Both arms ({a} and {b}) ran on warm JVMs of their own, up together for the run; each point was measured "
            f"in {blocks} blocks of each arm taken in turn, each pair's order from balanced couples (AB BA or BA AB) "
            "drawn at random (the seed is in metadata.json). A pair's two blocks see the machine nearly alike, and a "
            "couple's opposite orders cancel what a steady drift moves one block more than the other; the interval is "
            "the 95% interval of the pairs' geometric mean (Student t over their log ratios).",
            *_how_blocks_ran(points), *floor_words(analysis.aa_floor, points)]
    for point in points:
        out = [pair for pair in point.pairs if pair.why_out]
        left = ("; left out: " + "; ".join(f"block {pair.block} ({pair.why_out})" for pair in out)) if out else ""
        told.append(f"{scenario_label(point.row)}, {answer_ratio(point)}{left}.")
        more = more_pairs(point, analysis.aa_floor)
        if more:
            told.append(more)
        moved = machine_moved(point)
        if moved:
            told.append(moved)
    lines = [{"point": f"{scenario_label(point.row)}, {load_of(point.row)}", "block": str(pair.block),
              "order": pair.order.upper(), "a": fmt(pair.a_rps, 1), "b": fmt(pair.b_rps, 1),
              "ratio": "–" if pair.ratio != pair.ratio else f"{pair.ratio:.3f}",
              "k6": f"{fmt(pair.a_k6_ms, 3)} / {fmt(pair.b_k6_ms, 3)}",
              "counted": "yes" if not pair.why_out else f"no: {pair.why_out}"}
             for point in points for pair in point.pairs]
    return Section("paired", TITLE, told, lines, columns=COLUMNS)


def more_pairs(point: PairedPoint, floor: AAFloor | None) -> str:
    """Where a point's interval holds 1.00× beside a ratio away from it, about how many pairs at its pairs' spread would
    tell the two apart (explain.pairs.pairs_to_tell), as `--blocks` a whole number of couples (AB BA: a drift's linear
    part cancels over a couple), and where the machine has no A/A floor, that none says whether the difference is more
    than the design's own; "" where that is no question."""
    needed = pairs.pairs_to_tell(point, floor.holds if floor is not None else None)
    if needed is None:
        return ""
    most = pairs.most_pairs(point)
    if needed > most:
        return (f"Its interval holds 1.00×, and at its pairs' spread not even {most} pairs would tell "
                f"{point.ratio:.2f}× from it: the pairs differ far more than the arms do.")
    blocks = needed + needed % 2
    told = (f"Its interval holds 1.00×; at its pairs' spread about {needed} counted pairs (`--blocks {blocks}`) would "
            f"tell {point.ratio:.2f}× from 1.00× about half the time: the count where the ratio and the spread as they "
            "came out would just do so.")
    if floor is None or not floor.known:  # a small difference may be the design's own, which only an A/A measures
        told += (f" No A/A measured on this machine says whether a difference of {abs(point.ratio - 1):.1%} is more "
                 "than the design's own.")
    return told


def machine_moved(point: PairedPoint) -> str:
    """How far the host's speed moved under the point's blocks — by the fixed work's CPU time (measure.hostwork), the
    same work under both arms' blocks, where measured; else by k6's CPU per request (the same work in every block of an
    arm) — beside how far the arms' throughputs and the counted pairs' ratios moved: each max ÷ min − 1. "" where
    fewer than two blocks of an arm were measured."""
    def spread(values: list[float]) -> float:
        found = [value for value in values if value > 0]
        return max(found) / min(found) - 1 if len(found) > 1 else float("nan")

    def either(a: list[float], b: list[float]) -> float:  # the larger arm's spread, an unmeasured arm's left aside
        known = [value for value in (spread(a), spread(b)) if value == value]
        return max(known, default=float("nan"))
    k6 = either([pair.a_k6_ms for pair in point.pairs], [pair.b_k6_ms for pair in point.pairs])
    rps = either([pair.a_rps for pair in point.pairs], [pair.b_rps for pair in point.pairs])
    host = spread([us for pair in point.pairs for us in (pair.a_host_us, pair.b_host_us)])
    if rps != rps or (k6 != k6 and host != host):
        return ""
    ratios = spread([pair.ratio for pair in point.counted])
    moved = f", the counted pairs' ratios {ratios:.1%}" if ratios == ratios else ""
    if host != host:
        return (f"Under its blocks k6's CPU per request, the host's speed index, moved up to {k6:.1%} within an "
                f"arm, an arm's throughput up to {rps:.1%}{moved} (each the largest ÷ the smallest − 1).")
    apart = [max(pair.a_host_us, pair.b_host_us) / min(pair.a_host_us, pair.b_host_us) - 1 for pair in point.pairs
             if pair.a_host_us > 0 and pair.b_host_us > 0]
    alike = (f"; a pair's two blocks saw the host within {max(apart):.1%} of each other (the least alike)"
             if apart else "")
    beside = f", k6's CPU per request up to {k6:.1%} within an arm" if k6 == k6 else ""
    return (f"Under its blocks the host's speed (a fixed work's CPU time) moved up to {host:.1%}{beside}, an arm's "
            f"throughput up to {rps:.1%}{moved} (each the largest ÷ the smallest − 1){alike}.")
