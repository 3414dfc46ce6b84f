"""The warm-up that ends when the row has settled: the rule on made-up series, and the decider's files."""

import time

from vtlab.measure import jit, settle
from vtlab.series import windows


def cumulative(rates, start=0.0, step=1.0):
    """(time, running total) a reading a second from per-second rates."""
    points, total = [(start, 0.0)], 0.0
    for i, rate in enumerate(rates):
        total += rate * step
        points.append((start + (i + 1) * step, total))
    return points


def ticks_for(rates, cpu_per_request):
    """The service's CPU ticks so far, from the rate and each second's ticks per request."""
    return cumulative([rate * cost for rate, cost in zip(rates, cpu_per_request, strict=True)])


def first_settled(ok, ticks, since=0.0, jit=None):
    for end in range(1, len(ok)):
        if settle.settled(ok[:end + 1], ticks[:end + 1] if ticks else [], jit[:end + 1] if jit else [], since):
            return ok[end][0]
    return None


def test_a_row_settles_once_its_rate_is_flat_and_its_cpu_per_request_stopped_falling():
    # the rate climbs for 8 s; the CPU a request costs falls from 0.4 to 0.1 ticks by 40 s (C1, then C2)
    rates = [50 * (i + 1) if i < 8 else 400 for i in range(90)]
    costs = [0.4 if i < 20 else 0.18 if i < 30 else 0.1 if i >= 40 else 0.18 - 0.008 * (i - 30) for i in range(90)]
    when = first_settled(cumulative(rates), ticks_for(rates, costs))
    # not on C1's plateau (20-30 s), nor while C2's code takes over (30-40 s): once the window before the last
    # costs at most 10% more than the last (36-46 s against 46-56 s)
    assert when == 56


