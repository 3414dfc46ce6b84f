"""The report tells how to get the service's own ceiling only where rows shared its cores with a costly k6, and
says what those rows' throughput is."""

from vtlab.explain import analyze
from vtlab.report import story

from rows import CPU_BOUND, PRICED, row


def told(*rows):
    return " ".join(story.explain(analyze.analyse(list(rows), PRICED)))


def test_rows_whose_generator_was_priced_are_told_with_how_to_measure_the_services_own_ceiling():
    text = told(row(**CPU_BOUND), row(**{**CPU_BOUND, "thread_mode": "platform", "tomcat_max_threads": 400}))
    # k6 12% of the machine, loss 1.8 × 0.12 = 0.216: 1 ÷ 0.784 − 1 = 28% more for both
    assert ("2 row(s) measured the service on cores it shared with k6 on a full host: virtual 400 users released, "
            "pool 50; platform (400 threads) 400 users released, pool 50.") in text
    assert "without k6 on its cores it would serve ~28% more (priced against wrk" in text
    assert "`--cpus 'app=0-3 pg=4 stub=5 load=6-7'`" in text and "`--url`" in text and "`vtlab k8s run`" in text


def test_a_generator_that_could_not_be_bounded_is_told_with_the_same_way_out():
    # 30% of the machine, beyond the 25% priced
    text = told(row(**{**CPU_BOUND, "load_cpu_pct": 60, "load_cpu_pct_max": 70}))
    assert ("1 row(s) shared the cores with a k6 whose cost could not be bounded (generator-interference: its "
            "evidence says why): virtual 400 users released, pool 50.") in text
    assert "measured the service on cores it shared" not in text and "`--cpus" in text


def test_a_run_whose_rows_did_not_share_the_cores_with_a_costly_k6_is_not_told_to_move_it():
    text = told(row(**{**CPU_BOUND, "host_cpu_pct": 60, "app_cpu_pct": 90}))
    assert "--cpus" not in text and "shared with k6" not in text
