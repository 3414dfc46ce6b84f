"""What `vtlab advise RUN --try` re-measures a setting on: vtlab's own service, or the user's jar again, started by
the target flags its user gives again (the run recorded their names, never the values of --service-env), checked
against the run's record before anything is measured; and the runs a try cannot re-measure."""

from __future__ import annotations

import argparse
from pathlib import Path

from vtlab.cli import flags, run, targetflags
from vtlab.results import capacityfile, record

# The target's flags a try gives again, as `vtlab run` takes them: (dest, flag); repeated ones below
_VALUED = (("service", "--service"), ("service_args", "--service-args"), ("health", "--health"), ("port", "--port"),
           ("db_url", "--db-url"), ("endpoint", "--endpoint"), ("ids", "--ids"), ("ids_file", "--ids-file"),
           ("script", "--script"), ("mix", "--mix"))
_REPEATED = (("service_env", "--service-env"), ("header", "--header"))


def add(command: argparse.ArgumentParser) -> None:
    """The run's own target flags, for a try of a setting of the user's service (`vtlab run`'s)."""
    targetflags.add(command, flags.bounded_int(1, 65_535, "a TCP port"))


def given_argv(args: argparse.Namespace) -> list[str]:
    """The target flags given to advise, as `vtlab run` takes them; [] where none was."""
    argv: list[str] = []
    for dest, flag in _VALUED:
        value = getattr(args, dest, None)
        if value is not None:
            argv += [flag, str(value)]
    if getattr(args, "db", False):
        argv.append("--db")
    for dest, flag in _REPEATED:
        for value in getattr(args, dest, None) or ():
            argv += [flag, value]
    return argv


def refusal(run_dir: Path, recorded: record.RunRecord, argv: list[str]) -> str | None:
    """Why RUN's advice cannot be tried with the target flags `argv` (given_argv), or None: a capacity search, a
    cluster, a --url service, or a user's service without its flags again or with others than it ran with."""
    if (run_dir / capacityfile.NAME).exists():
        return (f"advise --try: {run_dir} is a capacity search, whose points it chose as it went; try a setting with "
                "`vtlab capacity … FLAG` and `vtlab compare` the two searches")
    if recorded.kubernetes is not None:
        return (f"advise --try: {run_dir} measured a Kubernetes cluster; run it with the flag advised and compare the "
                "two runs with `vtlab compare RUN NEW`")
    service = recorded.user_service
    if service is None:
        return (f"advise --try: {argv[0]} describes your service; {run_dir} measured vtlab's own, whose tries need "
                "none") if argv else None
    if service.url:
        return (f"advise --try: {run_dir} measured the service at {service.url}, which vtlab does not start: run it "
                "with the setting advised and compare the two runs with `vtlab compare RUN NEW`")
    if not argv:
        return (f"advise --try: {run_dir} measured your service ({service.jar}); give its flags again, as the run "
                f"had them (--service {service.jar} --mix … --service-env …: the values of its environment are "
                "never recorded), and each try starts it with its setting added")
    return mismatch(service, argv)


def mismatch(service: record.UserService, argv: list[str]) -> str | None:
    """What of the target `argv` describes differs from the service the run measured, named; None where it is the
    same jar, call, database and environment names."""
    try:
        target = targetflags.target(run.parser().parse_args(["run", *argv]))
    except ValueError as err:
        return f"advise --try: {err}"
    assert target is not None  # argv names a jar: refusal() checked the run was one
    given = record.UserService.of(target.describe())
    for part, ran, now in (("jar", service.jar, given.jar), ("call", service.call, given.call),
                           ("database", service.db, given.db),
                           ("--service-env names", ", ".join(service.env_names), ", ".join(given.env_names))):
        if ran != now:
            return (f"advise --try: the flags given are not the run's: {part}: the run's {ran or 'none'}, given "
                    f"{now or 'none'}; a try changes the advised setting alone")
    return None


def with_settings(argv: list[str], settings: tuple[str, ...]) -> list[str]:
    """The target flags `argv` with a try's settings (NAME=VALUE each, plan.tries.Try.service_env) given by
    --service-env in place of any the user gave that variable: the try's size is the one the service runs with."""
    tried = {value.partition("=")[0] for value in settings}
    kept: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--service-env":
            value = next(words)
            if value.partition("=")[0] not in tried:
                kept += [word, value]
        else:
            kept.append(word)
    return [*kept, *(word for value in settings for word in ("--service-env", value))]
