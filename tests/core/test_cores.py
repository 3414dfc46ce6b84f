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


def test_a_cgroup_v1_quota_is_read_from_the_cpu_controller(tmp_path):
    (tmp_path / "cpu" / "slow").mkdir(parents=True)
    (tmp_path / "cpu" / "slow" / "cpu.cfs_quota_us").write_text("140000\n")
    (tmp_path / "cpu" / "slow" / "cpu.cfs_period_us").write_text("100000\n")
    proc = tmp_path / "cgroup"
    proc.write_text("4:memory:/other\n1:cpu:/slow\n0::/\n")
    assert cores.quota(proc, tmp_path) == 1.4


def test_a_cgroup_v2_quota_is_read_from_cpu_max_and_none_where_unlimited(tmp_path):
    (tmp_path / "unified" / "slow").mkdir(parents=True)
    (tmp_path / "unified" / "slow" / "cpu.max").write_text("50000 100000\n")
    proc = tmp_path / "cgroup"
    proc.write_text("0::/slow\n")
    assert cores.quota(proc, tmp_path) == 0.5
    (tmp_path / "unified" / "slow" / "cpu.max").write_text("max 100000\n")
    assert cores.quota(proc, tmp_path) is None
    proc.write_text("1:cpu:/\n")  # v1 with no quota file where it points: nothing to read, no limit claimed
    assert cores.quota(proc, tmp_path) is None
    assert cores.quota(tmp_path / "missing", tmp_path) is None


def test_a_parents_quota_binds_its_children_and_the_tightest_counts(tmp_path):
    (tmp_path / "unified" / "slice" / "leaf").mkdir(parents=True)
    (tmp_path / "unified" / "slice" / "cpu.max").write_text("75000 100000\n")
    (tmp_path / "unified" / "slice" / "leaf" / "cpu.max").write_text("max 100000\n")
    proc = tmp_path / "cgroup"
    proc.write_text("0::/slice/leaf\n")
    assert cores.quota(proc, tmp_path) == 0.75


def test_a_quota_is_the_share_of_the_machine_the_rig_may_use():
    assert cores.usable_share(2, 1.4) == pytest.approx(0.7)  # 140 ms per 100 ms on 2 cores
    assert cores.usable_share(2, None) == 1.0 and cores.usable_share(2, 3.0) == 1.0  # none, or one that never binds
    assert cores.usable_share(0, 1.4) == 1.0  # the machine's CPUs not known: nothing to scale by