def test_a_compiler_above_a_twentieth_of_the_cpu_is_not_done_unless_the_host_shows_room():
    # as measured at 50 req/s: the compiler's ticks every 5 s fell 423, 146, 70, 27, 15, 23, 11, 14 against the
    # service's ~50 besides; the CPU per request without them steady all along
    rates = [50] * 80
    compiling = [84.6, 29.2, 14.0, 5.4, 3.0, 4.6, 2.2, 2.8] + [3.0] * 8  # ticks a second, by 5 s
    jit = cumulative([compiling[i // 5] for i in range(80)])
    service = cumulative([10.0 + compiling[i // 5] for i in range(80)])
    assert first_settled(cumulative(rates), service, jit=jit) is None  # 3 of 13 ticks: never under 5%
    busy, total = host(0.3, 80)
    first = next(end for end in range(1, 80) if settle.settled(cumulative(rates)[:end + 1], service[:end + 1],
                                                                jit[:end + 1], 0.0, (), busy[:end + 1],
                                                                total[:end + 1]))
    assert first == settle.MIN_WARMUP_S  # an idle host, a steady CPU per request: the compiler moves nothing


def test_the_compiler_threads_are_read_from_proc_and_one_that_ended_still_counts(tmp_path):
    def thread(tid, comm, utime, stime):
        task = tmp_path / "42" / "task" / str(tid)
        task.mkdir(parents=True, exist_ok=True)
        (task / "comm").write_text(comm + "\n")
        fields = ["S", "1"] + ["0"] * 9 + [str(utime), str(stime)] + ["0"] * 10
        (task / "stat").write_text(f"{tid} ({comm}) " + " ".join(fields) + "\n")

    thread(42, "java", 500, 100)
    thread(43, "C2 CompilerThre", 70, 5)
    thread(44, "C1 CompilerThre", 20, 5)
    thread(45, "http-nio-8080-e", 300, 10)
    seen: dict[int, float] = {}
    assert jit.compiler_ticks(42, seen, proc=tmp_path) == 100
    import shutil
    shutil.rmtree(tmp_path / "42" / "task" / "44")  # the JVM retired a compiler thread
    thread(43, "C2 CompilerThre", 80, 5)
    assert jit.compiler_ticks(42, seen, proc=tmp_path) == 110
    assert jit.compiler_ticks(99, seen, proc=tmp_path) is None  # the process is gone


def test_never_before_two_windows_after_the_ramp():
    rates = [400] * 60
    when = first_settled(cumulative(rates), ticks_for(rates, [0.1] * 60), since=10.0)
    assert when == 10.0 + settle.MIN_WARMUP_S


def test_a_cpu_per_request_still_falling_by_more_than_the_allowance_is_not_settled():
    rates = [400] * 60
    falling = [0.2 * (0.985 ** i) for i in range(60)]  # 14% less every 10 s
    assert first_settled(cumulative(rates), ticks_for(rates, falling)) is None
    gently = [0.2 * (0.995 ** i) for i in range(60)]    # 5% less every 10 s: within the allowance
    assert first_settled(cumulative(rates), ticks_for(rates, gently)) == settle.MIN_WARMUP_S


def test_a_rising_cpu_per_request_does_not_hold_the_warm_up_back():
    rates = [400] * 60
    rising = [0.1 if i < 25 else 0.13 for i in range(60)]  # a collection, colder code compiled
    assert first_settled(cumulative(rates), ticks_for(rates, rising)) == settle.MIN_WARMUP_S


def test_a_rate_still_climbing_by_more_than_four_percent_never_settles():
    climbing = [400 * 1.005 ** i for i in range(80)]  # 5% more every 10 s
    assert first_settled(cumulative(climbing), ticks_for(climbing, [0.1] * 80)) is None
    slower = [400 * 1.003 ** i for i in range(80)]    # 3% more every 10 s
    assert first_settled(cumulative(slower), ticks_for(slower, [0.1] * 80)) == settle.MIN_WARMUP_S


def test_without_the_services_cpu_the_rate_alone_decides():
    rates = [400] * 60
    assert first_settled(cumulative(rates), []) == settle.MIN_WARMUP_S


def test_nothing_succeeding_is_never_settled():
    assert first_settled(cumulative([0] * 60), ticks_for([0] * 60, [0.1] * 60)) is None


def write_live(path, start, seconds, rate, running=lambda second: 0, all_running=None):
    """A runner's live lines, one a second: `running` the hold's iterations running, `all_running` every one
    (the users', by default: ten more than the hold's)."""
    every = all_running or (lambda second: running(second) + 10)
    path.write_text("".join(f"{round((start + s) * 1000)},{rate * s},0,{running(s)},{every(s)}\n"
                            for s in range(seconds + 1)))


def test_the_decider_writes_the_holds_start_for_k6_once_settled(tmp_path):
    now = time.time()
    live, hold = tmp_path / "k6.live", tmp_path / "row.hold"
    write_live(live, now - 40, 40, 400)
    cpu = windows.Series([(t, {"app_ticks": 40.0 * t}) for t in range(0, 41)])  # 0.1 ticks a request
    decider = settle.HoldDecider(hold, [live], ramp_s=5, max_warmup_s=60, hold_s=30, cooldown_s=3,
                                 started_unix=now - 40)
    start = decider.tick(cpu, monotonic_to_unix=now - 40)
    assert start is not None and start - now >= settle.LEAD_S - 0.1
    assert hold.read_text() == f"{round(start * 1000)}\n"
    assert not hold.with_name("row.hold.part").exists()
    warmup = decider.warmup()
    assert warmup.end == settle.SETTLED and abs(warmup.seconds - (start - (now - 35))) < 0.01
    assert not decider.finished()  # the hold has not even begun


def test_a_row_that_never_settles_begins_its_hold_at_the_bound(tmp_path):
    now = time.time()
    live, hold = tmp_path / "k6.live", tmp_path / "row.hold"
    # a rate still climbing (10 req/s more each second): never settled
    live.write_text("".join(f"{round((now - 45 + s) * 1000)},{5 * s * s},0,0,0\n" for s in range(46)))
    decider = settle.HoldDecider(hold, [live], ramp_s=5, max_warmup_s=40, hold_s=30, cooldown_s=3,
                                 started_unix=now - 45.5)  # the bound passed half a second ago
    assert decider.tick(windows.Series(), 0.0) is not None
    assert decider.warmup().end == settle.BOUND and 40.5 <= decider.warmup().seconds <= 41


def test_a_row_that_settles_on_the_bounds_own_tick_is_settled_not_timed_out(tmp_path):
    now = time.time()
    live, hold = tmp_path / "k6.live", tmp_path / "row.hold"
    write_live(live, now - 45.5, 45, 400)
    cpu = windows.Series([(t, {"app_ticks": 40.0 * t}) for t in range(0, 46)])
    decider = settle.HoldDecider(hold, [live], ramp_s=5, max_warmup_s=40, hold_s=30, cooldown_s=3,
                                 started_unix=now - 45.5)  # the bound passed half a second ago
    assert decider.tick(cpu, monotonic_to_unix=now - 45.5) is not None
    assert decider.warmup().end == settle.SETTLED  # the def run's platform step met its criterion just then


def test_the_row_ends_once_the_holds_last_iteration_ended_and_k6_stops_once_no_request_is_in_flight(tmp_path):
    """Not after the plan's cool-down: the row ends when the hold's last iteration did (the hold file then names that
    moment too, and the users send nothing more), and k6 is stopped once every runner reads nothing in flight."""
    now = time.time()
    lives, hold = [tmp_path / "a.live", tmp_path / "b.live"], tmp_path / "row.hold"
    decider = settle.HoldDecider(hold, lives, ramp_s=1, max_warmup_s=0, hold_s=10, cooldown_s=3,
                                 started_unix=now - 20)
    decider.tick(windows.Series(), 0.0)
    decider.hold_start = now - 11  # the hold ended a second ago: well inside the plan's 3 s cool-down
    write_live(lives[0], now - 20, 20, 100)
    write_live(lives[1], now - 20, 20, 100, running=lambda second: 2)  # two of the hold's requests still running
    assert not decider.finished() and decider.ending is None and len(hold.read_text().split()) == 1
    write_live(lives[1], now - 20, 20, 100)
    assert not decider.finished()  # the row ends now; the users' requests of the cool-down are still in flight
    start_ms, end_ms = (int(value) for value in hold.read_text().split())
    assert start_ms == round(decider.hold_start * 1000) and abs(end_ms / 1000 - time.time()) < 1
    assert not decider.finished() and decider.cooldown_s() is None  # the lines read were written before the end
    later = decider.ending + settle.LEAD_S + 0.001  # (a line stamped to the millisecond, after it)
    for live in lives:  # read after the end, with requests still in flight in one runner, then in none
        live.write_text(live.read_text() + f"{round(later * 1000)},2000,0,0,{3 if live == lives[0] else 0}\n")
    assert not decider.finished()
    lives[0].write_text(lives[0].read_text() + f"{round(later * 1000) + 1},2001,0,0,0\n")
    assert decider.finished()
    assert 0.9 < decider.cooldown_s() < 1.5  # the cool-down as run: the hold's end to the stop
    assert decider.finished()  # once said, k6 is stopping: the answer stands


def test_the_row_ends_after_the_planned_cool_down_and_the_grace_whatever_still_runs(tmp_path):
    now = time.time()
    live = tmp_path / "a.live"
    decider = settle.HoldDecider(tmp_path / "row.hold", [live], ramp_s=1, max_warmup_s=0, hold_s=10, cooldown_s=3,
                                 started_unix=now - 40)
    decider.tick(windows.Series(), 0.0)
    write_live(live, now - 40, 40, 100, running=lambda second: 2)
    decider.hold_start = now - 10 - 3 - settle.GRACE_S + 1  # the grace ends in a second
    assert not decider.finished() and decider.ending is None
    decider.hold_start -= 2
    assert not decider.finished() and decider.ending is not None  # ended, whatever still runs
    decider.ending -= settle.GRACE_S  # and nothing stopped the requests in flight within k6's gracefulStop
    assert decider.finished()


def test_the_memory_probe_is_taken_once_with_every_user_in_flight_before_the_row_ends_and_not_at_the_grace(tmp_path):
    """When the hold's last request has ended, before the end is written: the users' requests then in flight (of the
    cool-down, none counted) are what the probe sees; a row that only ends at the grace is not probed."""
    now = time.time()
    lives, hold = [tmp_path / "a.live", tmp_path / "b.live"], tmp_path / "row.hold"
    probed = []

    def probe(in_flight):
        probed.append((in_flight, len(hold.read_text().split())))  # the end is not written yet

    decider = settle.HoldDecider(hold, lives, ramp_s=1, max_warmup_s=0, hold_s=10, cooldown_s=3,
                                 started_unix=now - 20, before_end=probe)
    decider.tick(windows.Series(), 0.0)
    decider.hold_start = now - 11
    write_live(lives[0], now - 20, 20, 100, all_running=lambda second: 600)
    write_live(lives[1], now - 20, 20, 100, running=lambda second: 2, all_running=lambda second: 400)
    assert not decider.finished() and probed == []  # two of the hold's requests still running
    write_live(lives[1], now - 20, 20, 100, all_running=lambda second: 400)
    assert not decider.finished()
    assert probed == [(1000, 1)] and len(hold.read_text().split()) == 2  # then the row ended
    decider.finished()
    assert len(probed) == 1
    stuck = settle.HoldDecider(tmp_path / "stuck.hold", [lives[0]], ramp_s=1, max_warmup_s=0, hold_s=10,
                               cooldown_s=3, started_unix=now - 40, before_end=probe)
    stuck.tick(windows.Series(), 0.0)
    write_live(lives[0], now - 40, 40, 100, running=lambda second: 2)
    stuck.hold_start = now - 10 - 3 - settle.GRACE_S - 1  # past the grace, the hold's requests still running
    assert not stuck.finished() and stuck.ending is not None and len(probed) == 1


def compiling_by_window(ticks_a_second_by_5s, seconds):
    """The compiler's time so far, a reading a second, from its time a second in each 5 s."""
    return cumulative([ticks_a_second_by_5s[min(i // 5, len(ticks_a_second_by_5s) - 1)] for i in range(seconds)])


def host(busy_share, seconds):
    """The machine's busy and total CPU so far, a reading a second, busy at `busy_share`."""
    return cumulative([200 * busy_share] * seconds), cumulative([200.0] * seconds)


def test_on_a_full_host_a_compiler_at_a_seventh_of_the_cpu_is_not_settled():
    # as the third-party app's platform row at 21 s: CPU-bound, the compiler at ~13% of the service's CPU — time the
    # requests needed (the old 25% rule called it settled)
    rates = [450] * 60
    compiling = [60.0, 50.0, 40.0, 30.0, 25.0, 20.0] + [20.0] * 6
    jit = compiling_by_window(compiling, 60)
    service = cumulative([135.0 + compiling[min(i // 5, 11)] for i in range(60)])
    judged = settle.judge(cumulative(rates), service, jit, 0.0, (), *host(0.97, 60))
    assert judged is not None and judged.unmet == (settle.JIT,)
    assert 0.12 < judged.jit_share < 0.13  # 200 of 1,550 in the last 10 s
    assert 0.3 < judged.jit_decay < 0.4    # 200 against the first window's 550
    assert judged.host_busy == 0.97


def test_on_a_host_with_room_a_busy_compiler_with_a_steady_cpu_per_request_moves_nothing():
    # a users-bound row at 100 req/s: after its burst, the compiler at 40% of a small service CPU, 6% of the
    # machine, for minutes (measured: a fifth to a quarter of the burst's busiest window)
    rates = [100] * 60
    jit = cumulative([48.0] * 10 + [12.0] * 50)
    service = cumulative([66.0] * 10 + [30.0] * 50)
    judged = settle.judge(cumulative(rates), service, jit, 0.0, (), *host(0.35, 60))
    assert judged is not None and judged.settled and judged.jit_share == 0.4 and judged.jit_decay == 0.25
    # the same share mid-burst (a fresh JVM at 1,000 req/s, 20 s after its ramp): its code is still being replaced
    burst = settle.judge(cumulative(rates)[:31], cumulative([30.0] * 30), cumulative([14.0] * 10 + [12.0] * 20),
                         0.0, (), *[series[:31] for series in host(0.35, 30)])
    assert burst is not None and burst.unmet == (settle.JIT,) and 0.8 < burst.jit_decay < 0.9
    # the same compiler while the requests still get cheaper: its code is not compiled yet
    falling = cumulative([12.0 + 30.0 * 0.985 ** i for i in range(60)])
    still = settle.judge(cumulative(rates), falling, jit, 0.0, (), *host(0.35, 60))
    assert still is not None and still.unmet == (settle.CPU, settle.JIT)
    # nothing read of the host: only the share can tell
    unknown = settle.judge(cumulative(rates), service, jit, 0.0)
    assert unknown is not None and unknown.unmet == (settle.JIT,) and unknown.host_busy is None


def test_compiling_under_a_twentieth_of_the_cpu_passes_even_on_a_full_host():
    # a step on a warm JVM: nothing left to compile but colder paths, never a burst to decay from
    rates = [400] * 40
    jit = cumulative([1.0] * 40)
    service = cumulative([41.0] * 40)
    judged = settle.judge(cumulative(rates), service, jit, 0.0, cumulative([3.0] * 40), *host(0.95, 40))
    assert judged is not None and judged.settled and judged.jit_decay == 1.0
    assert judged.compiles_per_s == 3.0


def test_a_warm_up_at_its_bound_with_the_jit_busy_records_why():
    judged = settle.Judgement(0.01, 0.131, 0.36, 12.5, (settle.JIT,), 0.97)
    cells = settle.Warmup(45.0, settle.BOUND, judged, jit.PERFDATA).cells()
    assert cells == {"warmup_s": 45.0, "warmup_end": "bound", "warmup_unsettled": "jit",
                     "warmup_jit_share_pct": 13.1, "warmup_jit_decay_pct": 36.0, "warmup_compiles_per_s": 12.5,
                     "warmup_jit_source": "perfdata", "warmup_host_busy_pct": 97.0}
    settled_cells = settle.Warmup(30.0, settle.SETTLED, settle.Judgement(0.01, 0.02, 0.05), "").cells()
    assert settled_cells["warmup_unsettled"] == "" and settled_cells["warmup_jit_share_pct"] == 2.0


def test_the_jit_meter_reads_hotspots_counters_and_falls_back_to_the_compiler_threads(tmp_path):
    from tests.measure.test_perfdata import perfdata_file
    counters = tmp_path / "hsperfdata"
    counters.write_bytes(perfdata_file({"java.ci.totalTime": 2_500_000_000, "sun.os.hrt.frequency": 1_000_000_000,
                                        "sun.ci.totalCompiles": 1264}))
    meter = jit.JitMeter(4242, counters, tmp_path)
    meter.read(100.0)
    assert meter.source == jit.PERFDATA and meter.seconds == [(100.0, 2.5)] and meter.compiles == [(100.0, 1264)]
    # no counters, no such process either (an empty /proc: on the real one, 4242 may be any JVM, a CI's Maven
    # beside the units once): nothing read
    gone = jit.JitMeter(4242, tmp_path / "none", tmp_path)
    gone.read(100.0)
    assert gone.source == "" and gone.seconds == []


def test_the_compiler_threads_cpu_not_its_elapsed_compile_time_is_taken_out_of_a_requests_cpu():
    # on a busy host a compile waits for a core: its elapsed time (perfdata) swings 15 -> 25 s a second while the
    # compiler threads used a steady 10; the service's 30 a second hold a steady 20 for 50 requests
    rates = [50] * 40
    elapsed = cumulative([15.0] * 30 + [25.0] * 10)
    used = cumulative([10.0] * 40)
    service = cumulative([30.0] * 40)
    judged = settle.judge(cumulative(rates), service, elapsed, 0.0, (), (), (), used)
    assert judged is not None and settle.CPU not in judged.unmet
    spurious = settle.judge(cumulative(rates), service, elapsed, 0.0)  # (30-25)/50 against (30-15)/50: "fell"
    assert spurious is not None and settle.CPU in spurious.unmet


def test_a_later_step_on_a_warm_jvm_is_judged_over_shorter_windows_and_settles_sooner():
    # users added to a warm JVM: 3 s of climbing to the new rate, then flat, its code compiled by the steps before
    rates = [200 + 100 * i if i < 3 else 500 for i in range(40)]
    ok, ticks = cumulative(rates), ticks_for(rates, [0.1] * 40)

    def first(window_s):
        return next((ok[end][0] for end in range(1, 40) if settle.judge(
            ok[:end + 1], ticks[:end + 1], [], 0.0, window_s=window_s) is not None and settle.judge(
            ok[:end + 1], ticks[:end + 1], [], 0.0, window_s=window_s).settled), None)

    # two windows of 10 s within 4% of each other: at 21 s the 1-11 s window holds 300 + 400 + 8 × 500 = 4,700
    # against 5,000 (6.2%), at 22 s the 2-12 s one 400 + 9 × 500 = 4,900 (2.0%)
    assert first(settle.WINDOW_S) == 22
    # two windows of 5 s: at 12 s the 2-7 s one holds 400 + 4 × 500 = 2,400 against 2,500 (4.1%), at 13 s both
    # are after the climb
    assert settle.STEP_WINDOW_S == 5.0
    assert first(settle.STEP_WINDOW_S) == 13
