"""Before you flip, told (explain.advice): for each scenario and mode whose wall is a setting, the setting as it ran,
the size that carries what the users ask and the ceiling then predicted, the flag to try and the limit it meets; a
CPU wall's cores; what no setting fixes; why a line gets no advice; and a user's jar's JDBC driver, pool and HTTP
client against what their projects say of virtual threads (explain.libraries)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from vtlab.explain.libraries import Library
from vtlab.explain.libraries import sentence as told_library
from vtlab.explain.model import Advice
from vtlab.report.answer import WALL_WORDS
from vtlab.report.labels import JDK_DEFAULT, fmt, load_of, scenario_label
from vtlab.report.scenarios.common import Section
from vtlab.results import triedfile

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
    if advice.wall == "pinning":
        # the JDK said even where it is the default: JEP 491 makes it the pin's whole story
        where += "" if advice.row.jdk != JDK_DEFAULT else f" on JDK {advice.row.jdk}"
        return (f"{where}: pinned at {advice.setting} ({_KIND_WORDS.get(advice.pin_kind, advice.pin_kind)}) "
                f"{fmt(advice.value)} times, {fmt(advice.pinned_ms)} ms in all, at most {fmt(advice.longest_ms)} ms; "
                f"{advice.shape}" + (f"; {_to_try(advice)}" if advice.flag else "") + ".")
    asking = "its arrivals ask" if getattr(advice.row, "load_model", "") == "open" else "its users ask"
    said = (f"{where}: held by its {advice.setting} ({fmt(advice.value)}); {asking} "
            f"{fmt(advice.asked_rps)} req/s, which {fmt(advice.needed)} carry, and then {_next(advice)} would hold it "
            f"at {fmt(advice.predicted_rps)} req/s{_enough(advice, ', which {} carry')}; {_to_try(advice)}")
    return said + "".join(f"; {extra}" for extra in (advice.beyond, advice.shape) if extra) + "."


def _enough(advice: Advice, words: str) -> str:
    """The size that carries the next wall's rate, in `words`, where it is smaller than the users' own; else ""."""
    return words.format(fmt(advice.enough)) if advice.enough < advice.needed else ""


def _to_try(advice: Advice) -> str:
    """ "try --pools 100"; where a try on this machine found that flag no help at this point (core.triedbefore), that
    try said instead, and nothing to try (report.terminal counts only a "; try --flag")."""
    tried = advice.not_helped
    if tried is None:
        return f"try {advice.flag}"
    return (f"{advice.flag} is not suggested again: {tried.flag} {tried.value} was tried at this point "
            f"({tried.folder}/, {tried.measured_at[:10]}) and did not help")


_KIND_WORDS = {"monitor": "holding a monitor", "monitor-inferred": "holding a monitor, inferred",
               "class-init": "in a class initializer", "native": "under a native frame", "other": "for another reason"}


def _next(advice: Advice) -> str:
    """The wall that would hold the line next, in words."""
    if advice.next_wall == "concurrency":
        return "the offered rate itself" if getattr(advice.row, "load_model", "") == "open" else "the users themselves"
    return WALL_WORDS.get(advice.next_wall, advice.next_wall)


def section(advised: Sequence[Advice], mode: Callable[[object], str], libraries: Sequence[Library] = (),
            run_dir: Path | None = None) -> Section | None:
    """The advice section, each try of it after it (`vtlab advise --try`: the run folder's tries.json), the jar's
    libraries last (explain.libraries); None where no line has any to give or refuse and the jar carries none of the
    libraries told."""
    if not advised and not libraries:
        return None
    tried = triedfile.read(run_dir) if run_dir is not None else ()
    anew = ("each try below re-measured a setting on the points it was advised for" if tried else
            "nothing here was measured anew: `vtlab advise RUN --try` re-measures each setting on its points")
    told = ["Each wall a setting sizes, with the size that carries what the users ask (their number over the service "
            "time; by Little's law the setting scales with the rate it must carry) and the ceiling the next wall would "
            f"then set; only valid rows are advised, and {anew}."] if advised else []
    told += [sentence(advice, mode) for advice in advised]
    for done in tried:
        told.append(f"Tried ({done.folder}/): {done.settings} {done.verdict}"
                    + (": " + " ".join(done.said) if done.said else "."))
    if libraries:
        told.append("The jar's JDBC driver, pool and HTTP client, each against what its own project says of "
                    "virtual threads and what this run saw pinned in its frames:")
        told += [told_library(library) for library in libraries]
    table = [_cells(a, mode) for a in advised]
    return Section("advice", TITLE, told, table, columns=COLUMNS if table else [])


def _cells(a: Advice, mode: Callable[[object], str]) -> dict[str, str]:
    """One line of the advice table."""
    told = {"scenario": f"{scenario_label(a.row)}, {load_of(a.row)}", "mode": mode(a.row), "wall": a.wall,
            "try": (f"{a.flag}: tried, did not help" if a.not_helped is not None else a.flag)
            or ("no setting" if a.wall in ("cpu", "pinning") else "–")}
    if a.why_not:
        return {**told, "now": "–", "needed": "–", "predicted": "–"}
    if a.wall == "pinning":
        return {**told, "now": f"{a.setting}: {fmt(a.value)} pins, {fmt(a.pinned_ms)} ms", "needed": "–",
                "predicted": "–"}
    if a.wall == "cpu":
        return {**told, "now": f"{fmt(a.value)} cores", "needed": f"{a.needed:.1f} cores", "predicted": "–"}
    return {**told, "now": fmt(a.value), "needed": fmt(a.needed) + _enough(a, " ({} to the next wall)"),
            "predicted": f"{fmt(a.predicted_rps)} req/s ({_next(a)})"}
