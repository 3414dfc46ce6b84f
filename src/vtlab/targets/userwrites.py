"""A request mix's writes, counted (`count:` on an entry, with --db): what landed in the service's fresh database
against the writes k6 saw succeed. Before a row's load (after its preflight and any pre-warm, which write too) and
after it, each entry's query is run in the JVM's database; the rows it gained must equal the successful requests of
the entries that name that query, over the whole of the row's k6 run. A paired point's arm is counted over the
point: its k6 runs across all its blocks. The columns are those of vtlab's own write workload (writes-mismatch)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable

from vtlab.rig.postgres import Postgres
from vtlab.series import store
from vtlab.targets.requestmix import Mix
from vtlab.targets.userservice import TargetError

NOT_CHECKED = {"writes_ok": "", "rows_inserted": "", "writes_acknowledged": "", "writes_lost": ""}


def queries(mix: Mix | None) -> tuple[str, ...]:
    """The mix's count queries, each once."""
    return tuple(dict.fromkeys(entry.count for entry in mix.entries if entry.count)) if mix else ()


def count(pg: Postgres, database: str, asked: tuple[str, ...]) -> dict[str, int]:
    """Each query's count in `database`; TargetError (exit 3) naming the query where PostgreSQL refuses it or it
    answers no whole number."""
    counted = {}
    for query in asked:
        try:
            answer = pg.query(query, database)
            counted[query] = int(answer)
        except subprocess.CalledProcessError as err:
            raise TargetError(f"the mix's count query {query!r} failed in the service's database: "
                              f"{(err.stderr or '').strip()[:300]}") from None
        except ValueError:
            raise TargetError(f"the mix's count query {query!r} answered {answer!r}, not one whole number") from None
    return counted


def columns(mix: Mix, before: dict[str, int], after: dict[str, int],
            requests: Iterable[store.Request]) -> dict[str, object]:
    """writes_ok (every query gained what its entries wrote), the rows gained, the writes k6 saw succeed and those
    the database does not hold."""
    succeeded: dict[str, int] = {}
    for request in requests:
        if request.ok and request.entry:
            succeeded[request.entry] = succeeded.get(request.entry, 0) + 1
    gained = acknowledged = 0
    every_query_matches = True
    for query in before:
        written = sum(succeeded.get(entry.name, 0) for entry in mix.entries if entry.count == query)
        rows = after[query] - before[query]
        every_query_matches &= rows == written
        gained, acknowledged = gained + rows, acknowledged + written
    return {"writes_ok": every_query_matches, "rows_inserted": gained, "writes_acknowledged": acknowledged,
            "writes_lost": max(0, acknowledged - gained)}
