"""Where a request can wait in the service before it is served: for a request thread (Tomcat's, or the carrier a
pinned virtual thread keeps), for the offload pool, for a connection. A row whose latency includes such a wait by
design cannot measure the service time.
"""

from __future__ import annotations

import math
from typing import Any

from vtlab.core import constants as rig_constants
from vtlab.core.measures import given
from vtlab.explain.facts import in_flight, pool_size, user_service, workload
from vtlab.results.rows import MeasuredRow

# The analysis reads the run's recorded pool_queue_waiters (its rig); this stands in only for the report's sentences
# that have no run's record at hand.
POOL_QUEUE_WAITERS = rig_constants.CURRENT.pool_queue_waiters
TOMCAT_THREADS = rig_constants.CURRENT.tomcat_max_threads  # stands in only where no run's record is at hand
JEP491_JDK = 24  # from this JDK on, a virtual thread blocked inside synchronized unmounts (JEP 491)


def queued(row: MeasuredRow, rig: rig_constants.Constants) -> bool:
    """Whether the row's latency includes waiting for a thread or a connection by design: more users
    than request threads, (held) than connections, or than the downstream client's connections per route. Such a
    row cannot measure the service time."""
    users = in_flight(row)
    held_pool = float(row.hikari_pool) if row.conn_mode == "held" else math.inf
    # the downstream client's connections per route, as its meters read them (-1: no limit): every call holds one
    client = given(row.client_pool_max, math.inf)
    client_pool = client if client > 0 else math.inf
    return (users > request_thread_cap(row) or users > held_pool or users > client_pool
            or pool_was_the_queue(row, pool_size(row), rig))


def pins_every_request(row: Any) -> bool:
    """A virtual-thread row whose every request keeps its carrier through the downstream call: the native-frame
    control on any JDK; a monitor held across the call before JEP 491. (A JDK 21 synchronized row whose
    completions need a carrier deadlocks instead: the ceiling still says what pinning allows at best.) It reads the
    dimensions alone: a plan's Row as well as a MeasuredRow."""
    path = str(row.path_mode or "normal")
    return path == "pinned-control" or (path.startswith("synchronized") and row.jdk < JEP491_JDK)


def pinned_carriers_wall(row: Any, wall: str) -> bool:
    """Whether a row's thread-pool wall is its virtual threads' carriers, each request pinning one."""
    return wall == "thread-pool" and row.thread_mode == "virtual" and pins_every_request(row)


def request_thread_cap(row: MeasuredRow) -> float:
    """How many requests can be in the service at once: Tomcat's platform threads, the carrier
    threads when every request pins one, and for the offload workload also the fixed pool the work
    is handed to (the narrowest wins)."""
    caps = []
    if row.thread_mode == "webflux":
        return math.inf  # an event loop never waits for a thread: it serves whatever is ready
    if row.thread_mode == "platform":
        # a user's service: the threads its Tomcat reported (NaN when it exposes none)
        caps.append(row.tomcat_threads_config if user_service(row)
                    else float(row.tomcat_max_threads))
    elif pins_every_request(row):
        # a pinned virtual thread keeps its carrier for the whole call: the carriers become the pool
        caps.append(given(row.vt_parallelism, math.inf))
    elif given(row.server_max_threads, -1) > 0:
        # a server that caps its virtual threads too: Jetty's VirtualThreadPool runs at most its maximum of concurrent
        # tasks (200 by default, as Spring Boot builds it), whatever the users
        caps.append(row.server_max_threads)
    if workload(row) == "offload" and row.offload_executor == "platform":
        caps.append(float(row.offload_pool))
    return min(caps, default=math.inf)


def pool_was_the_queue(row: MeasuredRow, pool: float, rig: rig_constants.Constants) -> bool:
    """Every connection out and requests waiting for one — for most of the hold, not in one sample:
    a single GC pause or scheduling hiccup makes a momentary waiter without the pool being the wall.

    Decided from the pool's own timers where it keeps them (HikariCP, and the reactive twin's timed R2DBC
    borrows: connection-seconds out and acquire-seconds per second are, by Little's law, the mean
    connections out and the mean waiters); the
    2 Hz gauge samples are the fallback, and they rarely see a borrow that lasts a millisecond. Agroal
    times the waits (its blocking time) but not the connections out: in a fixed-size pool a thread waits
    only when every connection is out, so its mean waiters decide alone."""
    out, waiting = row.pool_out_mean, row.pool_waiting_mean
    if not math.isnan(waiting):
        full = math.isnan(out) or out >= rig.saturated_share * pool
        return full and waiting >= rig.pool_queue_waiters
    if given(row.hikari_active_max, 0) < pool:
        return False
    share = row.hikari_pending_share
    if math.isnan(share):  # a CSV without the share (older vtlab, other rigs): the maxima alone
        return given(row.hikari_pending_max, 0) > 0
    return share >= rig.pool_queue_sample_share
