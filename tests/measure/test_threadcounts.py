"""The service's context switches and carriers over the hold, summed thread by thread."""

import math
import os

from vtlab.measure import threadcounts
from vtlab.measure.threadcounts import ThreadStatus

STATUS = """Name:\tForkJoinPool-1-
Umask:\t0022
State:\tS (sleeping)
Tgid:\t4242
voluntary_ctxt_switches:\t1500
nonvoluntary_ctxt_switches:\t37
"""


def test_a_status_file_gives_the_name_and_both_counters():
    assert threadcounts.parse_status(STATUS) == ThreadStatus("ForkJoinPool-1-", 1500, 37)


def test_switches_are_summed_thread_by_thread_over_the_hold():
    carrier, worker, born, ended = 1, 2, 3, 4
    readings = [
        (10.0, {carrier: ThreadStatus("ForkJoinPool-1-", 100, 10), worker: ThreadStatus("http-nio-8080-e", 50, 5),
                ended: ThreadStatus("ForkJoinPool-1-", 7, 0)}),
        (11.0, {carrier: ThreadStatus("ForkJoinPool-1-", 160, 12), worker: ThreadStatus("http-nio-8080-e", 50, 5),
                ended: ThreadStatus("ForkJoinPool-1-", 9, 1), born: ThreadStatus("ForkJoinPool-1-", 20, 2)}),
        (14.0, {carrier: ThreadStatus("ForkJoinPool-1-", 400, 22), worker: ThreadStatus("http-nio-8080-e", 80, 5),
                born: ThreadStatus("ForkJoinPool-1-", 50, 4)}),
    ]
    summary = threadcounts.summarise(readings)
    # carrier 300 + worker 30 + born 50 (from zero) + ended 2 (to its last reading) = 382 voluntary over 4 s;
    # involuntary 12 + 0 + 4 + 1 = 17
    assert summary == threadcounts.Switches(382 / 4, 17 / 4, carriers_max=3, threads_ended=1)
    cells = threadcounts.columns(summary, requests_per_s=10.0, virtual=True)
    assert cells == {"csw_voluntary_per_req": 9.55, "csw_involuntary_per_req": 0.425, "carriers_max": 3,
                     "threads_ended": 1, "gc_cpu_pct": 0.0}
    assert threadcounts.columns(summary, 10.0, virtual=False)["carriers_max"] == ""  # no virtual threads to carry


def test_the_collectors_cpu_is_its_threads_own_over_the_hold_whichever_collector_runs():
    """Parallel's and G1's workers, G1's concurrent threads, the VM thread (Serial GC collects there), a worker born
    in the hold; the request threads and the JIT are not the collector."""
    stat = "{tid} (x) S 1 1 1 0 -1 0 0 0 0 0 {user} {system} 0 0 20 0 1 0 1 0 0"
    assert threadcounts.parse_status(STATUS, stat.format(tid=7, user=30, system=12)).ticks == 42
    names = ["GC Thread#0", "G1 Conc#0", "VM Thread", "http-nio-8080-e", "C2 CompilerThre", "GC Thread#1"]
    first = {tid: ThreadStatus(name, 0, 0, 100) for tid, name in enumerate(names[:-1])}
    last = {tid: ThreadStatus(name, 0, 0, 100 + 10 * (tid + 1)) for tid, name in enumerate(names)}
    summary = threadcounts.summarise([(0.0, first), (2.0, last)])
    # GC Thread#0 +10, G1 Conc#0 +20, VM Thread +30, GC Thread#1 born in the hold: all its 160 ticks
    assert summary.gc_ticks_per_s == (10 + 20 + 30 + 160) / 2
    ticks_per_s = os.sysconf("SC_CLK_TCK")
    assert threadcounts.columns(summary, 10.0, True)["gc_cpu_pct"] == (10 + 20 + 30 + 160) / 2 / ticks_per_s * 100


def test_fewer_than_two_readings_is_not_measured():
    assert threadcounts.summarise([]) is None
    assert threadcounts.summarise([(1.0, {1: ThreadStatus("main", 1, 1)})]) is None
    cells = threadcounts.columns(None, 10.0, virtual=True)
    assert math.isnan(cells["csw_voluntary_per_req"]) and cells["carriers_max"] == ""


def test_this_process_threads_are_read_from_proc_and_only_inside_the_hold():
    counts = threadcounts.ThreadCounts(os.getpid(), start_s=5.0, stop_s=6.0)
    counts.tick(4.0)
    counts.tick(5.0)
    counts.tick(7.0)
    assert len(counts.readings) == 1
    threads = counts.readings[0][1]
    assert os.getpid() in threads and threads[os.getpid()].voluntary >= 0 and threads[os.getpid()].ticks > 0
    assert threadcounts.read_threads(2**22 + 1) == {}  # no such process: nothing, not an error
