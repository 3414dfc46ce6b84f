"""The tiers a run on this machine brings up before its first row — for vtlab's own service, or for the user's —
and what metadata records of the machine they run on."""

from __future__ import annotations

from pathlib import Path

from vtlab.core import constants
from vtlab.core import cores
from vtlab.core.settings import TOOLS
from vtlab.measure import load, profiler as profiling, tiers
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan
from vtlab.rig import build, machine, netdelay, ownership, postgres, procs


def own_rig(plan: Plan, run_dir: Path, core_map: dict[str, set[int]], keep: bool, k6_dashboard: bool) -> tiers.Rig:
    """vtlab's own service's tiers: the seeded PostgreSQL, the stub and, when a row adds latency, Toxiproxy."""
    java = tiers.find_java(plan, run_dir)
    pg = postgres.main_instance()
    # A server the user started (`vtlab db start`) stays up; one we start, we stop.
    if not (pg.initialised and pg.running()) and not keep:
        procs.on_cleanup(pg.stop)
    build.setup(pg, pg_cpus=core_map["pg"], toxiproxy=False)  # built below when a row adds latency
    if keep:
        ownership.release(pg.postmaster_pid())  # the user's now, like one `vtlab db start` started
    k6 = build.build_k6()
    k6_version = load.k6_version(k6)
    stub_settings = (plan.stub_delay_ms, plan.stub_jitter_ms, plan.downstream_http == "http2")
    stub = tiers.start_stub(java, stub_settings, run_dir, core_map, keep)
    if keep:
        print(f"vtlab: --keep: the stub (pid {stub.pid}) and PostgreSQL stay up after the run")
    rig = tiers.Rig(java, k6, k6_version, pg, stub, stub_settings, core_map, run_dir, k6_dashboard=k6_dashboard,
                    runners=plan.runners, max_order_id=pg.max_seeded_order_id(), max_customer_id=pg.max_customer_id(),
                    memory_probe=plan.memory_probe == "on")
    if any(_delayed(row) for row in plan.rows):
        # Shares the cores with the tiers it sits between; its CPU is sampled as its own tier.
        rig.toxiproxy = netdelay.start(build.build_toxiproxy(), run_dir / "logs" / "toxiproxy.log", core_map["stub"])
    return rig


def user_rig(plan: Plan, run_dir: Path, core_map: dict[str, set[int]], k6_dashboard: bool, database: bool,
             stub: bool, database_port: int | None = None) -> tiers.Rig:
    """A user's service's tiers: PostgreSQL only when it asks for vtlab's `database` (no seed: the service owns
    its schema), Toxiproxy in front of it where a row adds latency, the `stub` only when its settings name
    {stub_url}; its own database on this machine (`database_port`) sampled as the database tier."""
    java = tiers.find_java(plan, run_dir)
    pg = None
    if database:
        pg = postgres.main_instance()
        if pg.start(core_map["pg"]):
            procs.on_cleanup(pg.stop)
    k6 = build.build_k6()
    if stub:
        build.build_jars()
    settings = (plan.stub_delay_ms, plan.stub_jitter_ms, False)  # h2c only for vtlab's service: start_stub
    started = tiers.start_stub(java, settings, run_dir, core_map, False) if stub else None
    rig = tiers.Rig(java, k6, load.k6_version(k6), pg, started, settings, core_map, run_dir,
                    k6_dashboard=k6_dashboard, runners=plan.runners, memory_probe=plan.memory_probe == "on",
                    database_port=database_port)
    if database and any(_delayed(row) for row in plan.rows):  # --db-latency: vtlab's PostgreSQL, further away
        rig.toxiproxy = netdelay.start(build.build_toxiproxy(), run_dir / "logs" / "toxiproxy.log", core_map["stub"])
    return rig


def profiler(kinds: tuple[str, ...], rig: tiers.Rig) -> profiling.Tool | None:
    """async-profiler for every row's hold, fetched from Maven Central the first time; None without kinds."""
    if not kinds:
        return None
    return profiling.Tool(rig.java.java, build.fetch_profiler(), TOOLS / "profiler" / "extracted", rig.java.jfr, kinds)


def describe(rig: tiers.Rig) -> dict[str, object]:
    """The machine, the versions and the core map (rig/machine.py), and the constants the run measured with."""
    return {**machine.collect(rig.java.java, rig.k6_version, cores.describe_map(rig.core_map)),
            "rig": constants.record()}


def _delayed(row: Row) -> bool:
    return bool(row.db_latency_ms or row.db_jitter_ms or row.downstream_latency_ms or row.downstream_jitter_ms)
