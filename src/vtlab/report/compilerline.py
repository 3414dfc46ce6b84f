"""The JIT compiler's CPU as a line of its own in the fixed-and-marginal table: each step's compiler threads' CPU a
second over its hold and its share of the service's CPU there — what explain.compiler took out of the service CPU's
fit, or, where a step did not measure it, what that fit still holds, which the section then says. The compiler's CPU
is the JVM's, not a cost of serving, so it is shown step by step, never fitted against the rate.
"""

from __future__ import annotations

from vtlab.explain import compiler, costs
from vtlab.report import validrows
from vtlab.report.labels import fmt

WHAT = "JIT compiler CPU"
TAKEN_OUT = " (taken out of the service CPU)"
INCLUDED = " (in the service CPU)"
NOT_FITTED = "not fitted: the JVM's cost, not its requests'"
WHY_MISSING = ("no compiler threads' CPU over its hold: a service not vtlab's process, a cluster's pod, or a run "
               "recorded before it was read")


def line(f: costs.Family, scenario: str, mode: str) -> dict[str, str]:
    """The family's compiler line: per step its ms a second and its share of the service's CPU."""
    per_second = ", ".join(f"{_step(f, v)} " + (f"{fmt(v.measured.jit_cpu_ms_per_s, 1)} ms/s"
                                                if compiler.measured(v.measured) else "not measured")
                           for v in f.steps)
    shares = ", ".join(f"{_step(f, v)} {fmt(100 * compiler.share(v.measured))}%" for v in f.steps)
    shares = f"of the service's CPU: {shares}" if shares else "–"
    return {"scenario": scenario, "mode": mode, "what": WHAT + (TAKEN_OUT if f.compiler_apart else INCLUDED),
            "marginal": NOT_FITTED, "fixed": per_second or "–", "share": shares, "fit": "each step's hold"}


def included(f: costs.Family, scenario: str, mode: str) -> str:
    """The sentence for a family whose service CPU was fitted with its compiler's time in it ("" where it was taken
    out, or where no step was fitted)."""
    missing = [v for v in f.steps if not compiler.measured(v.measured)]
    if f.compiler_apart or not missing:
        return ""
    steps = ", ".join(_step(f, v) for v in missing)
    return (f"{scenario}, {mode}: the service CPU is fitted as measured, the JIT compiler's time included: "
            f"{steps} had {WHY_MISSING}.")


def _step(f: costs.Family, v) -> str:
    return validrows.load(v) + (f" rep {v.row.rep}" if f.reps > 1 else "")
