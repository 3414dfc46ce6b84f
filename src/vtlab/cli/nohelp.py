"""`vtlab advise --try`'s memory of what did not help: a try of one setting that did not help kept on this machine at
each point it judged (plan.triedcache, core.triedbefore), so that a later run's advice does not suggest it there
again."""

from __future__ import annotations

import datetime
import sys
from collections.abc import Callable
from pathlib import Path

from vtlab.compare import tried
from vtlab.compare.stats import SAME, WORSE
from vtlab.core import cores
from vtlab.core.triedbefore import NotHelped, point_of
from vtlab.plan import tries, triedcache
from vtlab.report.labels import load_of, scenario_label


def keep(out: Path, attempt: tries.Try, outcomes: list[tried.Outcome], label: Callable[[object], str]) -> None:
    """A try of one setting that did not help (`out` its run folder), kept at each point it judged the same or worse;
    what was kept said."""
    flag, value = attempt.settings[0]
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    kept = [NotHelped(now, str(out), flag, str(value), point_of(o.line.row),
                      f"{scenario_label(o.line.row)}, {label(o.line.row)} at {load_of(o.line.row)}",
                      tried.sentence(attempt.words(), o, label))
            for o in outcomes if o.change is not None and not o.why and o.change.verdict in (SAME, WORSE)]
    try:
        triedcache.add(len(cores.available()), kept)
    except OSError as err:
        print(f"vtlab advise: not kept for later runs ({err})", file=sys.stderr)
        return
    if kept:
        print(f"vtlab advise: {attempt.words()} kept as no help at {len(kept)} point(s): later runs on this machine "
              "do not suggest it there")
