"""Hand-made rows for the analysis and the report, and the run record they are judged with."""

from vtlab.results import record

# The measured rig constants pinned (the floor and the generator's cost are re-measured from time to time): a
# comparison at ± t(4) × 1% = ± 2.776% for one rep; from a host 90% busy, k6's share of the machine costing as much
# of the throughput.
META = {"host": {"cpus_available": 2}, "core_map": "app=0-1 pg=0-1 stub=0-1 load=0-1",
        "rig": {"noise_floor_cv_pct": 1.0, "noise_floor_runs": 5, "generator_host_busy_pct": 90.0,
                "generator_loss_per_share": 1.0}}
RUN = record.from_dict(META)  # the run record of a local run on 2 shared cores

# The price pinned: from a host 86.8% busy, 1.8 of the throughput per share of the machine k6 takes, ± 2.25 (95%),
# priced up to 25% of the machine; the between-run floor ± t(4) × 1% = ± 2.776% (rows.META).
PRICED = record.from_dict({**META, "rig": {**META["rig"], "generator_host_busy_pct": 86.8,
                                           "generator_loss_per_share": 1.8, "generator_loss_per_share_se": 0.52,
                                           "generator_loss_per_share_ci95": 2.25,
                                           "generator_priced_share_max": 0.25}})

# A CPU-bound row on 2 shared cores, the host 97% busy: the service 150% of one core, k6 24% (12% of the machine),
# PostgreSQL 10%, the stub 4%; 400 req/s.
CPU_BOUND = dict(concurrency=400, throughput_rps=400, http_reqs=12000, ok_requests=12000, p50_ms=1000, p99_ms=1100,
                 mean_ms=1000, host_cpu_pct=97, app_cpu_pct=150, app_cpu_pct_max=160, load_cpu_pct=24,
                 load_cpu_pct_max=30, pg_cpu_pct=10, stub_cpu_pct=4, tomcat_connections_max=400)

# A clean virtual-thread row: 100 users, 1 s downstream, nothing queues anywhere.
BASE = {
    "thread_mode": "virtual", "hikari_pool": "50", "path_mode": "normal", "conn_mode": "released",
    "concurrency": "100", "rep": "1", "throughput_rps": "98", "p50_ms": "1010", "p95_ms": "1030",
    "p99_ms": "1050", "p999_ms": "1080", "max_ms": "1100", "error_rate": "0", "http_reqs": "2940",
    "app_cpu_pct": "20", "pg_cpu_pct": "3", "load_cpu_pct": "4", "hikari_active_max": "3",
    "hikari_pending_max": "0", "jvm_threads_max": "40", "rss_mb_max": "300", "pinned_events": "0",
    "load_model": "closed", "target_rps": "0", "dropped_iterations": "0", "stub_delay_ms": "1000",
    "tomcat_max_threads": "200", "hold_s": "30", "ok_requests": "2940", "throughput_first_half_rps": "98",
    "throughput_second_half_rps": "98", "app_cpu_pct_max": "25", "stub_cpu_pct": "3", "load_cpu_pct_max": "6",
    "host_cpu_pct": "15", "tomcat_connections_max": "100", "cpu_samples": "112", "meter_samples": "56",
    "k6_exit": "0", "app_cpus": "2",
}


def row(**changes):
    return {**BASE, **{k: str(v) for k, v in changes.items()}}


# Apache HttpClient 5 as a user gets it (5 connections per route) on a 100 ms downstream: 1,000 virtual users queue
# for 5 connections, ~20 s each. Its lowest-load row (4 users, below the 5) measured the service time.
CLIENT_LOW = dict(http_client="apache", stub_delay_ms=100, concurrency=4, throughput_rps=39.2, http_reqs=1176,
                  ok_requests=1176, p50_ms=102, mean_ms=102, p99_ms=110, client_pool_max=5, client_leased_mean=3.9,
                  client_pending_mean=0, client_pending_max=0, client_pending_share=0)
APACHE_WALL = dict(http_client="apache", stub_delay_ms=100, concurrency=1000, throughput_rps=49.2, http_reqs=1476,
                   ok_requests=1476, p50_ms=20300, mean_ms=20310, p99_ms=20800, throughput_ci95_rps=0.8,
                   client_pool_max=5, client_leased_mean=5, client_pending_mean=994, client_pending_max=995,
                   client_pending_share=1)
