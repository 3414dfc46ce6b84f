"""What profiling costs the service: the hero point (virtual, 2,000 users) measured without a profile and with each
kind of --profiles, each a `vtlab run` of its own, round after round (none, cpu, alloc, lock, wall, then the other
way round), so a drift over the sitting falls on every kind alike. Writes one line per run to results.csv beside
this file and prints each kind's mean throughput and service CPU per request against the runs without a profile.

    .venv/bin/python bench/profiler-overhead/overhead.py --reps 2

Run it on a quiet machine: a run of its own per point is ~3 minutes, the whole sitting ~30.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RESULTS = HERE / "results.csv"
KINDS = ("none", "cpu", "alloc", "lock", "wall")
COLUMNS = ("kind", "rep", "throughput_rps", "throughput_ci95_rps", "app_cpu_ms_per_req", "profile_s",
           "profile_cpu_engine", "valid")


def measure(kind: str, rep: int, folder: Path) -> dict[str, str]:
    out = folder / f"{kind}-{rep}"
    argv = [str(REPO / "vtlab"), "run", "--profile", "hero", "--modes", "virtual", "--reps", "1", "--out", str(out)]
    if kind != "none":
        argv += ["--profiles", kind]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    row = next(csv.DictReader((out / "matrix.csv").open()))
    verdict = next(csv.DictReader((out / "analysis.csv").open()))
    return {"kind": kind, "rep": str(rep), **{key: row[key] for key in COLUMNS[2:7]},
            "valid": verdict.get("valid", "")}


def summarise(lines: list[dict[str, str]]) -> None:
    def mean(kind: str, key: str) -> float:
        return statistics.mean(float(line[key]) for line in lines if line["kind"] == kind)
    base_rps, base_cpu = mean("none", "throughput_rps"), mean("none", "app_cpu_ms_per_req")
    print("| profile | req/s (runs) | vs none | service CPU ms/req | vs none |\n|---|---|---|---|---|")
    for kind in KINDS:
        runs = " · ".join(f"{float(line['throughput_rps']):,.1f}" for line in lines if line["kind"] == kind)
        rps, cpu = mean(kind, "throughput_rps"), mean(kind, "app_cpu_ms_per_req")
        print(f"| {kind} | {runs} | {(rps / base_rps - 1) * 100:+.1f}% | {cpu:.3f} | "
              f"{(cpu / base_cpu - 1) * 100:+.1f}% |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--summary", action="store_true", help="only print the table of results.csv")
    parser.add_argument("--runs", type=Path, help="keep each run's folder here (default: a temporary folder)")
    args = parser.parse_args()
    if not args.summary:
        with tempfile.TemporaryDirectory(prefix="vtlab-overhead-") as scratch, RESULTS.open("w", newline="") as handle:
            folder = args.runs or Path(scratch)
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            writer.writeheader()
            for rep in range(1, args.reps + 1):
                for kind in KINDS if rep % 2 else reversed(KINDS):  # a drift within a round falls on every kind
                    writer.writerow(measure(kind, rep, Path(folder)))
                    handle.flush()
    summarise(list(csv.DictReader(RESULTS.open())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
