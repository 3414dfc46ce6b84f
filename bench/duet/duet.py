"""Duet (Bulej et al., 2020) against interleaving (RMIT), on the CPU-bound case: vtlab's own service on two warm
JVMs up together, `/api/cpu` (no I/O), closed model. Round after round, each design in turn:

- interleaved: k6 loads one JVM at a time, its partner idle, the pair's order alternating (AB, BA, ...);
- duet: two k6 processes load both JVMs at once, each with the same users, for the same hold.

Each design's ratio per round is arm b's successful req/s ÷ arm a's; the spread of its log ratios over the rounds
is what an interval would be made of. `--arms virtual,virtual` is an A/A (the truth is 1.00×); `platform,virtual`
the comparison whose answer both designs must agree on to be kept. One line per block in results.csv beside this
file; the summary prints each design's geometric mean ratio, its 95% interval and its log ratios' spread.

    .venv/bin/python bench/duet/duet.py --arms virtual,virtual --rounds 8
    .venv/bin/python bench/duet/duet.py --arms platform,virtual --rounds 8

Run it alone on the machine (~9 min for 8 rounds): it is the only load there should be.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

from vtlab.core.dimensions import Row
from vtlab.core.settings import APP_HOST
from vtlab.core.studentt import t_975
from vtlab.measure import load
from vtlab.rig import build, postgres, procs, prereqs, services
from vtlab.targets import servicejvm

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.csv"
COLUMNS = ("run", "arms", "round", "design", "arm", "mode", "users", "ok_rps", "error_rate")


def block(k6: Path, base_url: str, users: int, cpu_work: int, hold_s: int, folder: Path, name: str):
    """One k6 run against `base_url`: a short ramp and warm-up, the hold; its process (started)."""
    spec = load.LoadSpec(base_url, "closed", users, 0, ramp_s=2, warmup_s=5, hold_s=hold_s, max_id=1,
                         workload="cpu", cpu_work=cpu_work)
    summary, log, series = folder / f"{name}.json", folder / f"{name}.log", folder / f"{name}.k6.csv.gz"
    return spec, summary, load.start(k6, spec, summary, log, None, series)


def measured(k6: Path, jobs: list[tuple[str, str]], users: int, cpu_work: int, hold_s: int,
             folder: Path) -> dict[str, load.LoadResult]:
    """Every (name, base_url) of `jobs` loaded at once; each one's k6 summary."""
    started = [(name, *block(k6, url, users, cpu_work, hold_s, folder, name)) for name, url in jobs]
    found = {}
    for name, _, summary, proc in started:
        found[name] = load.read_summary(summary, proc.wait())
    return found


def experiment(arms: tuple[str, str], rounds: int, users: int, cpu_work: int, hold_s: int, writer, run: str) -> None:
    java = prereqs.find_jdk()
    pg = postgres.main_instance()
    if not (pg.initialised and pg.running()):
        procs.on_cleanup(pg.stop)
    build.setup(pg, toxiproxy=False)
    k6 = build.build_k6()
    with tempfile.TemporaryDirectory(prefix="vtlab-duet-") as scratch:
        folder = Path(scratch)
        urls = {}
        for arm, mode in zip("ab", arms, strict=True):
            row = Row(thread_mode=mode, workload="cpu", concurrency=users, hikari_pool=10, tomcat_max_threads=200)
            port = procs.free_port(APP_HOST)
            app = services.start_app(java, port, servicejvm.app_config(row, 2 * users), pg.credentials().service_env(),
                                     "http://127.0.0.1:9", folder / f"app-{arm}.log", folder / f"app-{arm}.jfr", None)
            procs.on_cleanup(app.stop)
            urls[arm] = app.base_url
        for arm in "ab":  # each JVM's JIT warmed alone first, as a paired run's pre-warm does
            measured(k6, [(f"warm-{arm}", urls[arm])], users, cpu_work, 20, folder)
        for number in range(1, rounds + 1):
            order = "ab" if number % 2 else "ba"
            seen = {}
            for arm in order:
                seen[("interleaved", arm)] = measured(k6, [(f"i{number}{arm}", urls[arm])], users, cpu_work, hold_s,
                                                      folder)[f"i{number}{arm}"]
            both = measured(k6, [(f"d{number}{arm}", urls[arm]) for arm in order], users, cpu_work, hold_s, folder)
            for arm in "ab":
                seen[("duet", arm)] = both[f"d{number}{arm}"]
            for (design, arm), result in seen.items():
                writer.writerow({"run": run, "arms": ",".join(arms), "round": number, "design": design, "arm": arm,
                                 "mode": arms["ab".index(arm)], "users": users,
                                 "ok_rps": f"{result.ok_requests / hold_s:.2f}", "error_rate": result.error_rate})
            print(f"round {number}: " + "; ".join(
                f"{design} b÷a {seen[(design, 'b')].ok_requests / max(1, seen[(design, 'a')].ok_requests):.3f}"
                for design in ("interleaved", "duet")), flush=True)


def summarise(lines: list[dict[str, str]]) -> None:
    """Each run's designs: its rounds' b ÷ a, their geometric mean, 95% interval and spread."""
    print("| run | arms | design | rounds | b ÷ a (geometric mean) | 95% interval | log ratios' sd |")
    print("|---|---|---|---|---|---|---|")
    for run, arms in dict.fromkeys((line["run"], line["arms"]) for line in lines):
        for design in ("interleaved", "duet"):
            by_round: dict[str, dict[str, float]] = {}
            for line in lines:
                if (line["run"], line["arms"], line["design"]) == (run, arms, design):
                    by_round.setdefault(line["round"], {})[line["arm"]] = float(line["ok_rps"])
            logs = [math.log(r["b"] / r["a"]) for r in by_round.values() if r.get("a", 0) > 0 and r.get("b", 0) > 0]
            if len(logs) < 2:
                continue
            centre, sd = statistics.fmean(logs), statistics.stdev(logs)
            half = t_975(len(logs) - 1) * sd / math.sqrt(len(logs))
            print(f"| {run} | {arms} | {design} | {len(logs)} | {math.exp(centre):.3f}× | "
                  f"{math.exp(centre - half):.3f}–{math.exp(centre + half):.3f} | {sd:.4f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arms", default="virtual,virtual", help="arm a's and arm b's thread mode")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--users", type=int, default=10, help="each arm's users, in either design")
    parser.add_argument("--cpu-work", type=int, default=20000, help="SHA-256 rounds a request")
    parser.add_argument("--hold", type=int, default=10, help="each block's hold, s")
    parser.add_argument("--summary", action="store_true", help="only print the table of results.csv")
    args = parser.parse_args()
    if not args.summary:
        arms = tuple(args.arms.split(","))
        fresh = not RESULTS.exists()
        with RESULTS.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            if fresh:
                writer.writeheader()
            procs.install_signal_handlers()
            try:
                experiment(arms, args.rounds, args.users, args.cpu_work, args.hold, writer,
                           time.strftime("%Y%m%d-%H%M%S"))
            finally:
                procs.stop_all()
    if not RESULTS.exists():
        print(f"no results yet: {RESULTS} is written by a run without --summary", file=sys.stderr)
        return 1
    with RESULTS.open() as handle:
        summarise(list(csv.DictReader(handle)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
