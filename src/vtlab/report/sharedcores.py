"""What the report says of rows that measured the service on cores it shared with k6 on a full host: which rows, what
k6's share cost them by the cross-check against wrk, and how to measure the service's own ceiling. Told only where
such rows are."""

from __future__ import annotations

from collections.abc import Sequence

from vtlab.explain.generatorprice import GENERATOR_PRICED, PRICED_AGAINST
from vtlab.explain.model import Verdict
from vtlab.report.labels import fmt, row_label

INTERFERED = "generator-interference"
# How to take the generator off the service's cores, in the CLI's own flags.
OWN_CEILING = ("The service's own ceiling needs the generator off its cores: on a machine with more cores, a core set "
               "for each tier (`--cpus 'app=0-3 pg=4 stub=5 load=6-7'`), or k6 on another machine than the service "
               "(`--url` to a service running there, or `vtlab k8s run`).")


def sentences(verdicts: Sequence[Verdict], threads: int) -> list[str]:
    """The rows whose generator's cost was priced (valid, corrected) or could not be bounded (invalid), and what
    to run for the service's own ceiling; nothing where no row shared its cores with a costly k6."""
    priced = [v for v in verdicts if any(flag.startswith(GENERATOR_PRICED) for flag in v.flags)]
    unbounded = [v for v in verdicts if INTERFERED in v.flags]
    if not priced and not unbounded:
        return []
    told = []
    if priced:
        more = [fmt((v.without_generator_rps / v.measured.throughput_rps - 1) * 100) for v in priced
                if v.measured.throughput_rps > 0] or ["–"]
        span = f"~{more[0]}%" if min(more) == max(more) else f"~{min(more, key=float)}–{max(more, key=float)}%"
        told.append(f"{len(priced)} row(s) measured the service on cores it shared with k6 on a full host: "
                    + "; ".join(row_label(v.row, threads) for v in priced)
                    + ". Their throughput is what the service served beside k6, alike for both thread modes, so the "
                    f"modes still compare; without k6 on its cores it would serve {span} more ({PRICED_AGAINST}; "
                    "each row's interval in its evidence and analysis.csv's without_generator_* columns).")
    if unbounded:
        told.append(f"{len(unbounded)} row(s) shared the cores with a k6 whose cost could not be bounded "
                    f"({INTERFERED}: its evidence says why): "
                    + "; ".join(row_label(v.row, threads) for v in unbounded) + ".")
    return [" ".join(told) + " " + OWN_CEILING]
