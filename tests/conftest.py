"""What `./vtlab test` runs, and in which order.

By default: the units, the replays of recorded live runs (tests/recorded/) and one live smoke sized by this
machine's calibration. The full live proofs (marker `e2e`, ~40 rows at fixed points) run only with `--live`, and
`--live --record` keeps each passing proof's run folder under tests/recorded/ for the replays."""

from __future__ import annotations

import pytest


def pytest_addoption(parser):
    parser.addoption("--live", action="store_true",
                     help="also run the full live proofs (marker e2e): every verdict class on the real tiers, ~1 h")
    parser.addoption("--record", action="store_true",
                     help="with --live: keep each passing live proof's run folder, trimmed, under tests/recorded/")


def pytest_configure(config):
    if config.getoption("--record") and not config.getoption("--live"):
        raise pytest.UsageError("--record keeps what the live proofs measured: give --live with it")
    if config.getoption("--record"):
        import browser

        if browser.CHROMIUM is None:  # two proofs look at their report in it: skipped, they would not be recorded
            raise pytest.UsageError(f"--record {browser.MISSING}: the tiny-matrix and spike proofs check their "
                                    "report in it, and a skipped proof is not recorded")


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--live"):
        live = [item for item in items if item.get_closest_marker("e2e") is not None]
        if live:
            config.hook.pytest_deselected(items=live)
            items[:] = [item for item in items if item.get_closest_marker("e2e") is None]
    # The units and the replays first, then the smoke, the live proofs last: a broken unit shows before a long run.
    # Recording, the replays go after the live proofs: they replay what this session recorded.
    replays_last = config.getoption("--record")

    def rank(item) -> int:
        if replays_last and item.path.parent.name == "replay":
            return 3
        return 2 if item.get_closest_marker("e2e") else 1 if item.get_closest_marker("smoke") else 0
    items.sort(key=rank)


@pytest.fixture(autouse=True)
def no_calibration_of_this_machine(request, tmp_path_factory, monkeypatch):
    """The units plan as a clean machine would: a calibration cached on this one (`vtlab calibrate`) would move a
    profile's points (plan.sizing) in every in-process `vtlab run`. The live tests use the machine's own cache."""
    if request.node.get_closest_marker("smoke") or request.node.get_closest_marker("e2e"):
        return
    monkeypatch.setenv("VTLAB_CACHE", str(tmp_path_factory.mktemp("vtlab-cache")))


@pytest.fixture
def pairing_quick(monkeypatch):
    """The quick profile as one that measures its modes paired by default (Profile.pair_blocks), 3 blocks of 10 s:
    what a profile that pairs does, whichever profile does."""
    import dataclasses

    from vtlab.plan import planner, presets

    def profiles():
        found = presets.profiles()
        return {**found, "quick": dataclasses.replace(found["quick"], pair_blocks=3, pair_hold_s=10)}
    monkeypatch.setattr(planner, "profiles", profiles)
