import pytest

from vtlab.core import cores


def test_small_machines_share_every_cpu():
    assert cores.automatic([0, 1]) == {tier: {0, 1} for tier in cores.TIERS}


def test_large_machines_get_disjoint_sets_covering_all_cpus():
    mapping = cores.automatic(list(range(16)))
    sets = [mapping[t] for t in cores.TIERS]
    assert set().union(*sets) == set(range(16))
    assert sum(len(s) for s in sets) == 16
    assert len(mapping["app"]) >= len(mapping["load"]) >= 2


def test_override_and_description():
    mapping = cores.parse_override("app=0-3+6 load=7", list(range(8)))
    assert mapping["app"] == {0, 1, 2, 3, 6}
    assert cores.describe(mapping["app"]) == "0-3+6"
    with pytest.raises(ValueError):
        cores.parse_override("app=9", list(range(8)))
