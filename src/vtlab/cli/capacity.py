"""`vtlab capacity --slo 'p99<=500ms,errors<=0.1%'`: the most load each thread mode carries within the objective,
found by a staircase and bisection (vtlab.capacity.search), on whatever `vtlab run` measures. The search asks for
its points through one callable: measured on the live tiers by cli.capacitylive (each a row, cli.capacitypoints)."""

from __future__ import annotations

import argparse
import re
from dataclasses import replace
from pathlib import Path

from vtlab.cli import flags, targetflags
from vtlab.core import cores, dimensions, objective
from vtlab.measure import hostwork
from vtlab.plan import calibration, checks, planner

# A user's service's first load (open model): the rate at which a request of vtlab's own Spring Boot service, at the
# upper bound of its cost this machine's calibration measured (its first step's, the JIT's and rig's costs a second
# billed to its requests), takes this share of the CPU — ~85 req/s on the 2-core machine the search was tuned on,
# where the third-party app's capacity is ~700: from 10 req/s (one a second per profile user), the staircase spent
# three points under 400 req/s and the platform search's budget ran out at a 42% bracket (captp5); from 85, at 11%
# (captp6: this service's p99 moves ±25% hold to hold near its capacity). A service dearer than vtlab's steps down.
START_SHARE = 0.25

# Plan flags the search sets itself, per point: the loads it measures and their shape.
SEARCH_SETS = (("rates", "--rates"), ("concurrency", "--conc"), ("shapes", "--shape"), ("reps", "--reps"))


def slo(text: str) -> objective.Objective:
    try:
        return objective.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def precision(text: str) -> float:
    """--precision: a share of the capacity, as 5% or 5."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%?\s*", text)
    value = float(match[1]) / 100 if match else 0.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; use a percentage above 0 and under 100, e.g. 5%")
    return value


def budget(text: str) -> float:
    """--budget: seconds, from minutes (15, 15m) or seconds (900s)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(m|s|min)?\s*", text)
    seconds = float(match[1]) * (1 if match[2] == "s" else 60) if match else 0.0
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; use minutes (15 or 15m) or seconds (900s), "
                                         "above 0")
    return seconds


def add(sub) -> None:
    command = sub.add_parser("capacity", help="the most load each thread mode carries within an objective",
                             description="Find each thread mode's capacity at an objective: a staircase up until it "
                                         "breaks, then bisection to --precision, every point judged beyond its noise.")
    command.add_argument("--slo", type=slo, required=True, metavar="OBJECTIVE", help=objective.ACCEPTED.replace(
        "%", "%%") + "; e.g. 'p99<=500ms,errors<=0.1%%'")
    command.add_argument("--precision", type=precision, default=0.05,
                         help="the bracket wanted around each capacity, in %% of it (default 5%%)")
    command.add_argument("--budget", type=budget, default=900.0,
                         help="the time every mode's search may take together: minutes (15, the default) or seconds "
                              "(900s)")
    command.add_argument("--start", type=flags.bounded_int(1, 1_000_000, "a load"),
                         help="the first load: req/s (open model) or users (closed); default from the profile")
    command.add_argument("--max-load", type=flags.bounded_int(1, 1_000_000, "a load"), default=5_000,
                         help="the most load the staircase climbs to, req/s or users (default 5,000): each mode's "
                              "service JVM is sized for it from its start")
    command.add_argument("--cpus", type=flags.core_map, help="core map override, as for vtlab run")
    command.add_argument("--keep", action="store_true", help="leave PostgreSQL and the stub up after the search")
    command.add_argument("--out", type=Path, help="run folder (default results/<timestamp>)")
    command.add_argument("--dry-run", action="store_true", help="print the search's plan and exit")
    command.add_argument("--paired", dest="in_turn", action="store_true",
                         help="search every mode at once, their points taken in turn on two warm JVMs up together, so "
                              "that the host's drift over the search moves both (docs/paired.md); by default each mode "
                              "is searched in its own stretch of time")
    flags.add_plan_flags(command, paired=False)
    targetflags.add(command, flags.bounded_int(1, 65_535, "a TCP port"))
    command.set_defaults(func=cmd_capacity)


