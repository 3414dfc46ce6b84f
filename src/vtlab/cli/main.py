"""The `vtlab` command: the parser wired from one module per subcommand, and the exit codes of what they raise."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence

from vtlab.cli.commands import SUBCOMMANDS
from vtlab.rig import ownership, prereqs
from vtlab.targets import k8srun, userservice


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="vtlab", description=(
        "Platform vs virtual threads on a real blocking Spring Boot service, measured and explained."))
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return top


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The command line as `vtlab` reads it (a bad flag or value exits 2, as argparse does)."""
    argv = list(argv)
    # `vtlab test` hands everything after it to pytest (-k, -x, --basetemp ...): argparse would take them for its own
    forwarded = argv[1:] if argv[:1] == ["test"] and not {"-h", "--help"} & set(argv[1:]) else []
    args = parser().parse_args(argv[:1] if forwarded else argv)
    if forwarded:
        args.pytest_args = forwarded
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    stopped = ownership.reap()
    if stopped:
        print(f"vtlab: stopped {len(stopped)} process(es) a killed vtlab left running: {', '.join(stopped)}",
              file=sys.stderr)
    try:
        return args.func(args)
    except prereqs.MissingPrerequisite as err:
        print(f"vtlab: missing prerequisite: {err}", file=sys.stderr)
        return 3
    except (userservice.TargetError, k8srun.ClusterError) as err:
        print(f"\nvtlab: {err}", file=sys.stderr)
        return 3
    except subprocess.CalledProcessError as err:
        print(f"vtlab: command failed ({err.returncode}): {' '.join(map(str, err.cmd))}", file=sys.stderr)
        return 1
    except RuntimeError as err:
        print(f"\nvtlab: {err}", file=sys.stderr)
        return 1
