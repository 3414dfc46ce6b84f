"""The tiers a local run keeps up beside each row's service (PostgreSQL, the stub, Toxiproxy, k6) and what is done
with them between rows: watched while a row runs, started again when one died."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from vtlab.core.settings import HOST, PG_HOST, STUB_HOST, STUB_PORT, Java
from vtlab.measure import liveness, profiler
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan
from vtlab.rig import build, listeners, netdelay, postgres, prereqs, procs, runtimes, services

# The tiers as failed rows and the report name them.
SERVICE, STUB, DATABASE, PROXY, LOAD = "service", "stub", "PostgreSQL", "latency proxy", "load generator (k6)"


@dataclass
class Rig:
    """The long-lived tiers of a local run (PostgreSQL and the stub) and what each row needs."""
    java: Java
    k6: Path
    k6_version: str
    pg: postgres.Postgres | None   # None: a user's service that needs no database of vtlab's
    stub: services.Tier | None     # None: a user's service that calls no stub
    stub_settings: tuple[int, int, bool]  # delay and jitter (ms), h2c on: what a restarted stub needs
    core_map: dict[str, set[int]]
    run_dir: Path
    toxiproxy: netdelay.Toxiproxy | None = None  # only when some row adds network latency
    k6_dashboard: bool = False   # export k6's own web dashboard of each row (it costs k6 CPU: opt-in)
    runners: int = 1  # k6 processes sharing each row's load (plan.runners)
    profiler: profiler.Tool | None = None  # async-profiler for each row's hold (--profiles); None: no profiles
    memory_probe: bool = False  # each row's memory with every user waiting (--memory-probe, measure.memprobe)
    # A user's --db-url database on this machine: its listener's port. The process listening there is the database
    # tier (pg), sampled like vtlab's own: its CPU is the row's, not a neighbour's.
    database_port: int | None = None
    max_order_id: int = 0     # the seeded ids vtlab's own service's load picks from
    max_customer_id: int = 0
    # A paired plan's other arm's service JVM, idle while this row's loads its own (set by the target before each
    # row): the rig's own process, sampled as the tier `idle`, never a neighbour's CPU.
    idle_services: tuple[int, ...] = ()

    def own_pids(self) -> set[int]:
        """The long-lived tiers' processes: not neighbours of the run."""
        return {pid for pid in (self.database_pid(), self.stub.pid if self.stub else None) if pid}

    def database_pid(self) -> int | None:
        """The database tier's root process: vtlab's PostgreSQL, or whatever listens on a user's local database port."""
        if self.pg is not None:
            return self.pg.postmaster_pid()
        return listeners.listening_pid(self.database_port) if self.database_port else None

    def jcmds(self, java: Java) -> list[Path]:
        """The jcmd tools that reach a row's service: its runtime's, then vtlab's own (a runtime may ship none)."""
        return [java.home / "bin" / "jcmd", self.java.home / "bin" / "jcmd"]

    def pids(self, app: services.Tier) -> dict[str, int | tuple[int, ...] | None]:
        """The tiers whose CPU a row samples, the load's runners apart (drive adds them)."""
        return {"app": app.pid, "pg": self.database_pid(), "stub": self.stub.pid if self.stub else None,
                **({"idle": self.idle_services} if self.idle_services else {})}

    def probes(self, app: services.Tier) -> list[liveness.Probe]:
        """Every tier the row's numbers depend on, the database included."""
        probes = []
        if app.proc is not None:
            probes.append(liveness.child(SERVICE, app.proc, app.log))
        if self.stub is not None:
            probes.append(liveness.child(STUB, self.stub.proc, self.stub.log))
        if self.pg is not None:
            probes.append(liveness.daemon(DATABASE, self.pg.postmaster_pid, self.pg.log))
        if self.toxiproxy is not None:
            probes.append(liveness.child(PROXY, self.toxiproxy.proc, self.toxiproxy.log))
        return probes

    def route(self, row: Row, slug: str) -> tuple[dict[str, str], str, list[str]]:
        """The database environment and stub URL vtlab's service gets: direct on loopback, or through a
        Toxiproxy proxy adding the row's latency each way. Returns them with the proxies to remove."""
        assert self.pg is not None and self.stub is not None
        db_env = self.pg.credentials().service_env()
        stub_url = self.stub.base_url
        db_env["DB_URL"], proxies = self.database_route(db_env["DB_URL"], row, slug)
        if row.downstream_latency_ms or row.downstream_jitter_ms:
            assert self.toxiproxy is not None
            port = self.toxiproxy.add(f"stub-{slug}", STUB_HOST, STUB_PORT, row.downstream_latency_ms,
                                      row.downstream_jitter_ms)
            proxies.append(f"stub-{slug}")
            stub_url = f"http://{HOST}:{port}"
        return db_env, stub_url, proxies

    def database_route(self, jdbc_url: str, row: Row, name: str) -> tuple[str, list[str]]:
        """A JDBC URL of vtlab's PostgreSQL as the service reaches it: through a Toxiproxy proxy `pg-{name}` adding the
        row's latency each way, or as given where the row adds none. Returns it with the proxies to remove."""
        if not (row.db_latency_ms or row.db_jitter_ms):
            return jdbc_url, []
        assert self.pg is not None and self.toxiproxy is not None
        direct = f"//{PG_HOST}:{self.pg.port}/"
        assert direct in jdbc_url, jdbc_url  # a URL of vtlab's own server, or the latency would silently be lost
        port = self.toxiproxy.add(f"pg-{name}", PG_HOST, self.pg.port, row.db_latency_ms, row.db_jitter_ms)
        return jdbc_url.replace(direct, f"//{HOST}:{port}/"), [f"pg-{name}"]

    def unroute(self, proxies: list[str]) -> None:
        if self.toxiproxy is None or self.toxiproxy.proc.poll() is not None:
            return  # a stopped Toxiproxy took its proxies with it
        for name in proxies:
            self.toxiproxy.remove(name)

    def revive(self, tier: str, keep: bool) -> None:
        """Fresh tiers for the next row: the service is fresh every row anyway; a dead stub, proxy or database
        is started again, or the run stops saying why."""
        if tier == STUB and self.stub is not None and self.stub.proc.poll() is not None:
            self.stub = start_stub(self.java, self.stub_settings, self.run_dir, self.core_map, keep)
        elif tier == PROXY and self.toxiproxy is not None and self.toxiproxy.proc.poll() is not None:
            self.toxiproxy = netdelay.start(build.build_toxiproxy(), self.run_dir / "logs" / "toxiproxy.log",
                                            self.core_map["stub"])
        elif tier == DATABASE and self.pg is not None and _gone_soon(self.pg):
            try:
                self.pg.start(self.core_map["pg"])
            except RuntimeError as err:
                raise RuntimeError(f"PostgreSQL died during a row and could not be started again ({err}); every row "
                                   "measured so far is in the CSV: fix the database, then --resume") from err
            print(f"vtlab: PostgreSQL died during a row and was started again (pid {self.pg.postmaster_pid()})")


