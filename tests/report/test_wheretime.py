"""Where the time goes: the counters' costs per request beside each other, and the layers the CPU profiles of both
modes differ in beyond their sampling error, on hand-made rows and stacks with a known answer."""

import gzip

from rows import META, RUN, row

from vtlab.core import dimensions
from vtlab.explain import analyze
from vtlab.report import wheretime
from vtlab.results import record

SERVICE = "java/lang/Thread.run;dev/vtlab/app/orders/OrderSummaryController.summary"
PARKING = "java/lang/Thread.run;java/util/concurrent/locks/LockSupport.park"
COSTS = dict(alloc_kb_per_req=40, gc_pause_ms_per_1k_req=2, csw_voluntary_per_req=9, csw_involuntary_per_req=1)


def pair(platform_cpu_ms=1.0, virtual_cpu_ms=2.0, **costs):
    common = {**COSTS, **costs}
    return [row(thread_mode="platform", app_cpu_ms_per_req=platform_cpu_ms, **common),
            row(thread_mode="virtual", app_cpu_ms_per_req=virtual_cpu_ms, **common)]


def keep_profile(run_dir, cells, kind, lines):
    folder = run_dir / "profiles"
    folder.mkdir(exist_ok=True)
    with gzip.open(folder / f"{dimensions.slug(dimensions.parse(cells))}-{kind}.collapsed.gz", "wt") as handle:
        handle.write("".join(f"{stack} {weight}\n" for stack, weight in lines))


def where(run_dir, rows, run=RUN):
    return wheretime.section(run_dir, analyze.analyse(rows, run))


def test_the_layer_that_grew_per_request_is_named_and_the_one_that_did_not_is_within_the_error(tmp_path):
    # platform 1.0 ms: 600 samples in the service's code (0.6 ms), 400 parking (0.4 ms); virtual 2.0 ms: 300
    # (0.6 ms) and 700 (1.4 ms). Parking grew by 1.0 ms a request; the service's code cost the same.
    rows = pair()
    keep_profile(tmp_path, rows[0], "cpu", [(SERVICE, 600), (PARKING, 400)])
    keep_profile(tmp_path, rows[1], "cpu", [(SERVICE, 300), (PARKING, 700)])
    section = where(tmp_path, rows)
    text = " ".join(section.verdict)
    assert "1.000 ms of CPU on platform threads and 2.000 ms on virtual threads (+1.000 ms" in text
    assert ("differences beyond their sampling error alone (one rep: the counters' noise between runs not measured) "
            "are, largest first: park and unpark (futex) (+1.000 ms); 1 other layer(s) lie within it.") in text
    assert "async-profiler attached" not in text  # these rows say nothing of a profiler
    lines = {line["what"]: line for line in section.table}
    assert lines["CPU: park and unpark (futex)"]["platform"] == "0.400 ms"
    assert lines["CPU: park and unpark (futex)"]["virtual"] == "1.400 ms"
    assert lines["CPU: the service's own code"]["difference"] == "+0.000 ms (within error)"
    leaf = "CPU in the frame itself: java/util/concurrent/locks/LockSupport.park"
    assert (lines[leaf]["platform"], lines[leaf]["virtual"]) == ("0.400 ms", "1.400 ms")
    assert lines["allocated"]["platform"] == "40.0 KiB" and lines["context switches, voluntary"]["difference"] == \
        "+0.00"


def test_a_difference_within_the_counters_spread_between_reps_is_not_named(tmp_path):
    # CPU per request over two reps: platform 1.0 and 1.4 (median 1.2, standard error 0.2), virtual 1.2 and 1.6
    # (1.4, 0.2); every profile half service code, half parking, 5,000 samples. Parking costs 0.6 against 0.7 ms:
    # 0.1 ms apart, far beyond the sampling error (~0.017 ms at 95%) but within the counters' spread (0.5 x 0.2 in
    # each mode: 1.96 x 0.14 = 0.28 ms).
    rows = []
    for mode, cpu in (("platform", (1.0, 1.4)), ("virtual", (1.2, 1.6))):
        for rep, ms in enumerate(cpu, start=1):
            rows.append(row(thread_mode=mode, rep=rep, app_cpu_ms_per_req=ms, profiles="cpu", **COSTS))
            keep_profile(tmp_path, rows[-1], "cpu", [(SERVICE, 2500), (PARKING, 2500)])
    section = where(tmp_path, rows)
    text = " ".join(section.verdict)
    assert "1.200 ms of CPU on platform threads and 1.400 ms on virtual threads" in text
    assert "with async-profiler attached, its cost included" in text
    assert ("show no layer differing beyond their sampling error and the counters' spread between reps, so where "
            "the difference goes is unexplained") in text
    parking = next(line for line in section.table if line["what"] == "CPU: park and unpark (futex)")
    assert (parking["platform"], parking["virtual"], parking["difference"]) == ("0.600 ms", "0.700 ms",
                                                                                "+0.100 ms (within error)")
    # a run that recorded a looser bar (half a standard error: 0.5 × 0.14 = 0.07 ms) names the 0.1 ms
    loose = record.from_dict({**META, "rig": {**META["rig"], "difference_z": 0.5}})
    named = {line["what"]: line["difference"] for line in where(tmp_path, rows, loose).table}
    assert named["CPU: park and unpark (futex)"] == "+0.100 ms"


def test_profiles_asked_for_but_not_kept_are_said_so(tmp_path):
    rows = pair(profiles="cpu")
    assert "asked for but not kept" in " ".join(where(tmp_path, rows).verdict)


