"""Whether the host-speed reading (measure.hostwork) moves with the rows' own load: the fixed work read at the CPU
sampler's 4 Hz while the machine is idle, while its cores are taken by busy processes (as a CPU-bound row's tiers take
them: one a core, then two a core), and beside a process streaming through memory (another tier's cache misses).
The conditions are interleaved, round after round, so the host's own drift falls on all of them alike; a reading
that is a host index stays put across them (its CPU time, not its wall time, is what it reads).

    .venv/bin/python bench/host-speed/underload.py --rounds 4 --seconds 10

Run it alone on the machine: it is the only load there should be. results.csv beside this file keeps every
condition's median a round; the summary prints each condition against idle.
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import statistics
import time
from pathlib import Path

from vtlab.measure import hostwork

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.csv"


def _spin(stop) -> None:
    while not stop.is_set():
        pass


def _stream(stop) -> None:
    block = bytearray(64 * 2**20)  # 64 MiB: far past any cache
    while not stop.is_set():
        block[:] = block[1:] + block[:1]


CONDITIONS = {"idle": (None, 0), "busy, one a core": (_spin, os.cpu_count() or 2),
              "busy, two a core": (_spin, 2 * (os.cpu_count() or 2)), "memory stream beside": (_stream, 1)}


def readings(seconds: float) -> list[float]:
    found, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        found.append(hostwork.work_us())
        time.sleep(0.25)
    return found


def under(condition: str, seconds: float) -> float:
    target, count = CONDITIONS[condition]
    stop = multiprocessing.Event()
    workers = [multiprocessing.Process(target=target, args=(stop,), daemon=True) for _ in range(count)]
    for worker in workers:
        worker.start()
    try:
        time.sleep(1.0 if workers else 0)  # the load up before the first reading
        return statistics.median(readings(seconds))
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=10)
            if worker.is_alive():
                worker.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    run = time.strftime("%Y-%m-%dT%H:%M:%S")
    rows = []
    for round_ in range(1, args.rounds + 1):
        order = list(CONDITIONS) if round_ % 2 else list(reversed(CONDITIONS))
        for condition in order:
            rows.append({"run": run, "round": round_, "condition": condition,
                         "median_us": round(under(condition, args.seconds), 2)})
            print(f"round {round_}: {condition}: {rows[-1]['median_us']} µs", flush=True)
    new = not RESULTS.exists()
    with open(RESULTS, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)
    idle = {row["round"]: row["median_us"] for row in rows if row["condition"] == "idle"}
    for condition in CONDITIONS:
        shares = [row["median_us"] / idle[row["round"]] for row in rows if row["condition"] == condition]
        print(f"{condition}: {statistics.median(shares):.3f} of idle (rounds {min(shares):.3f}–{max(shares):.3f})")


if __name__ == "__main__":
    main()