# A killed postmaster's pid outlives it until its parent reaps it: pg_ctl status still says "running" for that
# moment, and a start then finds the server up and leaves it (seen in CI: row 4 of the busy-neighbour test started
# its service against no database).
DEAD_SERVER_WAIT_S = 10.0


def _gone_soon(pg: postgres.Postgres) -> bool:
    """Whether PostgreSQL's own status says the server is not running, now or within DEAD_SERVER_WAIT_S (a server
    that still runs then is left be, as before: the next row shows whether it serves)."""
    deadline = time.monotonic() + DEAD_SERVER_WAIT_S
    while pg.running():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def find_java(plan: Plan, run_dir: Path) -> Java:
    """The JDK the tiers and tools run on, every row's JDK installed (vtlab's JDK 21 before any tier starts)."""
    java = prereqs.find_jdk()
    for jdk in sorted({row.jdk for row in plan.rows}):
        runtimes.java_for(jdk, plan.java_homes)
    run_dir.mkdir(parents=True, exist_ok=True)
    return java


def start_stub(java: Java, settings: tuple[int, int, bool], run_dir: Path, core_map: dict[str, set[int]],
               keep: bool) -> services.Tier:
    delay_ms, jitter_ms, http2 = settings
    stub = services.start_stub(java, STUB_PORT, delay_ms, jitter_ms, run_dir / "logs" / "stub.log", core_map["stub"],
                               detached=keep, http2=http2)
    if not keep:
        procs.on_cleanup(stub.stop)
    return stub
