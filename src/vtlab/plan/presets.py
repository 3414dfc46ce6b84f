"""The presets: the values each dimension of a row can take, and the profiles that combine them.

A profile is a list of blocks (each a small cartesian product) plus phase lengths; `profiles()` sizes them for
this machine. How a profile and the command line's flags become rows is vtlab.plan.planner.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from vtlab.core import constants, shapes

MODES = ("platform", "virtual")
# webflux: the reactive twin (services/reactive-app) on the order-summary workload; not in the default modes
ALL_MODES = ("platform", "virtual", "webflux")
# The modes a paired plan compares (plan.interleave), and an A/A measures against itself.
PAIRED_MODES = ("platform", "virtual")
CONN_MODES = ("released", "held")
# synchronized-platform-http: the same monitor, the call on a client whose completions run on platform threads
# (on JDK 21 the plain synchronized path deadlocks instead: its response needs a carrier to complete)
PATH_MODES = ("normal", "synchronized", "synchronized-platform-http", "pinned-control")
PINNING_PATHS = ("normal", "synchronized", "pinned-control")  # the pinning profile's: JEP 491 and its control
MODELS = ("closed", "open")
# order-summary: the blocking DB read + downstream call; write: an insert + the call; offload: the
# read + call on an explicit executor; fanout: the read and two calls, one after the other or at once;
# sleep: pure waiting; cpu: pure computation.
WORKLOADS = ("order-summary", "write", "offload", "fanout", "sleep", "cpu")
# offload: the order-summary work handed to an explicit executor the request thread waits on.
EXECUTORS = ("platform", "virtual")
FANOUTS = ("sequential", "structured")        # fanout workload: StructuredTaskScope or one after the other
POOL_IMPLS = ("hikari", "agroal")             # the JDBC pool of the blocking service
# The blocking service's downstream client (under RestClient, as Spring Boot builds it): the JDK's HttpClient, Apache
# HttpClient 5, Reactor Netty, Jetty's client. Each but the JDK's has a connection pool: its own default, or sized.
HTTP_CLIENTS = ("jdk", "apache", "reactor", "jetty")
POOLED_CLIENTS = ("apache", "reactor", "jetty")
# The blocking service's embedded server: Tomcat, Jetty 12, or Reactor Netty under WebFlux with the same blocking
# controllers on a blocking executor (each as Spring Boot builds it, with its virtual-thread support under virtual
# threads; on platform threads Netty's executor is a fixed pool of the request threads).
SERVERS = ("tomcat", "jetty", "netty")
# The request threads (--tomcat-threads) size every server's pool on platform threads. Under virtual threads Tomcat
# and Netty run each request on a virtual thread of its own, uncapped, but Spring Boot builds Jetty's VirtualThreadPool
# with the same setting (server.jetty.threads.max) as its most concurrent tasks: on Jetty it still caps the requests.
CAPPED_VIRTUAL_SERVERS = ("jetty",)
CONTEXTS = ("none", "threadlocal", "scopedvalue")  # how a per-request context is carried
DEFAULT_WORKLOAD = "order-summary"
# The user's own service (--service JAR or --url): whatever its --endpoint or --script calls. Not a --workload:
# a target sets it, and it clears every dimension of vtlab's own service (pools, paths, Tomcat threads).
SERVICE_WORKLOAD = "service"
# How a row's warm-up ends: when the row has settled (its rate and CPU per request steady; the profile's
# warmup_s the upper bound), or after exactly warmup_s.
WARMUP_ENDS = ("settled", "fixed")
AOT = ("on", "off")
PREWARM = ("on", "off")  # a staircase's fresh JVM run at its top rate before its first step (targets.prewarm)
DOWNSTREAM_HTTP = ("http1", "http2")  # what vtlab's service speaks to the stub: a connection per call, or h2c streams
MEMORY_PROBE = ("on", "off")  # measure.memprobe: each row's memory with every user waiting, Native Memory Tracking on
JDKS = (21, 25)                               # the service's runtimes vtlab installs (vtlab.rig.runtimes)


@dataclass(frozen=True)
class Block:
    conn_modes: tuple[str, ...]
    pools: tuple[int, ...]
    concurrency: tuple[int, ...]
    modes: tuple[str, ...] = MODES
    path_modes: tuple[str, ...] = ("normal",)
    rates: tuple[int, ...] = ()
    workloads: tuple[str, ...] = (DEFAULT_WORKLOAD,)
    tomcat_threads: tuple[int, ...] = ()  # empty: the profile's (or --tomcat-threads) for every row
    scaled: tuple[int, ...] = ()  # concurrencies that grow with the machine's cores (see profiles())
    executors: tuple[str, ...] = ("platform",)  # offload workload only (cleared for the others)
    fanouts: tuple[str, ...] = ("sequential",)  # fanout workload only
    pool_impls: tuple[str, ...] = ("hikari",)
    http_clients: tuple[str, ...] = ("jdk",)
    servers: tuple[str, ...] = ("tomcat",)
    client_pools: tuple[int, ...] = (0,)          # the client's connections per route; 0: its own default
    contexts: tuple[str, ...] = ("none",)
    db_latencies: tuple[int, ...] = (0,)          # ms added per direction between service and PostgreSQL
    downstream_latencies: tuple[int, ...] = (0,)  # ms added per direction between service and stub
    shapes: tuple[str, ...] = ("steady",)         # the load's shape during the hold (vtlab.core.shapes)
    jdks: tuple[int, ...] = (25,)                 # the service's Java runtime (major version)


@dataclass(frozen=True)
class Profile:
    name: str
    blocks: tuple[Block, ...]
    ramp_s: int
    warmup_s: int
    hold_s: int
    reps: int
    stub_delay_ms: int
    summary: str
    stub_jitter_ms: int = 0
    tomcat_max_threads: int = constants.CURRENT.tomcat_max_threads
    model: str = "closed"
    cooldown_s: int = 3
    sleep_ms: int = 5000
    cpu_work: int = 5000
    offload_pool: int = 50
    context_kb: int = 64
    db_jitter_ms: int = 0
    downstream_jitter_ms: int = 0
    spike_multiple: float = shapes.Shape.multiple
    spike_s: int = shapes.Shape.spike_s
    step_count: int = shapes.Shape.steps
    jvm_opts: tuple[str, ...] = ()  # the service's JVM options beyond vtlab's own (heap, JFR)
    runners: int = 1  # k6 processes sharing each row's load (execution segments), merged into one series
    warmup_until: str = "settled"  # WARMUP_ENDS
    # AOT: vtlab's service on JDK 25 starts from its AOT cache (vtlab.rig.aot). Off by default: measured on the
    # quick profile here, it made no row settle sooner, and its training costs more than the faster starts save.
    aot: str = "off"
    memory_probe: str = "off"  # MEMORY_PROBE
    downstream_http: str = "http1"  # DOWNSTREAM_HTTP
    prewarm: str = "on"  # PREWARM
    # A profile that measures its thread modes as one comparison by default (plan.interleave.by_profile): each arm's
    # blocks at each point, each block's hold; 0: each mode in its own stretch of time unless --paired
    pair_blocks: int = 0
    pair_hold_s: int = 0


# The published experiment `--profile headline` repeats (reference/published.csv, tucanoo-springboot-virtualthreads):
# a 100 ms downstream, measured on a host of 16 logical CPUs. Its user counts are kept (2.5×, 12.5× and 50×
# Tomcat's 200 threads); its delay grows as this machine's CPUs are fewer, so that every Little's-law rate — the
# platform wall (200 threads ÷ delay), each virtual point (users ÷ delay) — asks the same of each CPU as it did
# there: 800 ms on 2 CPUs, 100 ms on 16.
PUBLISHED_DELAY_MS = 100
PUBLISHED_CPUS = 16
HEADLINE_USERS = (500, 2500, 10_000)


def headline_delay_ms(cpus: int) -> int:
    return round(PUBLISHED_DELAY_MS * PUBLISHED_CPUS / max(cpus, 1))


def _scale() -> int:
    """How many 2-core units this machine has: the top concurrency grows with it, so virtual
    threads still reach well past the platform wall without saturating a larger CPU budget."""
    return max(1, len(os.sched_getaffinity(0)) // 2)


# Block.scaled concurrencies grow with the machine (× _scale()); CORES in tomcat_threads stands for its CPU count.
CORES = -1

# The presets. The stub answers after 1 s: the platform wall is 200 threads / 1 s = 200 req/s, far below
# what 2 cores can serve (~2,000 req/s), so virtual threads have room to pass it while the service,
# PostgreSQL and k6 together stay well under the two cores (k6: ~0.25 ms CPU per request).
PRESETS: dict[str, Profile] = {
    "quick": Profile(
        name="quick",
        summary="released: both modes at 100/400/1000 users; held: both modes at 100 users (pool 50); paired in 3 "
                "blocks of 10 s a mode",
        # Held: 100 users share 50 connections held ~1 s each, so a request waits ~1 s for one —
        # the pool is the wall, yet no wait nears the 5 s pool timeout (200 users did: 5-15% 503s).
        # Warm-up: at 1,000 virtual-thread users the JIT was still settling 50 s after start; 45 s is the bound of a
        # warm-up that ends once the row settled (measure.settle). Each mode's released loads are the steps of one
        # warm JVM (planner.staircases): the JIT warms once, and the later steps only settle at their load. The hold
        # is 30 s: ten batches of 3 s for the steadiness trend (a 12 s hold got five of 2-3 s).
        # The stub answers after 1,000 ms plus a uniform 0-100 ms: with a fixed delay, closed-model users move in
        # cohorts (a GC pause lines up every user whose answer was due in it; with no jitter they stay lined up), and
        # a cohort whose ~1.04 s cycle slips past a second's edge empties that second: the 1,000-user virtual step
        # swung 703-1,000 req/s a second and came out too-noisy in four default runs of five (trend half-width
        # 9-17%). The same step with the jitter: 927-1,010 req/s a second, half-width 2.7% (2026-11-28, /tmp/w1).
        # Paired by default (Profile.pair_blocks, plan.interleave): both modes' JVMs up, 3 blocks of 10 s a mode at
        # each point in turns, the same 30 s of hold a mode as the 8 rows one mode after the other. In one sitting
        # (2026-11-29, ds5 and dp5: docs/paired.md) those took 516 s and left the held point without an answer (its
        # virtual row hypervisor-steal); the paired run took 519 s, every row valid, 4.98x [4.90-5.05]. A 10 s block
        # cannot show its own hold steady (too-noisy): it stands as its pair does (explain.pairs.standing).
        blocks=(Block(("released",), (50,), (100, 400), scaled=(1000,)),
                Block(("held",), (50,), (100,))),
        ramp_s=5, warmup_s=45, hold_s=30, reps=1, stub_delay_ms=1000, stub_jitter_ms=100,
        pair_blocks=3, pair_hold_s=10),
    "lean": Profile(
        name="lean",
        summary="released only: both modes at 400 and 1000 users, shorter phases",
        blocks=(Block(("released",), (50,), (400,), scaled=(1000,)),),
        ramp_s=5, warmup_s=25, hold_s=20, reps=1, stub_delay_ms=1000),
    "full": Profile(
        name="full",
        summary="both conn modes, pools 10/50/100, 50..2000 users, 3 reps, 60 s phases",
        blocks=(Block(("released",), (50,), (), scaled=(50, 100, 200, 400, 800, 1200, 1600)),
                Block(("held",), (10, 50, 100), (), scaled=(400,))),
        ramp_s=15, warmup_s=60, hold_s=60, reps=3, stub_delay_ms=1000),
    # Scenario presets: each answers one question in a few minutes on 2 cores.
    "pinning": Profile(
        name="pinning",
        summary="JEP 491 check: normal, synchronized and the pinned-control path, both modes at 50 users",
        # A 100 ms downstream: the control pins both carriers, so it serves ~2 / 0.1 s = 20 req/s
        # and 50 users queue ~2.5 s, well inside k6's timeout.
        # At ~450 req/s the fresh JVM (and, in the first row, the stub) was still compiling after 30 s.
        blocks=(Block(("released",), (50,), (), scaled=(50,), path_modes=PINNING_PATHS),),
        ramp_s=5, warmup_s=35, hold_s=20, reps=1, stub_delay_ms=100),
    "jep491": Profile(
        name="jep491",
        summary="JEP 491 before and after: the normal, synchronized and synchronized-platform-http paths on JDK 21 "
                "and JDK 25, virtual threads at 50 users, 100 ms downstream",
        # 50 users are 25× the 2 carriers. On 25 both synchronized paths unmount like the normal one (~450 req/s
        # on 2 cores). On 21 the plain synchronized path deadlocks: every carrier pinned, the response's
        # completion needs one, nothing completes (a stall, captured with a thread dump); on the client with
        # platform-thread completions each request pins its carrier for the 100 ms call, so the carriers are
        # the pool: 2 / 0.1 s = 20 req/s, 50 users queueing ~2.5 s.
        blocks=(Block(("released",), (50,), (), scaled=(50,), modes=("virtual",),
                      path_modes=("normal", "synchronized", "synchronized-platform-http"), jdks=JDKS),),
        ramp_s=5, warmup_s=35, hold_s=20, reps=1, stub_delay_ms=100),
    "write": Profile(
        name="write",
        summary="POST /api/orders (insert + downstream call), both modes at 400 users, every write checked",
        blocks=(Block(("released",), (50,), (), scaled=(400,), workloads=("write",)),),
        ramp_s=10, warmup_s=30, hold_s=30, reps=1, stub_delay_ms=1000),
    "offload": Profile(
        name="offload",
        summary="order-summary work on an explicit executor (fixed platform pool of 50 vs virtual per task), "
                "Tomcat on both thread modes, 400 users",
        # The narrowest pool on the path sets the wall: 50 platform offload threads cap at 50 req/s
        # whatever Tomcat runs on; a virtual executor behind platform Tomcat still stops at its 200.
        blocks=(Block(("released",), (50,), (), scaled=(400,), workloads=("offload",), executors=EXECUTORS),),
        ramp_s=10, warmup_s=30, hold_s=30, reps=1, stub_delay_ms=1000, offload_pool=50),
    "sleep": Profile(
        name="sleep",
        summary="1,000 users, each request sleeps 5 s (no database, no downstream), both modes",
        # Platform: 200 threads / 5 s = 40 req/s, so 1,000 users wait ~25 s; the cool-down lets the
        # last requests started in the hold finish before k6 stops.
        blocks=(Block(("released",), (50,), (), scaled=(1000,), workloads=("sleep",)),),
        ramp_s=5, warmup_s=30, hold_s=50, cooldown_s=35, reps=1, stub_delay_ms=1000, sleep_ms=5000),
    "cpu": Profile(
        name="cpu",
        summary="CPU-bound requests (no I/O): platform pools of cores and 200 threads vs virtual",
        blocks=(Block(("released",), (50,), (), scaled=(20,), modes=("platform",), workloads=("cpu",),
                      tomcat_threads=(CORES, constants.CURRENT.tomcat_max_threads)),
                Block(("released",), (50,), (), scaled=(20,), modes=("virtual",), workloads=("cpu",))),
        # 50,000 SHA-256 rounds are ~8 ms of CPU: heavy enough that k6's ~0.25 ms per request stays a
        # small share of the cores (5,000 rounds gave ~0.8 ms and k6 took a quarter of the machine).
        ramp_s=5, warmup_s=30, hold_s=30, reps=1, stub_delay_ms=1000, cpu_work=50_000),
    "fanout": Profile(
        name="fanout",
        summary="one lookup + two 1 s downstream calls per request, sequential vs StructuredTaskScope, "
                "both modes at 400 users",
        # Sequential: ~2 s per request, so 200 platform threads give ~100 req/s and 400 users ~200;
        # structured: ~1 s, twice that. The stub sees two calls per request (≤ 800 calls/s).
        blocks=(Block(("released",), (50,), (), scaled=(400,), workloads=("fanout",), fanouts=FANOUTS),),
        ramp_s=10, warmup_s=30, hold_s=30, reps=1, stub_delay_ms=1000),
    "pools": Profile(
        name="pools",
        summary="HikariCP vs Agroal at their wall: 20 connections held across a 50 ms call, 200 users, "
                "both modes",
        # Held: each request keeps its connection ~52 ms, so 20 connections cap at ~380 req/s and 200
        # users queue for them: the pool's hand-off is what is measured.
        blocks=(Block(("held",), (20,), (), scaled=(200,), pool_impls=POOL_IMPLS),),
        ramp_s=5, warmup_s=35, hold_s=30, reps=1, stub_delay_ms=50),
    "servers": Profile(
        name="servers",
        summary="Tomcat, Jetty 12 and Netty (WebFlux, blocking controllers on a blocking executor), both modes at "
                "100 users (below the 200 request threads) and 1,000 (above), released, pool 50, 1 s downstream",
        # Platform threads: 200 ÷ 1 s = 200 req/s on each server. Virtual threads: 1,000 users ÷ 1 s on Tomcat and on
        # Netty (a virtual thread per blocking call, uncapped); on Jetty its VirtualThreadPool's 200 concurrent tasks
        # (capped at the rows' request threads) ÷ 1 s. Measured here (2026-11-26): in a 20 s hold the collector's
        # pauses at ~1,000 req/s left the virtual rows' trend too wide to show them steady (too-noisy: Tomcat 910.5 ±
        # 54.8, Netty 863.5 ± 70.7 req/s); with a 60 s hold but a warm-up of at most 45 s, every row's warm-up ended
        # at its bound unsettled and the virtual 1,000-user rows still climbed through the hold (not-steady: Tomcat
        # +31.8%, Netty +40.8%). With up to 120 s they settled after 72-81 s and held steady (Tomcat 953.1 ± 12.8,
        # Netty 964.7 ± 14.2, Jetty 197.1 ± 1.0 req/s, all valid). A row that settles sooner ends its warm-up then.
        blocks=(Block(("released",), (50,), (100,), scaled=(1000,), servers=SERVERS),),
        ramp_s=5, warmup_s=120, hold_s=60, reps=1, stub_delay_ms=1000),
    "clients": Profile(
        name="clients",
        summary="the downstream client: the JDK's, Apache HttpClient 5, Reactor Netty and Jetty's, on a 100 ms "
                "downstream; each at 4 users (below every pool), the pooled ones with their default pools at 1,000 "
                "users in both modes, the JDK's and Apache's sized to the users at 150",
        # Each pool's wall is its connections ÷ 0.1 s: Apache's 5 per route 50 req/s, Reactor's 16 (2 × max(CPUs,
        # 8)) 160 req/s with a bounded queue (the rest refused at once), Jetty's 64 640 req/s with 1,024 queued. At
        # Apache's wall 1,000 users wait 20 s each, well inside k6's 60 s and the pool's 3 min request timeout.
        # Without a pool wall 1,000 users ask 10,000 req/s of 2 cores: measured, the JDK's client and Apache's sized to
        # 1,000 reached 4,440 and 5,496 req/s with k6 costing them a third (generator-interference, 2026-11-26); 150
        # users ask 1,500 req/s, which the machine serves.
        blocks=(Block(("released",), (50,), (4,), modes=("virtual",), http_clients=HTTP_CLIENTS),
                Block(("released",), (50,), (1000,), http_clients=POOLED_CLIENTS),
                Block(("released",), (50,), (150,), modes=("virtual",), http_clients=("jdk", "apache"),
                      client_pools=(150,))),
        ramp_s=10, warmup_s=45, hold_s=30, reps=1, stub_delay_ms=100),
    "latency": Profile(
        name="latency",
        summary="PostgreSQL on loopback vs 20±5 ms away (each direction, through Toxiproxy), pool 10, "
                "400 users, both modes",
        # On loopback the query holds a connection ~1 ms and 400 virtual users reach ~400 req/s; 20 ms
        # each way make it ~42 ms, so 10 connections cap both modes near 10 / 0.042 = 240 req/s.
        blocks=(Block(("released",), (10,), (), scaled=(400,), db_latencies=(0, 20)),),
        ramp_s=10, warmup_s=35, hold_s=30, reps=1, stub_delay_ms=1000, db_jitter_ms=5),
    "context": Profile(
        name="context",
        summary="1,000 virtual-thread users each carrying a 64 KB request context: none vs ThreadLocal "
                "vs ScopedValue (RSS, heap, GC)",
        # A 2 s downstream keeps 1,000 requests in flight at ~500 req/s: 64 MB of live context, with
        # the CPU left well short of saturation so GC differences are not CPU queueing.
        blocks=(Block(("released",), (50,), (), scaled=(1000,), modes=("virtual",), contexts=CONTEXTS),),
        ramp_s=10, warmup_s=35, hold_s=30, reps=1, stub_delay_ms=2000, context_kb=64),
    "service": Profile(
        name="service",
        summary="your own service (--service JAR or --url): both modes at 10, 100 and 400 users, paired in 3 blocks "
                "of 10 s a mode; the 10-user point measures its service time",
        # Paired by default, as the quick profile: a user's service is most often CPU-bound on a shared machine,
        # where the host's speed moves under rows measured one mode after the other. spring-petclinic-rest (Boot
        # 3.5.7, 80% GET / 20% POST on PostgreSQL, 2026-11-29): one mode after the other, 0 of 6 rows valid, no
        # answer in 498 s (lp2: too-noisy, not-steady, generator-interference); paired, 3 blocks of 10 s, 481 s and
        # an answer at 400 users, 1.14x [0.81-1.61] (lpp).
        blocks=(Block(("released",), (0,), (10,), scaled=(100, 400), workloads=(SERVICE_WORKLOAD,)),),
        ramp_s=10, warmup_s=45, hold_s=30, reps=1, stub_delay_ms=0, tomcat_max_threads=0,
        pair_blocks=3, pair_hold_s=10),
    "hero": Profile(
        name="hero",
        summary="the hero point: both modes at 2,000 users (×cores/2), released, pool 50, 1 s downstream, 2 reps, "
                "the service on ParallelGC with a 4 GB heap",
        # Measured here (virtual, 2 reps each): G1 with 1 GB 1,728/1,749 req/s, 30 young pauses (~2.4 s) in the 30 s
        # hold; ParallelGC 1 GB 1,778/1,804; ParallelGC 2 GB 1,773/1,882; ParallelGC 4 GB 1,864/1,861 (6-7 pauses,
        # app CPU 0.36-0.38 ms per request against 0.47-0.50). ZGC: 1,647/1,541, its barriers cost 0.72-0.82 ms.
        # A 60 s hold: in 30 s the GC pauses left the hold's trend too wide to show it steady (too-noisy: 22.5%,
        # 14.8% and 10.2% in three of five virtual reps); in 60 s, 9.4% and 7.0%, both reps valid (2026-11-26).
        # Again with --profiles cpu,alloc attached (its cost in every figure, so not comparable with the ones above),
        # 60 s holds, 2 reps each, one sitting (2026-11-26): G1 1 GB 0.356/0.370 ms of CPU a request, ParallelGC 4 GB
        # 0.393/0.343: no gap beyond the reps' spread; by the profiles G1's evacuation costs ~0.03 ms more and
        # ParallelGC's kernel zeroing the fresh pages of its larger heap (clear_page_erms) ~0.02 ms more.
        blocks=(Block(("released",), (50,), (), scaled=(2000,)),),
        ramp_s=10, warmup_s=60, hold_s=60, reps=2, stub_delay_ms=1000,
        jvm_opts=("-XX:+UseParallelGC", "-Xms4g", "-Xmx4g")),
    "headline": Profile(
        name="headline",
        summary="the published experiment (500, 2,500 and 10,000 users, released, pool 50, both modes) with its "
                "100 ms downstream scaled to this machine's CPUs (× 16 ÷ CPUs)",
        # 10,000 users take a while to connect, and the first row's JIT a minute to settle at ~1,700 req/s
        blocks=(Block(("released",), (50,), HEADLINE_USERS),),
        ramp_s=20, warmup_s=60, hold_s=30, reps=1, stub_delay_ms=PUBLISHED_DELAY_MS),
    "frontier": Profile(
        name="frontier",
        summary="virtual threads at 2,000, 5,000 and 10,000 users on an 8 s downstream (the CPU far from its wall), "
                "platform threads at the two lower points with a thread per user, the memory probe on: memory per "
                "waiting request, p99, RSS and heap against the users",
        # 10,000 ÷ 8 s = 1,250 req/s, ~0.5 ms of the service's CPU each on 2 cores: the users, not the CPU, are the
        # wall. Platform threads get a thread per user (Tomcat's 200 would queue 4,800 users for 200 s each): the
        # rows compare what a waiting request costs in each model. The ramp is long enough for 10,000 connects.
        blocks=(Block(("released",), (50,), (2000, 5000, 10000), modes=("virtual",)),
                Block(("released",), (50,), (2000,), modes=("platform",), tomcat_threads=(2000,)),
                Block(("released",), (50,), (5000,), modes=("platform",), tomcat_threads=(5000,))),
        # HTTP/2 to the stub: over HTTP/1.1 each waiting request holds a second file (its call out), and 10,000 users
        # need ~21,000 open files in the service, more than this machine's hard limit of 20,000 (measured: the row
        # held 19,999, its calls and the rig's scrapes failed).
        # An 80 s hold, ten 8 s batches: each holds one wave of every user's request. Over 30 s every row's successes a
        # second swung with the users' waves, so wide that no row could show its hold steady (too-noisy, 2026-11-26).
        # ZGC with an 8 GB heap: on G1 (its default heap) the 10,000-user row paused 49 times for 7.7 s in its 80 s
        # hold, each pause lining users up into cohorts, and its successes a second swung 179-3,677 (trend
        # half-width 33%, too-noisy); on ZGC the same row, no stub jitter, measured 1,243 req/s, 99.4% of 10,000 ÷ 8
        # s, half-width 4.5%, 0 errors (2026-11-28, front4 and front6; with a 0-800 ms jitter too: 1,199, 3.5%).
        ramp_s=30, warmup_s=60, hold_s=80, reps=1, stub_delay_ms=8000, memory_probe="on", downstream_http="http2",
        jvm_opts=("-XX:+UseZGC", "-Xmx8g")),
    "spike": Profile(
        name="spike",
        summary="a sudden step from 200 to 600 users for 10 s and back, both modes: p99 before and during, "
                "requests failed, seconds until p99 recovers",
        # 200 users sit at the platform wall (200 threads / 1 s); ×3 queues 400 of them behind it for the
        # spike, while virtual threads carry all 600 (~600 req/s on 2 cores).
        blocks=(Block(("released",), (50,), (), scaled=(200,), shapes=("spike",)),),
        ramp_s=10, warmup_s=45, hold_s=60, reps=1, stub_delay_ms=1000, spike_multiple=3, spike_s=10),
    "soak": Profile(
        name="soak",
        summary="a long hold at 400 users, both modes (set its length with --hold): RSS, threads and GC "
                "drift per minute",
        blocks=(Block(("released",), (50,), (), scaled=(400,), shapes=("soak",)),),
        ramp_s=10, warmup_s=45, hold_s=600, reps=1, stub_delay_ms=1000),
    "reactive": Profile(
        name="reactive",
        summary="platform vs virtual threads vs the WebFlux + R2DBC twin, order summary at 1,000 users",
        blocks=(Block(("released",), (50,), (), scaled=(1000,), modes=ALL_MODES),),
        # The twin's JIT settles later: after 45 s of warm-up its throughput still rose 538 -> 689 req/s
        # between the hold's halves (the thread-model rows were steady).
        ramp_s=10, warmup_s=75, hold_s=30, reps=1, stub_delay_ms=1000),
}


# The profiles whose top point this machine's calibration sizes (plan.sizing), never above the nominal one: the hero's
# one point (2,000 users asked ~85% of these 2 cores, so a machine 30% slower put k6's cost on every virtual row) and
# the default's 1,000 users where they would not fit. A --conc given by the user is never moved.
SIZED_PROFILES = ("quick", "hero")


def profiles() -> dict[str, Profile]:
    """The presets sized for this machine."""
    s, cores = _scale(), len(os.sched_getaffinity(0))

    def sized(block: Block) -> Block:
        return replace(block, concurrency=block.concurrency + tuple(c * s for c in block.scaled), scaled=(),
                       tomcat_threads=tuple(cores if t == CORES else t for t in block.tomcat_threads))

    presets = {name: replace(p, blocks=tuple(sized(b) for b in p.blocks)) for name, p in PRESETS.items()}
    presets["headline"] = replace(presets["headline"], stub_delay_ms=headline_delay_ms(cores))
    return presets
