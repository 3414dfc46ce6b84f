"""A mix's writes counted: the rows each count query gained against the successful requests of the entries that
name it; one query short of its writes flags the row (writes_ok false), a write k6 never saw succeed too."""

from __future__ import annotations

from pathlib import Path

from vtlab.series.store import Request
from vtlab.targets import requestmix, userwrites

MIX = """\
entries:
  - {name: getOwner, method: GET, path: /owners/1}
  - {name: addOwner, method: POST, path: /owners, body: '{}', count: select count(*) from owners}
  - {name: addPet, method: POST, path: /pets, body: '{}', count: select count(*) from pets}
  - {name: addPet2, method: POST, path: /v2/pets, body: '{}', count: select count(*) from pets}
"""


def _mix(tmp_path: Path) -> requestmix.Mix:
    path = tmp_path / "mix.yaml"
    path.write_text(MIX)
    return requestmix.read(path, {})


def _requests(**succeeded: int) -> list[Request]:
    made = [Request(1.0, 1.0, "201", "hold", "a", True, entry) for entry, n in succeeded.items() for _ in range(n)]
    return [*made, Request(1.0, 1.0, "500", "hold", "a", False, "addOwner")]  # a failed write is none


def test_each_query_gains_what_its_entries_wrote(tmp_path):
    mix = _mix(tmp_path)
    assert userwrites.queries(mix) == ("select count(*) from owners", "select count(*) from pets")
    before = {"select count(*) from owners": 10, "select count(*) from pets": 13}
    after = {"select count(*) from owners": 17, "select count(*) from pets": 18}
    requests = _requests(getOwner=40, addOwner=7, addPet=3, addPet2=2)
    assert userwrites.columns(mix, before, after, requests) == {
        "writes_ok": True, "rows_inserted": 12, "writes_acknowledged": 12, "writes_lost": 0}


def test_a_write_the_database_does_not_hold_or_one_k6_never_saw_is_a_mismatch(tmp_path):
    mix = _mix(tmp_path)
    before = {"select count(*) from owners": 10, "select count(*) from pets": 0}
    lost = userwrites.columns(mix, before, {"select count(*) from owners": 16, "select count(*) from pets": 5},
                              _requests(addOwner=7, addPet=5))
    assert lost == {"writes_ok": False, "rows_inserted": 11, "writes_acknowledged": 12, "writes_lost": 1}
    # the totals agree, but owners gained one more and pets one fewer than written: each query is its own check
    crossed = userwrites.columns(mix, before, {"select count(*) from owners": 18, "select count(*) from pets": 4},
                                 _requests(addOwner=7, addPet=5))
    assert crossed["writes_ok"] is False and crossed["rows_inserted"] == crossed["writes_acknowledged"] == 12
