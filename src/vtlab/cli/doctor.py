"""`vtlab doctor`: this machine judged against the plan the same flags as `run` give."""

from __future__ import annotations

import argparse
import math

from vtlab.cli import flags
from vtlab.plan.planner import Plan
from vtlab.rig import doctor, postgres


def add(sub) -> None:
    command = sub.add_parser("doctor", help="check this machine for what would bend the numbers or stop a run",
                             description="Toolchains, open-file and backlog limits, CPU frequency, disk, ports and "
                             "other vtlab runs, judged against the plan the same flags as `run` give. "
                             "Exit 0 when all is well, 1 with warnings.")
    flags.add_plan_flags(command)
    command.set_defaults(func=cmd_doctor)


def largest_row(the_plan: Plan) -> int:
    """The users of the plan's largest row, as k6 runs them (a spike's peak)."""
    return max(the_plan.peak_users(row) for row in the_plan.rows)


def largest_burst(the_plan: Plan) -> int:
    """The most users the plan connects within a second: its ramp's users a second, or a spike's step."""
    ramps = [math.ceil(the_plan.users(row) / max(the_plan.ramp_s, 1)) for row in the_plan.rows]
    spikes = [round(row.concurrency * (the_plan.spike_multiple - 1)) for row in the_plan.rows if row.shape == "spike"]
    return max(ramps + spikes)


def examine(the_plan: Plan) -> list[doctor.Finding]:
    return doctor.examine(largest_row(the_plan), len(the_plan.rows), postgres.main_instance().running(),
                          the_plan.jvm_option_sets, the_plan.downstream_http, largest_burst(the_plan))


def cmd_doctor(args: argparse.Namespace) -> int:
    try:
        the_plan = flags.plan_of(args)
    except ValueError as err:
        return flags.usage_error(str(err))
    # as `run` does: judge the limit a run would have
    doctor.raise_open_files_limit(doctor.open_files_needed(largest_row(the_plan), the_plan.downstream_http))
    findings = examine(the_plan)
    for finding in findings:
        print(finding.line())
    warned = doctor.warnings(findings)
    print(f"vtlab doctor: {len(warned)} warning(s)" if warned else "vtlab doctor: all well")
    return 1 if warned else 0
