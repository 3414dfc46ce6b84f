"""Collapsed stacks into layers, and two profiles compared per request, on hand-made stacks whose answer is known."""

import gzip

import pytest

from vtlab.explain import stacks

THREAD = "java/lang/Thread.run"
SERVICE = "dev/vtlab/app/orders/OrderSummaryController.summary"
DRIVER = "org/postgresql/core/v3/QueryExecutorImpl.execute"
SOCKET = "sun/nio/ch/SocketDispatcher.write0"


def test_a_line_is_its_frames_without_their_type_suffix_and_equal_stacks_add_up():
    parsed = stacks.parse([f"{THREAD}_[j];{SERVICE}_[i] 3\n", f"{THREAD}_[0];{SERVICE}_[j] 4\n",
                           "no weight here\n", "\n", f"{THREAD};x 2.5"])
    assert parsed == {(THREAD, SERVICE): 7.0, (THREAD, "x"): 2.5}


def test_a_stack_belongs_to_its_innermost_layer():
    assert stacks.layer_of((THREAD, SERVICE, DRIVER, SOCKET)) == "network I/O (kernel, NIO)"
    assert stacks.layer_of((THREAD, SERVICE, DRIVER, "java/lang/String.indexOf")) == "PostgreSQL JDBC driver"
    assert stacks.layer_of((THREAD, SERVICE, "java/lang/String.format")) == "the service's own code"
    assert stacks.layer_of(("java/lang/VirtualThread.run", "jdk/internal/vm/Continuation.enter", SERVICE)) == \
        "the service's own code"  # what a virtual thread runs is its own code, not the scheduler's
    assert stacks.layer_of(("java/lang/VirtualThread.run", "jdk/internal/vm/Continuation.yield0")) == \
        "virtual-thread scheduling (mount, unmount, ForkJoinPool)"
    assert stacks.layer_of(("thread_native_entry", "GCTaskThread::run", "PSScavenge::invoke")) == \
        "garbage collection"
    assert stacks.layer_of((THREAD, "java/util/concurrent/ThreadPoolExecutor.getTask",
                            "java/util/concurrent/locks/LockSupport.park", "__futex_abstimed_wait_common")) == \
        "park and unpark (futex)"
    assert stacks.layer_of(("start_thread", "something_unknown")) == stacks.OTHER
    assert stacks.layer_of((THREAD, "org/springframework/web/servlet/DispatcherServlet.doService",
                            "io/prometheus/metrics/expositionformats/PrometheusTextFormatWriter.write",
                            "java/io/BufferedWriter.growIfNeeded")) == "logging and metrics"  # the rig's scrape


def test_shares_add_up_to_one_and_an_empty_profile_has_none():
    profile = {(THREAD, SERVICE): 30.0, (THREAD, SERVICE, DRIVER): 10.0, ("x",): 60.0}
    assert stacks.shares(profile) == pytest.approx({"the service's own code": 0.3, "PostgreSQL JDBC driver": 0.1,
                                                    stacks.OTHER: 0.6})
    assert stacks.shares(profile, stacks.leaf) == pytest.approx({SERVICE: 0.3, DRIVER: 0.1, "x": 0.6})
    assert stacks.shares({}) == {}


def test_two_profiles_compare_per_request_not_by_share():
    # platform: 1.0 ms a request, 60% service code, 40% parking; virtual: 2.0 ms, 30% service code, 70% parking.
    # By share the service's code halved; per request it cost 0.6 ms in both, and the parking grew 0.4 -> 1.4 ms.
    platform = {(THREAD, SERVICE): 60.0, (THREAD, "java/util/concurrent/locks/LockSupport.park"): 40.0}
    virtual = {(THREAD, SERVICE): 30.0, (THREAD, "java/util/concurrent/locks/LockSupport.park"): 70.0}
    found = stacks.differences(stacks.shares(platform), 1.0, stacks.shares(virtual), 2.0)
    assert [d.name for d in found] == ["park and unpark (futex)", "the service's own code"]
    assert [(round(d.a, 6), round(d.b, 6), round(d.delta, 6)) for d in found] == [(0.4, 1.4, 1.0), (0.6, 0.6, 0.0)]
    # a layer only one profile has is compared against nothing in the other; top keeps the largest
    only = stacks.differences({"a": 1.0}, 2.0, {"b": 1.0}, 0.5, top=1)
    assert [(d.name, d.a, d.b) for d in only] == [("a", 2.0, 0.0)]


def test_merged_reps_and_a_gzipped_file_read_back(tmp_path):
    path = tmp_path / "row-cpu.collapsed.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(f"{THREAD};{SERVICE}_[j] 5\n{THREAD};{DRIVER}_[i] 1\n")
    one = stacks.read(path)
    assert one == {(THREAD, SERVICE): 5.0, (THREAD, DRIVER): 1.0}
    assert stacks.merge([one, one]) == {(THREAD, SERVICE): 10.0, (THREAD, DRIVER): 2.0}
