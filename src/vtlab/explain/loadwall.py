"""The load named as a row's wall, said of a point that broke an objective. In the open model the `users` wall
(bottleneck.py: the last check, reached only where no tier's was seen) means every arrival was served: true of the
row's throughput, but a point that failed its objective failed on its latency, and "the wall: users" would read as
if the load had been too much for something. Said instead: every arrival served, no tier saturated, how busy each
was, and that the latency's cause is not measured — never a wall the row did not show. And the wall a search saw at
its bracket's upper edge where that edge was too close to call and nothing above it failed (`edge`)."""

from __future__ import annotations

import math

from vtlab.results.capacityfile import ModeCapacity

LOAD_WALL = "users"  # bottleneck.BOTTLENECKS' name for the load itself


def unnamed(model: str, wall: str) -> bool:
    """Whether a failing point's wall is the load itself in the open model: the objective broke on latency the row
    names no cause for."""
    return model == "open" and wall == LOAD_WALL


def words(evidence: str, utilisation: str) -> str:
    """"every arrival served (open model: 800 of 800 req/s offered, 0 dropped) and no tier saturated (host 62%, …):
    the latency's cause not measured (unexplained)"; `utilisation`: the point's tiers as it read them, "" where
    capacity.json was written before it kept them."""
    served = f"every arrival served ({evidence})" if evidence else "every arrival served"
    busy = f"({utilisation})" if utilisation else "(how busy each was not recorded)"
    return f"{served} and no tier saturated {busy}: the latency's cause not measured (unexplained)"


def edge(mode: ModeCapacity, unit: str, model: str) -> str:
    """", at 1,616 req/s (too close to call): cpu, host 97% busy …" where the bracket's upper edge was too close to
    call and nothing above it failed: the wall that edge's row saw, from its evidence; nothing where the row saw none
    but its own load."""
    point = mode.undecided_edge()
    if point is None or not point.wall or unnamed(model, point.wall):
        return ""
    return f", at {point.load:,.0f} {unit} (too close to call): {point.wall}" + (
        f", {point.evidence}" if point.evidence else "")


# Walls a setting sizes (Little's law: the setting's count over the time a request holds it): the host's speed does
# not move them; a CPU wall moves with it.
SIZED_WALLS = ("thread-pool", "connection-pool", "client-pool", "connection-limit")


def index_words(mode: ModeCapacity) -> str:
    """ "k6 at the capacity: 0.312 ms of CPU a request (0.811 at the first load, 100); a CPU wall: …": k6's CPU a
    request at the capacity and at the search's first load (at one load it moves with the host's speed; across loads it
    falls as k6's own costs spread), and whether the mode's wall moves with the host's speed (moves)."""
    first = mode.points[0] if mode.points else None
    start = (f" ({first.k6_ms_per_req:.3f} at the first load, {first.load:,})"
             if first is not None and math.isfinite(first.k6_ms_per_req) and first.load != mode.capacity else "")
    host = mode.host_work_us()
    every = [point.host_work_us for point in mode.points if math.isfinite(point.host_work_us)]
    across = f" ({min(every):,.0f}–{max(every):,.0f} over the search's points)" if len(every) > 1 else ""
    moving = (f", moving {mode.host_work_spread_pct():.1f}% under the capacity's point (from the 10th to the 90th "
              "percentile): the median of a moving host, not its speed there" if mode.host_moved() else "")
    fixed = f"; the host's fixed work there {host:,.0f} µs of CPU{across}{moving}" if math.isfinite(host) else ""
    return f"k6 at the capacity: {mode.host_index_ms():.3f} ms of CPU a request{start}{fixed}" + moves(mode.edge_wall())


def moves(wall: str) -> str:
    """Whether a capacity held by `wall` moves with the host's speed, in words after the speed index ("" where the
    wall says nothing of it)."""
    if wall == "cpu":
        return "; a CPU wall: the capacity moves with the host's speed and with the CPU another process takes"
    if wall in SIZED_WALLS:
        return f"; a {wall} wall, sized by its setting: the host's speed does not move it"
    return ""