def cmd_capacity(args: argparse.Namespace) -> int:
    from vtlab.capacity import search

    for dest, flag in SEARCH_SETS:
        if getattr(args, dest) is not None:
            return flags.usage_error(f"{flag}: the search chooses each point's load (steady, one repetition); give "
                                     "the first with --start")
    args.model = args.model or "open"  # an arrival rate: what a capacity is, with no coordinated omission
    try:
        target = targetflags.target(args)
        start, why = (args.start, "--start") if args.start else default_start(args, target)
        the_plan, left = search_plan(args, target, start)
    except ValueError as err:
        return flags.usage_error(str(err))
    settings = search.Settings(args.slo, args.model, args.precision, args.budget, max_load=args.max_load,
                               host_work_unit=hostwork.UNIT)
    modes = tuple(dict.fromkeys(row.thread_mode for row in the_plan.rows))
    unit = search.UNITS[args.model]
    if args.in_turn and len(modes) < 2:
        return flags.usage_error(f"--paired with --modes {','.join(modes)}: searching in turn needs two modes")
    if args.in_turn and (the_plan.aot == "on" or (target is not None and target.port)):
        clash = "--aot on (its training takes the service's port)" if the_plan.aot == "on" else f"--port {target.port}"
        return flags.usage_error(f"--paired with {clash}: both modes' JVMs are up together and cannot share a port; "
                                 "leave it out")
    try:
        checks.connections(the_plan.rows, together=args.in_turn)
    except ValueError as err:
        return flags.usage_error(f"--paired: {err}" if args.in_turn else str(err))
    in_turn = "; the modes in turn, point by point" if args.in_turn else ""
    print(f"vtlab capacity: {args.slo} for {', '.join(modes)} ({args.model} model); start {start} {unit} ({why}), "
          f"steps ×{settings.factor:g} (longer toward a capacity the walls predict) until it breaks, then bisection "
          f"to {args.precision * 100:g}%; budget {args.budget / 60:g} min for all modes{in_turn}")
    for row in the_plan.rows:
        print("  " + dimensions.label(row))
    if left:
        print(f"  (the first scenario of each mode; {left} other row(s) of the plan left out: narrow the plan with its "
              "flags, e.g. --conn-mode held, to search another)")
    if args.dry_run:
        return 0
    from vtlab.cli import capacitylive

    return capacitylive.search(args, target, the_plan, modes, start, settings)


def default_start(args: argparse.Namespace, target) -> tuple[int, str]:
    """The first load from the profile: its fewest users (closed), or the rate those users make through its
    designed downstream wait by Little's law (open). Where nothing of the rig's waits (the user's service, open),
    the rate at which a request of vtlab's own service, as this machine's calibration priced it, would take
    START_SHARE of its CPU; without a calibration, one request a second per user."""
    profile_plan = flags.plan_of(argparse.Namespace(**{**vars(args), "model": "closed"}), target)
    users = min(row.concurrency for row in profile_plan.rows)
    profile = profile_plan.profile
    if args.model == "closed":
        return users, f"profile {profile}'s fewest users"
    wait_s = profile_plan.stub_delay_ms / 1000
    if wait_s > 0:
        return max(1, round(users / wait_s)), f"profile {profile}'s {users} users through its {wait_s:g} s downstream"
    measured = calibration.load(len(cores.available()))
    if measured is not None:
        return max(1, round(measured.rate_at_share(START_SHARE))), (
            f"where a request of vtlab's own service would take {START_SHARE:.0%} of this machine's CPU, at the "
            f"{measured.cost().total_ms:.2f} ms of every tier its calibration measured at most")
    return users, (f"one request a second for each of profile {profile}'s {users} users; `vtlab calibrate` sizes the "
                   "start to this machine")


def search_plan(args: argparse.Namespace, target, start: int) -> tuple[planner.Plan, int]:
    """The plan of the search's first points: one row a mode, the template every later point changes the load of.
    A capacity is one scenario's: where the profile and flags give a mode several, its first (the profile's lead
    scenario) is searched; the count of the others comes back, to be said."""
    given = {"rates": (start,)} if args.model == "open" else {"concurrency": (start,)}
    the_plan = flags.plan_of(argparse.Namespace(**{**vars(args), **given}), target)
    first = {}
    for row in the_plan.rows:
        first.setdefault(row.thread_mode, row)
    return replace(the_plan, rows=tuple(first.values())), len(the_plan.rows) - len(first)
