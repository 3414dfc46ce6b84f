def pytest_collection_modifyitems(items):
    # Fast unit tests first, the real tiers last: a broken unit shows before a long e2e run.
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)