def test_too_few_samples_to_tell_leave_the_difference_unexplained(tmp_path):
    rows = pair(1.0, 1.0)
    keep_profile(tmp_path, rows[0], "cpu", [(SERVICE, 6), (PARKING, 4)])
    keep_profile(tmp_path, rows[1], "cpu", [(SERVICE, 5), (PARKING, 5)])
    cpu = where(tmp_path, rows).verdict[0]
    assert "show no layer differing beyond their sampling error alone" in cpu
    assert cpu.endswith("so where the difference goes is unexplained.")


def test_without_profiles_the_counters_are_told_and_where_is_said_not_measured(tmp_path):
    rows = pair()
    keep_profile(tmp_path, rows[0], "cpu", [(SERVICE, 600)])  # one mode only: no comparison
    section = where(tmp_path, rows)
    assert "where it goes was not measured" in " ".join(section.verdict)
    assert not any(line["what"].startswith("CPU:") for line in section.table)


def test_a_run_without_per_request_counters_has_no_such_section(tmp_path):
    rows = [row(thread_mode="platform", app_cpu_ms_per_req=1.0), row(thread_mode="virtual", app_cpu_ms_per_req=2.0)]
    assert where(tmp_path, rows) is None


def test_the_rigs_own_cpu_per_request_is_told_beside_the_services_tier_by_tier(tmp_path):
    rows = [row(thread_mode="platform", app_cpu_ms_per_req=0.64, pg_cpu_ms_per_req=0.127, stub_cpu_ms_per_req=0.072,
                load_cpu_ms_per_req=0.265, **COSTS),
            row(thread_mode="virtual", app_cpu_ms_per_req=0.32, pg_cpu_ms_per_req=0.054, stub_cpu_ms_per_req=0.037,
                load_cpu_ms_per_req=0.121, **COSTS)]
    lines = {line["what"]: line for line in where(tmp_path, rows).table}
    assert (lines["k6 CPU"]["platform"], lines["k6 CPU"]["virtual"], lines["k6 CPU"]["difference"]) == (
        "0.265 ms", "0.121 ms", "-0.144 ms")
    assert (lines["stub CPU"]["virtual"], lines["PostgreSQL CPU"]["virtual"]) == ("0.037 ms", "0.054 ms")


def test_a_tier_whose_cpu_was_not_measured_in_either_mode_gets_no_line(tmp_path):
    # a --url service's run, or an older CSV: no per-request figure of the other tiers
    whats = [line["what"] for line in where(tmp_path, pair()).table]
    assert "service CPU" in whats and not {"k6 CPU", "stub CPU", "PostgreSQL CPU"} & set(whats)


# The rig's scrape over the hold, as the service counted it: 9.8 ms of CPU and 980 KiB a second, 2 scrapes a second.
# The rows serve 98 requests a second (rows.BASE: 2,940 over 30 s) on 200 ms of CPU a second (20% of one core): the
# scrape is 0.1 ms and 10 KiB of each request's figures as measured, and 4.9% of the service's CPU.
SCRAPE = dict(scrape_cpu_ms_per_s=9.8, scrape_kib_per_s=980, scrape_cpu_ms_per_scrape=4.9, scrape_kib_per_scrape=490)


def test_the_rigs_scrape_is_a_line_of_its_own_and_out_of_the_services_figures_per_request(tmp_path):
    section = where(tmp_path, pair(**SCRAPE))
    lines = {line["what"]: line for line in section.table}
    assert (lines["service CPU"]["platform"], lines["service CPU"]["virtual"]) == ("0.900 ms", "1.900 ms")
    assert (lines["allocated"]["platform"], lines["allocated"]["virtual"]) == ("30.0 KiB", "30.0 KiB")
    said = [sentence for sentence in section.verdict if "the rig's scrape" in sentence]
    assert said == ["released, pool 50, 100 users: the rig's scrape: on platform threads 9.80 ms of CPU and 980.0 KiB "
                    "a second (4.90 ms and 490.0 KiB a scrape), 4.9% of the service's CPU in this row; on virtual "
                    "threads 9.80 ms of CPU and 980.0 KiB a second (4.90 ms and 490.0 KiB a scrape), 4.9% of the "
                    "service's CPU in this row — taken out of the service's CPU and allocation per request where "
                    "measured."]


def test_a_service_that_counts_no_scrape_says_not_measured_and_keeps_its_figures_as_measured(tmp_path):
    section = where(tmp_path, pair())  # a user's service, or a run recorded before the count
    lines = {line["what"]: line for line in section.table}
    assert (lines["service CPU"]["platform"], lines["allocated"]["platform"]) == ("1.000 ms", "40.0 KiB")
    assert ("released, pool 50, 100 users: the rig's scrape: not measured (the service counts no scrape of its own"
            in " ".join(section.verdict))


def test_a_scrape_counted_in_one_mode_only_is_taken_out_there_and_said_not_measured_in_the_other(tmp_path):
    rows = [row(thread_mode="platform", app_cpu_ms_per_req=1.0, **COSTS, **SCRAPE),
            row(thread_mode="virtual", app_cpu_ms_per_req=2.0, **COSTS)]
    section = where(tmp_path, rows)
    lines = {line["what"]: line for line in section.table}
    assert (lines["service CPU"]["platform"], lines["service CPU"]["virtual"]) == ("0.900 ms", "2.000 ms")
    text = " ".join(section.verdict)
    assert "on platform threads 9.80 ms of CPU" in text
    assert "not measured on virtual threads (its figures per request include it)" in text
