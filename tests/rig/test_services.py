"""vtlab's service sized to the row: its heap and its connector's limits."""

from vtlab.rig import services


def test_the_services_heap_and_connections_grow_with_the_users_from_spring_boots_and_the_old_defaults():
    assert services.service_heap_mb(100) == services.service_heap_mb(2_300) == 1024  # every row's heap before
    # 5,000 users: (64 + 5,000 × 150 / 1024) / 0.4 = 1,991 MB, in 256 MB steps
    assert services.service_heap_mb(5_000) == 2048
    assert services.connection_limits(1_000) == (8192, 1_000)
    assert services.connection_limits(10_000) == (11_024, 10_000)
