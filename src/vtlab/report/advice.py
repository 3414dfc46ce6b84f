"""Before you flip, told (explain.advice): for each scenario and mode whose wall is a setting, the setting as it ran,
the size that carries what the users ask and the ceiling then predicted, the flag to try and the limit it meets; a
CPU wall's cores; what no setting fixes; and why a line gets no advice."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vtlab.explain.model import Advice
from vtlab.report.answer import WALL_WORDS
from vtlab.report.labels import fmt, load_of, scenario_label
from vtlab.report.scenarios.common import Section

TITLE = "Before you flip: what to change"
COLUMNS = [("scenario", "scenario"), ("mode", "mode"), ("wall", "wall"), ("now", "setting now"),
           ("needed", "to carry what the users ask"), ("predicted", "then predicted"), ("try", "try")]


def sentence(advice: Advice, mode: Callable[[object], str]) -> str:
    """One line's advice in words."""
    where = f"{scenario_label(advice.row)}, {mode(advice.row)} at {load_of(advice.row)}"
    if advice.why_not:
        return f"{where}: no advice — {advice.why_not}."
    if advice.wall == "cpu":
        return f"{where}: {advice.shape}."
    asking = "its arrivals ask" if getattr(advice.row, "load_model", "") == "open" else "its users ask"
    said = (f"{where}: held by its {advice.setting} ({fmt(advice.value)}); {asking} "
            f"{fmt(advice.asked_rps)} req/s, which {fmt(advice.needed)} carry, and then {_next(advice)} would hold it "
            f"at {fmt(advice.predicted_rps)} req/s; try {advice.flag}")
    return said + "".join(f"; {extra}" for extra in (advice.beyond, advice.shape) if extra) + "."


def _next(advice: Advice) -> str:
    """The wall that would hold the line next, in words."""
    if advice.next_wall == "concurrency":
        return "the offered rate itself" if getattr(advice.row, "load_model", "") == "open" else "the users themselves"
    return WALL_WORDS.get(advice.next_wall, advice.next_wall)


def section(advised: Sequence[Advice], mode: Callable[[object], str]) -> Section | None:
    """The advice section; None where no line has any to give or refuse."""
    if not advised:
        return None
    told = ["Each wall a setting sizes, with the size that carries what the users ask (their number over the service "
            "time; by Little's law the setting scales with the rate it must carry) and the ceiling the next wall would "
            "then set; only valid rows are advised, and nothing here was measured anew: `vtlab compare --service "
            "A.jar --vs B.jar` or a run with the flag shows whether it helps."]
    told += [sentence(advice, mode) for advice in advised]
    table = [{"scenario": f"{scenario_label(a.row)}, {load_of(a.row)}", "mode": mode(a.row), "wall": a.wall,
              "now": "–" if a.why_not else (f"{fmt(a.value)} cores" if a.wall == "cpu" else fmt(a.value)),
              "needed": "–" if a.why_not else (f"{a.needed:.1f} cores" if a.wall == "cpu" else fmt(a.needed)),
              "predicted": "–" if a.why_not or a.wall == "cpu" else f"{fmt(a.predicted_rps)} req/s ({_next(a)})",
              "try": a.flag or ("no setting" if a.wall == "cpu" else "–")} for a in advised]
    return Section("advice", TITLE, told, table, columns=COLUMNS)
