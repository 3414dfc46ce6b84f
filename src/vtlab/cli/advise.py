"""`vtlab advise RUN [--try]`: what to change before you flip, from the run's evidence (explain.advice), and with
--try each setting re-measured (plan.tries: one at a time, then together where two hold one point, each a `vtlab
run` of its own under RUN/tries/) and told against the run as `vtlab compare` judges a change (compare.tried),
written to RUN/tries.md and RUN/tries.json. A try already measured is resumed, not measured again."""

from __future__ import annotations

import argparse
import functools
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from vtlab.cli import flags, nohelp, run, trytarget
from vtlab.compare import runs, tried, triedpage
from vtlab.explain.advice import advise
from vtlab.plan import tries
from vtlab.report import render
from vtlab.report.advice import sentence
from vtlab.report.labels import mode_label
from vtlab.results import record, table

TRIES = "tries"  # the tries' run folders, under the run's


def add(sub) -> None:
    advise_cmd = sub.add_parser("advise", help="what to change before you flip, from a run's evidence; --try "
                                               "re-measures each suggested setting against the run")
    advise_cmd.add_argument("run_dir", type=Path, help="a run folder (matrix.csv, metadata.json); of your service, "
                                                       "give its --service flags again with --try")
    advise_cmd.add_argument("--try", dest="try_them", action="store_true",
                            help="re-measure the advised points with each suggested setting (one at a time, then "
                                 "together where two hold one point), each a run under RUN/tries/, and tell each "
                                 "before/after")
    advise_cmd.add_argument("--dry-run", action="store_true", help="with --try: print each try's command and exit")
    trytarget.add(advise_cmd)  # a run of your service: its flags again, each try adding its setting
    advise_cmd.set_defaults(func=cmd_advise)


def cmd_advise(args: argparse.Namespace) -> int:
    run_dir: Path = args.run_dir
    if not (run_dir / table.CSV_NAME).exists() or not (run_dir / table.METADATA_NAME).exists():
        return flags.usage_error(f"advise: {run_dir} is not a run folder (it holds no matrix.csv and metadata.json)")
    if args.dry_run and not args.try_them:
        return flags.usage_error("--dry-run prints the tries' commands: give it with --try")
    try:
        recorded = record.read(run_dir)
        base = runs.load(run_dir)
    except (record.MalformedRecord, ValueError) as err:
        return flags.usage_error(f"advise: {err}")
    target = trytarget.given_argv(args)
    if target and not args.try_them:
        return flags.usage_error(f"{target[0]} gives the service a try starts: give it with --try")
    refused = trytarget.refusal(run_dir, recorded, target) if args.try_them else None
    if refused:
        return flags.usage_error(refused)
    label = functools.partial(mode_label, default_threads=base.analysis.rig.tomcat_max_threads)
    advised = advise(base.analysis)
    for line in advised:
        print(sentence(line, label))
    if not advised:
        print("vtlab advise: no line of this run has advice to give (its walls are the users' own wait)")
    if not args.try_them:
        return 0
    plan = recorded.plan
    phases = {name: getattr(plan, name) for name in tries.PHASES} if plan else {}
    chosen, not_tried = tries.chosen(advised, plan.overrides if plan else {}, plan.rows if plan else (), phases,
                                     bool(plan and plan.paired))
    for left in not_tried:
        print(f"vtlab advise: not tried — {sentence(left.advice, label)} ({left.why})")
    if not chosen:
        print("vtlab advise: nothing to try")
        return 0
    return _try_each(run_dir, base, plan.profile if plan else "quick", chosen, not_tried, label, args.dry_run, target)


def _try_each(run_dir: Path, base: runs.Run, profile: str, chosen: list[tries.Try], not_tried: list[tries.NotTried],
              label: Callable[[object], str], dry_run: bool, target: list[str]) -> int:
    """Each try measured (resumed where begun) and told against the run, tries.md and tries.json written after each
    (a try cut short keeps the ones before it), the run's report rendered again to tell them; 1 where a try's run
    lost a row or could not be planned."""
    measured: list[triedpage.Tried] = []
    left = [triedpage.Left(n.advice.row, n.advice.wall, n.why) for n in not_tried]
    failed = 0
    for attempt in chosen:
        out = run_dir / TRIES / attempt.name
        argv = run_argv(profile, attempt.given, out, trytarget.with_settings(target, attempt.service_env()))
        print(f"vtlab advise: try {attempt.words()}: vtlab {shlex.join(argv)}", flush=True)
        if dry_run:
            continue
        code, problem = _measure(argv)
        if not problem and not (out / table.CSV_NAME).exists():
            problem = f"its run measured no row (exit {code})"
        if problem:
            print(f"vtlab advise: not tried: {problem}", file=sys.stderr)
            measured.append(triedpage.Tried(attempt.name, attempt.settings, why=problem))
            failed += 1
        else:
            failed += code != 0
            outcomes = tried.judged(base, runs.load(out), attempt.lines, attempt.changes)
            for outcome in outcomes:
                print(f"vtlab advise: {tried.sentence(attempt.words(), outcome, label)}")
            measured.append(triedpage.Tried(attempt.name, attempt.settings, outcomes))
            verdict = tried.verdict(outcomes)
            print(f"vtlab advise: {attempt.words()} {verdict}", flush=True)
            if verdict == tried.NOT_HELPED and len(attempt.settings) == 1 and not target:
                nohelp.keep(out, attempt, outcomes, label)  # vtlab's own service's suggestions, on this machine
        paths = triedpage.write(run_dir, measured, left, label)
    if measured:
        rendered = render.render(run_dir)  # its advice section tells each try now
        print(f"vtlab advise: {paths[0]}, {paths[1]}; the run's report told them: {rendered['markdown']}")
    return 1 if failed else 0


def run_argv(profile: str, given: dict, out: Path, target: list[str] | None = None) -> list[str]:
    """`vtlab run`'s arguments for a plan of `profile` and Overrides fields `given` (plan.tries.Try.given), on the
    user's service where `target` gives its flags (the try's setting among them), into `out` (resumed where a try
    began there before)."""
    argv = ["run", "--profile", profile, *(target or ())]
    for flag, dest, _, _ in flags.PLAN_FLAGS:
        value = given.get(dest)
        if value is None:
            continue
        if dest in flags.REPEATED:
            for options in value:
                argv += [flag, shlex.join(options)]
        else:
            argv += [flag, ",".join(map(str, value)) if isinstance(value, tuple) else str(value)]
    if given.get("aa"):
        argv += ["--aa", str(given["aa"])]
    elif given.get("paired"):
        argv.append("--paired")
    elif given.get("paired") is False:
        argv.append("--sequential")
    if given.get("blocks"):
        argv += ["--blocks", str(given["blocks"])]
    if given.get("jvm_per_row"):
        argv.append("--jvm-per-row")
    return [*argv, "--out", str(out), *(["--resume"] if (out / table.CSV_NAME).exists() else [])]


def _measure(argv: list[str]) -> tuple[int, str]:
    """`vtlab run` with `argv` in this process, its flags checked as the user's are; its exit code, or the reason it
    could not be planned (its usage error, said instead of measured)."""
    try:
        args = run.parser().parse_args(argv)
    except SystemExit:  # argparse has said which flag and value on stderr
        return 2, f"`vtlab {shlex.join(argv)}` was refused (above)"
    try:
        flags.plan_of(args, None, calibrated=True, on_this_machine=True)
    except ValueError as err:
        return 2, str(err)
    return args.func(args), ""
