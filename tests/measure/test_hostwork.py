"""The host's speed read with every CPU sample (measure.hostwork): the fixed work's CPU time on the sampler's own
thread, the least of its repeats, in µs; added to each reading of the CPU sampler a row runs."""

import pytest

from vtlab.measure import hostwork
from vtlab.series.holdstats import HOST_WORK


def test_a_reading_is_the_least_of_its_repeats_in_microseconds_of_the_thread_s_cpu(monkeypatch):
    # the thread's CPU clock as the loop sees it: runs of 300, 250 (the least) and 900 µs (an interrupt landed in it)
    clock = iter([0, 300_000, 1_000_000, 1_250_000, 2_000_000, 2_900_000])
    monkeypatch.setattr(hostwork.time, "thread_time_ns", lambda: next(clock))
    assert hostwork.work_us(iterations=10, repeats=3) == 250.0


def test_the_fixed_work_is_the_same_loop_every_time():
    assert hostwork._fixed_work(1000) == hostwork._fixed_work(1000) != hostwork._fixed_work(1001)


def test_every_reading_of_the_sampler_carries_the_host_s_speed(monkeypatch):
    monkeypatch.setattr(hostwork, "work_us", lambda: 321.0)
    read = hostwork.with_host_work(lambda: {"app_ticks": 5.0})
    assert read() == {"app_ticks": 5.0, HOST_WORK: pytest.approx(321.0)}
