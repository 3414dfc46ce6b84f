"""`vtlab setup` and `vtlab db`: the jars, k6 and the seeded database a run needs, and the database by hand."""

from __future__ import annotations

import argparse
import os

from vtlab.cli import flags
from vtlab.core.settings import PG_HOST, STATE
from vtlab.rig import build, ownership, postgres, procs


def add(sub) -> None:
    setup = sub.add_parser("setup", help="build the jars and k6, initialise and seed the database")
    setup.add_argument("--reseed", action="store_true", help="seed again even when already seeded")
    setup.add_argument("--build-only", action="store_true",
                       help="build the jars, k6 and Toxiproxy only: no database (what `vtlab test` needs)")
    setup.set_defaults(func=cmd_setup)
    db = sub.add_parser("db", help="the embedded PostgreSQL (127.0.0.1:5544)")
    db.add_argument("action", choices=("start", "stop", "status", "seed"))
    db.add_argument("--reseed", action="store_true", help="with seed: seed again even when seeded")
    db.set_defaults(func=cmd_db)


def cmd_setup(args: argparse.Namespace) -> int:
    if args.build_only and args.reseed:
        return flags.usage_error("--reseed seeds the database, which --build-only leaves alone: give one of them")
    procs.install_signal_handlers()
    if args.build_only:
        timings = build.tools()
        print("vtlab setup: built (" + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()) + ")")
        return 0
    pg = postgres.main_instance()
    was_running = pg.initialised and pg.running()
    try:
        timings = build.setup(pg, reseed=args.reseed)
    finally:
        if not was_running:
            pg.stop()
    print("vtlab setup: done (" + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()) + ")")
    return 0


def cmd_db(args: argparse.Namespace) -> int:
    pg = postgres.main_instance()
    if args.action == "start":
        started = pg.start()
        ownership.release(pg.postmaster_pid())  # it is meant to outlive this command
        postgres.write_env_file(pg.credentials(), STATE / "db.env")
        print(f"PostgreSQL {'started' if started else 'already running'} on {PG_HOST}:{pg.port} "
              f"(data {pg.data_dir}; credentials in {STATE / 'db.env'})")
    elif args.action == "stop":
        pg.stop()
        print("PostgreSQL stopped")
    elif args.action == "status":
        running = pg.initialised and pg.running()
        seeded = running and pg.seeded()
        print(f"PostgreSQL on {PG_HOST}:{pg.port}: {'running' if running else 'stopped'}"
              + (f", {'seeded' if seeded else 'not seeded'}" if running else "")
              + f" (data {pg.data_dir})")
        return 0 if running else 3
    else:
        seconds = build.prepare_database(pg, reseed=args.reseed or bool(os.environ.get("RESEED")))
        print("already seeded (use --reseed or RESEED=1 to seed again)" if seconds is None
              else f"seeded in {seconds:.1f} s")
    return 0
