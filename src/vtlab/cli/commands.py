"""The subcommands `vtlab` registers, in the order `vtlab --help` lists them: one module a subcommand, each adding
its own (setup: setup and db). Apart from main so that its exit codes and the list each stay within the house's
imports per module."""

from __future__ import annotations

from vtlab.cli import (advise, benchstub, calibrate, capacity, compare, doctor, k8s, mix, report, run, runs, setup,
                       testrun)

SUBCOMMANDS = (run.add, capacity.add, calibrate.add, k8s.add, doctor.add, setup.add, report.add, runs.add, compare.add,
               advise.add, mix.add, benchstub.add, testrun.add)
