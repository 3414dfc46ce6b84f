"""What a run measures: profiles, flag values, and their expansion into rows.

A profile is a list of blocks (each a small cartesian product) plus phase lengths. A flag given on
the command line replaces that dimension in every block, so `--conc 500` keeps the profile's
modes, pools and connection modes but measures only at 500.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

MODES = ("platform", "virtual")
CONN_MODES = ("released", "held")
PATH_MODES = ("normal", "synchronized")
MODELS = ("closed", "open")


@dataclass(frozen=True)
class Block:
    conn_modes: tuple[str, ...]
    pools: tuple[int, ...]
    concurrency: tuple[int, ...]
    modes: tuple[str, ...] = MODES
    path_modes: tuple[str, ...] = ("normal",)
    rates: tuple[int, ...] = ()


@dataclass(frozen=True)
class Profile:
    name: str
    blocks: tuple[Block, ...]
    ramp_s: int
    warmup_s: int
    hold_s: int
    reps: int
    stub_delay_ms: int
    summary: str
    stub_jitter_ms: int = 0
    tomcat_max_threads: int = 200
    model: str = "closed"


def _scale() -> int:
    """How many 2-core units this machine has: the top concurrency grows with it, so virtual
    threads still reach well past the platform wall without saturating a larger CPU budget."""
    return max(1, len(os.sched_getaffinity(0)) // 2)


def profiles() -> dict[str, Profile]:
    s = _scale()
    # The stub answers after 1 s: the platform wall is 200 threads / 1 s = 200 req/s, far below what
    # 2 cores can serve (~2,000 req/s), so virtual threads have room to pass it while the service,
    # PostgreSQL and k6 together stay well under the two cores (k6: ~0.25 ms CPU per request).
    return {
        "quick": Profile(
            name="quick",
            summary="released: both modes at 100/400/1000 users; held: both modes at 200 users (pool 50)",
            blocks=(Block(("released",), (50,), (100, 400, 1000 * s)),
                    Block(("held",), (50,), (200,))),
            ramp_s=10, warmup_s=30, hold_s=30, reps=1, stub_delay_ms=1000),
        "lean": Profile(
            name="lean",
            summary="released only: both modes at 400 and 1000 users, shorter phases",
            blocks=(Block(("released",), (50,), (400, 1000 * s)),),
            ramp_s=5, warmup_s=25, hold_s=20, reps=1, stub_delay_ms=1000),
        "full": Profile(
            name="full",
            summary="both conn modes, pools 10/50/100, 50..2000 users, 3 reps, 60 s phases",
            blocks=(Block(("released",), (50,), tuple(c * s for c in (50, 100, 200, 400, 800, 1200, 1600))),
                    Block(("held",), (10, 50, 100), (400 * s,))),
            ramp_s=15, warmup_s=60, hold_s=60, reps=3, stub_delay_ms=1000),
    }


@dataclass(frozen=True)
class Overrides:
    """Dimensions given on the command line; None keeps the profile's."""
    modes: tuple[str, ...] | None = None
    pools: tuple[int, ...] | None = None
    concurrency: tuple[int, ...] | None = None
    conn_modes: tuple[str, ...] | None = None
    path_modes: tuple[str, ...] | None = None
    rates: tuple[int, ...] | None = None
    reps: int | None = None
    ramp_s: int | None = None
    warmup_s: int | None = None
    hold_s: int | None = None
    stub_delay_ms: int | None = None
    stub_jitter_ms: int | None = None
    tomcat_max_threads: int | None = None
    model: str | None = None


@dataclass(frozen=True)
class Row:
    thread_mode: str
    pool: int
    conn_mode: str
    path_mode: str
    concurrency: int
    rate: int
    model: str
    rep: int
    stub_delay_ms: int
    tomcat_max_threads: int

    def label(self) -> str:
        load = f"{self.rate} req/s" if self.model == "open" else f"{self.concurrency} users"
        return (f"{self.thread_mode:8} {load:>10}  pool {self.pool:<3} {self.conn_mode:8} "
                f"{self.path_mode} rep {self.rep}")


@dataclass(frozen=True)
class Plan:
    profile: str
    rows: tuple[Row, ...]
    ramp_s: int
    warmup_s: int
    hold_s: int
    stub_delay_ms: int
    stub_jitter_ms: int
    model: str
    overrides: dict = field(default_factory=dict)

    def describe(self) -> dict:
        return {"profile": self.profile, "ramp_s": self.ramp_s, "warmup_s": self.warmup_s,
                "hold_s": self.hold_s, "stub_delay_ms": self.stub_delay_ms,
                "stub_jitter_ms": self.stub_jitter_ms, "model": self.model,
                "overrides": self.overrides, "rows": [row.__dict__ for row in self.rows]}


def build(profile_name: str, overrides: Overrides) -> Plan:
    profile = profiles()[profile_name]
    model = overrides.model or profile.model
    reps = overrides.reps or profile.reps
    delay = profile.stub_delay_ms if overrides.stub_delay_ms is None else overrides.stub_delay_ms
    threads = overrides.tomcat_max_threads or profile.tomcat_max_threads
    blocks = [_apply(block, overrides) for block in profile.blocks]
    if model == "open" and not overrides.rates and not any(block.rates for block in blocks):
        raise ValueError("--model open needs --rates (requests per second, e.g. --rates 100,400)")
    rows: list[Row] = []
    seen: set[Row] = set()
    # Reps are the outer loop so slow drift (thermal, page cache) spreads over every scenario.
    for rep in range(1, reps + 1):
        for block in blocks:
            loads = [(0, rate) for rate in block.rates] if model == "open" else [(c, 0) for c in block.concurrency]
            for conn_mode in block.conn_modes:
                for pool in block.pools:
                    for path_mode in block.path_modes:
                        for concurrency, rate in loads:
                            for mode in block.modes:
                                row = Row(mode, pool, conn_mode, path_mode, concurrency, rate, model, rep,
                                          delay, threads)
                                if row not in seen:
                                    seen.add(row)
                                    rows.append(row)
    given = {key: value for key, value in overrides.__dict__.items() if value is not None}
    return Plan(profile_name, tuple(rows), overrides.ramp_s or profile.ramp_s,
                overrides.warmup_s or profile.warmup_s, overrides.hold_s or profile.hold_s, delay,
                profile.stub_jitter_ms if overrides.stub_jitter_ms is None else overrides.stub_jitter_ms,
                model, given)


def _apply(block: Block, overrides: Overrides) -> Block:
    changes = {name: getattr(overrides, name)
               for name in ("modes", "pools", "concurrency", "conn_modes", "path_modes", "rates")
               if getattr(overrides, name) is not None}
    return replace(block, **changes)


def estimated_row_s(plan: Plan) -> float:
    # JVM start + health check and stop + JFR dump take ~15 s on 2 shared cores.
    return plan.ramp_s + plan.warmup_s + plan.hold_s + 3 + 15
