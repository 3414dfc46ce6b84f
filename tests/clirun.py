"""The command line run in-process, as a user types it: its exit code and what it said on stderr."""

import pytest

from vtlab.cli.main import main


def run_cli(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    return exit_info.value.code, capsys.readouterr().err
