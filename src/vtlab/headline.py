"""The platform-vs-virtual headline table, read from a run's CSV (medians across reps)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

from vtlab import results


def _median(rows: list[dict[str, str]], column: str) -> float:
    values = [float(r[column]) for r in rows if r.get(column) not in ("", None)]
    return statistics.median(values) if values else float("nan")


def table(csv_path: Path) -> str:
    rows = results.read_rows(csv_path)
    groups: dict[tuple, dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        load = row["target_rps"] + " req/s" if row["load_model"] == "open" else row["concurrency"]
        key = (row["conn_mode"], row["path_mode"], int(row["hikari_pool"]), row["load_model"], load)
        groups[key][row["thread_mode"]].append(row)
    lines = [f"{'conn':8} {'path':6} {'pool':>4} {'load':>10} | {'platform req/s':>14} {'p99 ms':>8} | "
             f"{'virtual req/s':>13} {'p99 ms':>8} | {'ratio':>5} | errors p/v"]
    lines.append("-" * len(lines[0]))

    def sort_key(item: tuple) -> tuple:
        conn, path, pool, model, load = item[0]
        return (conn, path, pool, model, float(str(load).split()[0]))

    for (conn, path, pool, _model, load), by_mode in sorted(groups.items(), key=sort_key):
        p, v = by_mode.get("platform", []), by_mode.get("virtual", [])
        p_rps, v_rps = _median(p, "throughput_rps"), _median(v, "throughput_rps")
        ratio = v_rps / p_rps if p and v and p_rps > 0 else float("nan")
        lines.append(
            f"{conn:8} {path[:6]:6} {pool:>4} {load:>10} | {_fmt(p_rps, 14)} {_fmt(_median(p, 'p99_ms'), 8)} | "
            f"{_fmt(v_rps, 13)} {_fmt(_median(v, 'p99_ms'), 8)} | {_fmt(ratio, 5, 2)}x | "
            f"{_pct(_median(p, 'error_rate'))}/{_pct(_median(v, 'error_rate'))}")
    reps = max((int(r["rep"]) for r in rows), default=0)
    lines.append(f"(throughput counts successful responses only; medians over {reps} rep(s); "
                 f"{len(rows)} rows in {csv_path})")
    return "\n".join(lines)


def _fmt(value: float, width: int, digits: int = 1) -> str:
    return f"{'-':>{width}}" if value != value else f"{value:>{width}.{digits}f}"


def _pct(value: float) -> str:
    return "-" if value != value else f"{value * 100:.1f}%"
