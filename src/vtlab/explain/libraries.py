"""The jar's libraries told against the rows (core.libraries): for each JDBC driver, pool or HTTP client the user's jar
carries, whether its version is one its own project made virtual-thread friendly (its synchronized around I/O
replaced), and whether the run saw a virtual thread pinned in its frames — on which JDK, how often — or ran no virtual
row where a monitor pins (a JDK before 24), so that nothing could be seen. The measured form of the migration
checklist's "update the JDBC driver"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vtlab.core.arms import Arms, arm_of
from vtlab.core.libraries import BY_ARTIFACT, version_key
from vtlab.explain.model import Verdict
from vtlab.explain.queues import JEP491_JDK
from vtlab.results import cells


@dataclass(frozen=True)
class Library:
    artifact: str
    version: str
    what: str
    friendly: bool | None          # its version replaced synchronized around I/O (None: no version of it has)
    friendly_from: str
    source: str
    pins: tuple[tuple[int, str, int, float], ...]  # (JDK, what held the carrier, events, ms pinned) in its frames
    looked_on: tuple[int, ...]     # the JDKs before 24 its virtual rows ran on: where a pin of its could be seen
    jar: str = ""                  # whose (a before/after's jar); "": the run's one jar


def of_run(libraries: Sequence[tuple[str, str]], vs_libraries: Sequence[tuple[str, str]], verdicts: Sequence[Verdict],
           arms: Arms | None) -> tuple[Library, ...]:
    """The run's jar's libraries against its rows; a before/after's (`arms` with its jars, `vs_libraries` the --vs
    jar's) each jar's against its own arm's rows: the pins one jar's driver showed are never the other's."""
    if arms is None or not arms.versus:
        return told(libraries, verdicts)

    def of_arm(arm: str) -> list[Verdict]:
        return [verdict for verdict in verdicts if arm_of(verdict.row, arms) == arm]
    return (*told(libraries, of_arm("a"), arms.versus[0]), *told(vs_libraries, of_arm("b"), arms.versus[1]))


def told(libraries: Sequence[tuple[str, str]], verdicts: Sequence[Verdict], jar: str = "") -> tuple[Library, ...]:
    """Each known library of the jar with what its version and its rows (`verdicts`: the rows of that jar) say of
    it."""
    virtual = [v for v in verdicts if not v.failed and v.row.thread_mode == "virtual"]
    looked_on = tuple(sorted({v.row.jdk for v in virtual if v.row.jdk < JEP491_JDK}))
    found = []
    for artifact, version in libraries:
        known = BY_ARTIFACT.get(artifact)
        if known is None:
            continue
        friendly = (version_key(version) >= version_key(known.friendly_from)) if known.friendly_from else None
        seen: dict[tuple[int, str], list[float]] = {}
        for verdict in virtual:
            for frame, kind, count, total_ms, _ in cells.parse_frames(verdict.measured.pinned_frames):
                if frame.startswith(known.packages):
                    figures = seen.setdefault((verdict.row.jdk, kind), [0, 0.0])
                    figures[0] += count
                    figures[1] += total_ms
        found.append(Library(artifact, version, known.what, friendly, known.friendly_from, known.source,
                             tuple((jdk, kind, int(count), total)
                                   for (jdk, kind), (count, total) in sorted(seen.items())), looked_on, jar))
    return tuple(found)


# What held the carrier, as measure.jfr names it
HELD = {"monitor": "holding a monitor", "monitor-inferred": "holding a monitor (inferred: JDK 21 names no reason)",
        "class-init": "in a class initializer", "native": "under a native frame", "other": "for another reason"}


def sentence(library: Library) -> str:
    """ "PostgreSQL's JDBC driver (postgresql 42.5.1): before 42.6.0, whose release notes …; pinned in its frames 12
    times (840 ms) on JDK 21, holding a monitor …"."""
    name = (f"{library.jar}: " if library.jar else "") + f"{library.what} ({library.artifact} {library.version})"
    if library.friendly is None:
        version = f"no version of it replaced its synchronized ({library.source})"
    elif library.friendly:
        version = f"{library.friendly_from} or later: it replaced its synchronized around I/O ({library.source})"
    else:
        version = (f"before {library.friendly_from}: its synchronized around I/O pins a virtual thread's carrier on "
                   f"JDK 21–23 ({library.source}); updating it removes that")
    if library.pins:
        seen = "; pinned in its frames " + ", ".join(
            f"{count:,} times ({total:,.0f} ms) on JDK {jdk}, {HELD.get(kind, kind)}"
            for jdk, kind, count, total in library.pins)
    elif library.looked_on:
        seen = "; no pin seen in its frames on JDK " + ", ".join(str(jdk) for jdk in library.looked_on) + \
               " (among each row's five longest-pinning frames)"
    else:
        seen = ("; no virtual row ran on a JDK before 24, where a monitor pins: whether it pins here was not "
                "measured (--jdk 21)")
    return f"{name}: {version}{seen}."
