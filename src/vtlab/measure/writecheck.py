"""The write workload's bookkeeping: nothing lost, nothing doubled.

k6 counts every write it saw acknowledged (HTTP 201) over the whole run; afterwards the database
is asked how many written rows it holds. The two must be equal. More rows than acknowledgements
is a write the client never heard back about (e.g. a timeout after the commit); fewer is a lost
write: an acknowledged order the database does not have.
"""

from __future__ import annotations


def compare(acknowledged: int, inserted: int) -> dict[str, object]:
    return {"writes_ok": acknowledged == inserted, "rows_inserted": inserted,
            "writes_acknowledged": acknowledged, "writes_lost": max(0, acknowledged - inserted)}
