"""The plan's rows checked against each other and the runtimes at hand: a combination that cannot run is refused
here, naming the flags, before anything starts."""

from __future__ import annotations

from vtlab.core.dimensions import Row
from vtlab.core.settings import DB_MAX_CONNECTIONS, DB_RESERVED_CONNECTIONS
from vtlab.plan.presets import JDKS, POOLED_CLIENTS

# What needs a JDK 25 service: these parts live in services/jdk25 (compiled with release 25), and a JDK 21
# service refuses to load them; the plan refuses such rows first, naming the flags. (flag, value, why)
NEEDS_JDK25 = (
    ("--path-mode", "pinned-control", lambda r: r.path_mode == "pinned-control",
     "the control blocks inside an FFM upcall (FFM is final only from JDK 22; vtlab's build is release 25)"),
    ("--context", "scopedvalue", lambda r: r.context == "scopedvalue", "ScopedValue is final only in JDK 25"),
    ("--fanout", "structured", lambda r: r.fanout == "structured",
     "StructuredTaskScope is JDK 25's preview API (JDK 21's differs)"),
)


def check(rows: tuple[Row, ...], setting: dict, java_homes: dict[int, str], client_pools: tuple[int, ...] | None,
          downstream_http: str) -> None:
    """Every check below but connections (which only a run on vtlab's own PostgreSQL needs); ValueError naming the
    flags at the first that fails."""
    shapes(rows, setting)
    jdks(rows, java_homes)
    runners(rows, setting["runners"])
    clients(rows, client_pools, downstream_http)
    servers(rows)


def connections(rows: tuple[Row, ...], together: bool) -> None:
    """vtlab's service opens its whole pool at start: a pool, or two arms' pools up together, beyond what vtlab's
    PostgreSQL takes would fail the JVM's start mid-run (ValueError naming --pools). For a run on this machine's
    PostgreSQL (vtlab run, vtlab capacity); a cluster's database is the cluster's."""
    room = DB_MAX_CONNECTIONS - DB_RESERVED_CONNECTIONS
    largest = max((row.hikari_pool for row in rows), default=0)
    held = 2 * largest if together else largest
    if held > room:
        both = f"both arms' JVMs, up together, hold {held} connections at once; " if together else ""
        raise ValueError(f"--pools {largest}: {both}vtlab's PostgreSQL takes {room} for the service (of "
                         f"{DB_MAX_CONNECTIONS}); give --pools {room // 2 if together else room} or fewer")


def jdks(rows: tuple[Row, ...], java_homes: dict[int, str]) -> None:
    """A JDK older than 25 cannot load the service's JDK-25-only parts: refuse the flag combination now."""
    for row in rows:
        if row.jdk not in JDKS and row.jdk not in java_homes:
            raise ValueError(f"--jdk {row.jdk}: vtlab provides {', '.join(map(str, JDKS))}; give a JDK {row.jdk} "
                             "with --java-home PATH")
        if row.jdk >= 25:
            continue
        for flag, value, needs, why in NEEDS_JDK25:
            if needs(row):
                raise ValueError(f"{flag} {value} with --jdk {row.jdk} cannot run: {why}; measure it with --jdk 25 "
                                 f"or drop {value}")


def shapes(rows: tuple[Row, ...], setting: dict) -> None:
    """A shape has to fit its hold: the spike with room before and after it, a step of at least 5 s."""
    used = {row.shape for row in rows}
    if "spike" in used and setting["hold_s"] < 3 * setting["spike_s"]:
        raise ValueError(f"--shape spike: --hold {setting['hold_s']} is too short for --spike-s "
                         f"{setting['spike_s']}: the hold needs at least 3 × the spike (before, during, after)")
    if "spike" in used and setting["spike_multiple"] <= 1:
        raise ValueError(f"--spike-multiple {setting['spike_multiple']:g}: the spike's load is a multiple above 1")
    if "steps" in used and setting["hold_s"] < 5 * setting["step_count"]:
        raise ValueError(f"--shape steps: --hold {setting['hold_s']} is too short for --steps "
                         f"{setting['step_count']}: each step needs at least 5 s")


def clients(rows: tuple[Row, ...], client_pools: tuple[int, ...] | None, downstream_http: str) -> None:
    """A pool size needs a client with a pool; HTTP/2 to the stub is the JDK client's h2c upgrade."""
    pooled = sorted({row.http_client for row in rows if row.http_client in POOLED_CLIENTS})
    if client_pools is not None and not pooled:
        raise ValueError(f"--client-pool {','.join(map(str, client_pools))} sizes the pool of "
                         f"{', '.join(POOLED_CLIENTS)}; the plan's rows call the stub with the JDK's client, which has "
                         "none: add --http-client")
    own_client = sorted({row.path_mode for row in rows if row.http_client != "jdk"
                         and row.path_mode in ("synchronized-platform-http", "pinned-control")})
    if own_client:
        raise ValueError(f"--path-mode {','.join(own_client)} calls the stub through its own JDK client: give "
                         "--http-client jdk for it, or another --path-mode")
    if downstream_http == "http2" and pooled:
        raise ValueError(f"--downstream-http http2 is the JDK client's h2c upgrade; --http-client {','.join(pooled)} "
                         "speaks HTTP/1.1 to the stub: give --downstream-http http1 or --http-client jdk")


def servers(rows: tuple[Row, ...]) -> None:
    """The request context is bound by a servlet filter, which Netty's WebFlux does not run."""
    contexts = sorted({row.context for row in rows if row.server == "netty" and row.context != "none"})
    if contexts:
        raise ValueError(f"--context {','.join(contexts)} is bound by a servlet filter; --server netty runs WebFlux, "
                         "which has none: give --context none for it, or another --server")


def runners(rows: tuple[Row, ...], runners: int) -> None:
    """Each runner takes its execution segment's share of a row's users: one with none would run nothing (closed
    model) or drop every arrival it is handed (open model: its share of the VUs is what serves them)."""
    fewest = min(row.concurrency for row in rows)
    if runners > fewest:
        raise ValueError(f"--runners {runners}: more k6 processes than the {fewest} users of the plan's smallest row; "
                         f"give at most --runners {fewest}")
