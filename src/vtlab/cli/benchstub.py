"""`vtlab bench-stub`: the downstream stub's own capacity on one CPU."""

from __future__ import annotations

import argparse

from vtlab.cli import flags
from vtlab.rig import procs


def add(sub) -> None:
    bench = sub.add_parser("bench-stub", help="measure the downstream stub's capacity on one CPU")
    bench.add_argument("--seconds", type=flags.bounded_int(5, 600, "seconds"), default=20,
                       help="warm-up and measurement length each (default 20)")
    bench.add_argument("--vus", type=flags.bounded_int(1, 5000, "k6 users"), default=64,
                       help="concurrent users (default 64)")
    bench.add_argument("--delay", type=flags.bounded_int(0, 60_000, "milliseconds"), default=0,
                       help="the stub's delay (default 0: pure per-request cost)")
    bench.set_defaults(func=cmd_bench_stub)


def cmd_bench_stub(args: argparse.Namespace) -> int:
    from vtlab.measure import stubbench

    procs.install_signal_handlers()
    try:
        stubbench.run(args.seconds, args.vus, args.delay)
    finally:
        procs.stop_all()
    return 0
