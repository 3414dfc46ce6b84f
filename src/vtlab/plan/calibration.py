"""This machine's calibration: what one request of vtlab's own order-summary call costs each tier here, measured once
and cached per machine, and the loads sized from it.

Machines of one kind differ by up to ~30% (the same k6 and stub cost 0.216 ms of CPU a request on one 2-core EPYC
and 0.154 on another), so a point fixed on one machine sits at another share of another's cores: a proof that
asserts a class (below every wall, behind the thread wall, inside the generator's noise) sizes its points from the
CPU per request measured on the machine in front of it, never from users fixed on the one it was written on.

`vtlab calibrate` measures it (a short staircase of each mode at CALIBRATION_POINT, on the real tiers) and keeps it in
the cache beside the user's other caches, keyed by the machine and CALIBRATION_VERSION: a clean clone on the same
machine reads it, a new machine or a changed procedure measures again.

Two figures per tier, for two uses. The first step's CPU per request (its tier's CPU a second ÷ its rate) is an
upper bound: at ~190 req/s it bills the JIT's and the rig's per-second costs to every request (2.4 ms platform, 3.9
virtual on 2026-11-27, where the hero point costs ~0.5) — the safe side the smoke sizes a point below a wall with
(users_at_share). Fixed apart from marginal (explain.costs' fit over the steps: total a second = fixed + marginal ×
rate) is what a point far up the load costs: what the profiles' points are sized from (plan.sizing)."""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
from dataclasses import asdict, dataclass, field
from pathlib import Path

from vtlab.core import cores as cpus

# Bump when what is measured changes (the point, the phases, the service's request path): a cached calibration of
# another version is measured again. 2: a staircase per mode, fixed and marginal costs apart (was one row). 3: three
# steps, the costs fitted through the two after the cold first. 4: the service's cost fitted with its JIT compiler's CPU
# apart (explain.costs' net fit): a v3 calibration counted the compiler in, and sized a little lower.
CALIBRATION_VERSION = 4
# The points measured: steps of one JVM per mode, far below every wall on any machine of this kind. 20, 40 and 80
# users at a mean 150 ms (below) ask ~127, ~266 and ~533 req/s: the platform rows stay under Tomcat's 200 threads (80
# users), the released pool of 50 holds a connection ~2 ms a request (~1 of them busy at 533 req/s), and at ~1 ms of
# CPU a request for all tiers 533 req/s takes ~27% of 2 cores (~38% under a 1.4-core quota): under the busy host
# from which k6's cost is judged. Each step's warm-up ends once settled (measure.settle), bounded at 40 s: at 20 s
# the first step's JIT was still busy at 190 req/s (2026-11-27), and a step whose JIT never settled is invalid
# (jit-not-settled) and refused.
# Holds of 20 s: ten batches of 2 s; with 10 s (five batches, t(3) = 3.18) three of the four steps came out too-noisy
# (2026-11-28: trend half-widths 10–30%), and an invalid step is fitted through by nothing.
# The stub's delay 100 ms plus a uniform 0-100 ms (mean 150 ms: ~127 and ~533 req/s), named here rather than taken
# from the default profile's, so that a change there moves no calibration; the jitter keeps the users from moving
# in lock-step waves (docs/verdict.md), which at a 100 ms cycle left steps too-noisy. No pre-warm (--prewarm off):
# the first step's cost stays the cold JVM's, the upper bound the smoke's points are sized from.
CALIBRATION_POINT = {"users": (20, 40, 80), "stub_delay_ms": 100, "stub_jitter_ms": 100, "ramp_s": 2, "warmup_s": 40,
                     "hold_s": 20}
# The upper bound alone (`vtlab calibrate --bound`: what the live smoke sizes its points with where nothing is
# cached, as on every new CI machine) is each mode's first step after a fixed warm-up and a short hold: the earlier
# the hold, the colder the code and the dearer a request, on the safe side of a bound. 105-110 s against 155 s with the
# settling warm-up and 20 s holds, one after the other on one machine (AMD EPYC, 2026-12-03): the dearer mode, which
# the smoke sizes by, at 4.10 against 4.15 ms of service CPU a request (virtual); platform's cold first step came out
# at 2.66 against 4.08, a first step's figure moving from JVM to JVM either way (a second try: 3.44 and 4.10). A
# hold this short may be too noisy, and its JIT is busy on purpose: neither refuses a bound (cli.calibrate's
# BOUND_TOLERATED), as neither biases its mean CPU a request low.
# Then a 10 s warm-up and a 6 s hold, not 15 s and 10 s: 79.7 and 79.4 s against 103.2 and 101.9 s, interleaved on one
# machine (AMD EPYC, 2026-12-07). The dearer mode's CPU a request, all tiers together, came out at 5.79 and 5.31 ms
# against 4.38 and 4.46: colder code, the stub's too. In the second try the dearer mode was platform, whose first row
# paid for the stub's compiling.
BOUND_WARMUP_S, BOUND_HOLD_S = 10, 6  # the warm-up fixed, not settling
# Bump when the bound's own procedure changes (its phases): a bound measured another way is measured again.
BOUND_VERSION = 3
# The tiers as the calibration names them, and the figure of explain.costs each is fitted by.
TIERS = {"service": "cpu", "k6": "load", "stub": "stub", "postgresql": "pg"}
TIER_NAMES = {"service": "service", "k6": "k6", "stub": "stub", "postgresql": "PostgreSQL"}
MAX_AGE_DAYS = 30  # a kernel, firmware or governor change moves the figures: measured again after a month


def cache_dir() -> Path:
    """Where the calibration lives: $VTLAB_CACHE, else $XDG_CACHE_HOME/vtlab, else ~/.cache/vtlab (outside the
    checkout: a clean clone on the same machine finds it)."""
    explicit = os.environ.get("VTLAB_CACHE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vtlab"


def machine_key(cores: int) -> str:
    """The machine as the calibration knows it: its CPU model, the cores vtlab may use and any CPU quota on them (a
    cgroup's: the same cores at a fraction of their time are a slower machine), its memory and its kernel."""
    quota = cpus.quota()
    model = "unknown CPU"
    try:
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory_gib = 0
    try:
        kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:"))
        memory_gib = round(kib / 1024 / 1024)
    except (OSError, StopIteration, ValueError):
        pass
    limited = f" at a quota of {quota:g} cores" if quota is not None else ""
    return f"{model} | {cores} cores{limited} | {memory_gib} GiB | {platform.system()} {platform.release()}"


@dataclass(frozen=True)
class Split:
    """One tier's CPU fixed and marginal apart (explain.costs.fit over a mode's steps): ms of one core a second
    whatever the load, and ms one more request adds; 95% half-widths where the fit has them (3 steps or more), None
    where not (`why` says: costs.NO_ERROR)."""
    marginal_ms: float
    fixed_ms_per_s: float
    marginal_half: float | None = None
    fixed_half: float | None = None
    why: str = ""

    def told(self) -> str:
        def pm(half: float | None) -> str:
            return f" ± {half:.3f}" if half is not None else ""
        return f"{self.marginal_ms:.3f}{pm(self.marginal_half)} ms/request + {self.fixed_ms_per_s:.1f}" \
               f"{pm(self.fixed_half)} ms/s"


@dataclass(frozen=True)
class Step:
    """One step of a mode's calibration staircase: its users, its rate, and how its warm-up ended (settled, bound)
    after how long."""
    users: int
    rps: float
    warmup_end: str
    warmup_s: float | None = None


@dataclass(frozen=True)
class ModeCost:
    """One thread mode's CPU per request at the calibration's first step, by tier, in ms (of one core), and its rate:
    an upper bound (the per-second costs billed to its requests). `splits`: each tier (TIERS) fixed and marginal
    apart over the mode's steps."""
    service_ms: float
    generator_ms: float
    stub_ms: float
    database_ms: float
    rps: float
    # how the first step's warm-up ended ("settled", or "bound": the JIT still busy, so the figures are an upper
    # bound — safe for sizing a point below a wall, too high as the service's own cost)
    warmup_end: str = "settled"
    splits: dict[str, Split] = field(default_factory=dict)
    steps: tuple[Step, ...] = ()

    @property
    def total_ms(self) -> float:
        return self.service_ms + self.generator_ms + self.stub_ms + self.database_ms

    @property
    def marginal_ms(self) -> float:
        """What one more request costs all tiers together (NaN where the split was not measured)."""
        return sum(self.splits[tier].marginal_ms for tier in TIERS) if set(TIERS) <= set(self.splits) else math.nan

    @property
    def fixed_ms_per_s(self) -> float:
        """What all tiers together spend a second whatever the load (NaN where the split was not measured)."""
        return sum(self.splits[tier].fixed_ms_per_s for tier in TIERS) if set(TIERS) <= set(self.splits) \
            else math.nan

    def valid(self) -> bool:
        bound = all(math.isfinite(v) and v > 0 for v in (self.service_ms, self.generator_ms, self.rps)) and all(
            math.isfinite(v) and v >= 0 for v in (self.stub_ms, self.database_ms))
        split = all(math.isfinite(s.marginal_ms) and math.isfinite(s.fixed_ms_per_s) for s in self.splits.values())
        return bound and split and (not self.splits or self.marginal_ms > 0)

    def told(self) -> str:
        """The mode's figures as the summary says them: the upper bound, then fixed and marginal apart."""
        bound = (f"upper bound service {self.service_ms:.3f}, k6 {self.generator_ms:.3f}, stub {self.stub_ms:.3f}, "
                 f"PostgreSQL {self.database_ms:.3f} ms/request at {self.rps:.0f} req/s"
                 + ("" if self.warmup_end == "settled" else
                    " (its JIT still busy at the warm-up's bound)" if self.warmup_end == "bound" else
                    f" (its warm-up ended: {self.warmup_end})"))
        if not self.splits:
            return bound
        apart = ", ".join(f"{TIER_NAMES[tier]} {self.splits[tier].told()}" for tier in TIERS if tier in self.splits)
        steps = ", ".join(f"{s.users} users {s.rps:.0f} req/s {s.warmup_end}"
                          + (f" after {s.warmup_s:.0f} s" if s.warmup_s is not None else "") for s in self.steps)
        return f"{bound}; marginal + fixed: {apart} (steps: {steps})"

    @classmethod
    def of(cls, stored: dict) -> ModeCost:
        """From the cache file's JSON (asdict's)."""
        return cls(**{**stored, "splits": {tier: Split(**split) for tier, split in stored.get("splits", {}).items()},
                      "steps": tuple(Step(**step) for step in stored.get("steps", ()))})


@dataclass(frozen=True)
class Calibration:
    machine: str
    cores: int
    version: int
    measured_at: str  # ISO date and time, UTC
    modes: dict[str, ModeCost]
    run_dir: str = ""  # the calibration's own run folder, for whoever wants its report
    quota: float | None = None  # the cgroup's CPU quota in cores, where one limits vtlab (cores.quota)

    @property
    def capacity(self) -> float:
        """The CPU vtlab may use, in cores: its cores, or less under a quota."""
        return min(self.cores, self.quota) if self.quota is not None else self.cores

    def cost(self) -> ModeCost:
        """The dearer mode's cost, tier by tier: what sizes a point both modes run at."""
        return ModeCost(*(max(getattr(mode, name) for mode in self.modes.values())
                          for name in ("service_ms", "generator_ms", "stub_ms", "database_ms", "rps")),
                        warmup_end="settled" if all(m.warmup_end == "settled" for m in self.modes.values()) else
                        "bound")

    def rate_at_share(self, share: float) -> float:
        """The request rate whose CPU, all tiers together, takes `share` of the CPU vtlab may use."""
        return share * self.capacity * 1000 / self.cost().total_ms

    def age_days(self, now: datetime.datetime | None = None) -> float:
        now = now or datetime.datetime.now(datetime.timezone.utc)
        return (now - datetime.datetime.fromisoformat(self.measured_at)).total_seconds() / 86_400

    def summary(self) -> str:
        return f"{self.machine} (measured {self.measured_at[:16]}): " + "; ".join(
            f"{mode}: {cost.told()}" for mode, cost in self.modes.items())


def file_key(cores: int) -> str:
    """The machine's key as a cache file's name may hold it: its letters and digits, the rest dashes, cut short."""
    return "".join(ch if ch.isalnum() else "-" for ch in machine_key(cores)).strip("-")[:150]


def path_for(cores: int, bound: bool = False) -> Path:
    """The cache file of this machine's calibration; `bound`: of its upper bound alone (`vtlab calibrate --bound`),
    kept apart so that nothing sizes a profile's points from it."""
    version = f"{CALIBRATION_VERSION}.{BOUND_VERSION}" if bound else f"{CALIBRATION_VERSION}"
    kind = "calibration-bound" if bound else "calibration"
    return cache_dir() / f"{kind}-v{version}-{file_key(cores)}.json"


def load_bound(cores: int, now: datetime.datetime | None = None) -> Calibration | None:
    """This machine's upper bound (each mode's first calibration step): a whole calibration's where one is cached,
    else the one `vtlab calibrate --bound` measured alone."""
    return load(cores, now) or load(cores, now, bound=True)


def load(cores: int, now: datetime.datetime | None = None, bound: bool = False) -> Calibration | None:
    """This machine's cached calibration (`bound`: its upper bound alone), or None where there is none, it is of
    another machine or version, older than MAX_AGE_DAYS, or unreadable."""
    try:
        data = json.loads(path_for(cores, bound).read_text())
        found = Calibration(machine=data["machine"], cores=int(data["cores"]), version=int(data["version"]),
                            measured_at=data["measured_at"], run_dir=data.get("run_dir", ""),
                            quota=data.get("quota"),
                            modes={mode: ModeCost.of(cost) for mode, cost in data["modes"].items()})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if (found.machine, found.cores, found.version) != (machine_key(cores), cores, CALIBRATION_VERSION):
        return None
    if not all(cost.valid() for cost in found.modes.values()) or found.age_days(now) > MAX_AGE_DAYS:
        return None
    return found


def save(calibration: Calibration, bound: bool = False) -> Path:
    path = path_for(calibration.cores, bound)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(calibration), indent=2) + "\n")
    tmp.replace(path)
    return path


def users_at_share(measured: Calibration, share: float, delay_ms: float, least: int, most: int) -> int:
    """The closed-model users who, each waiting `delay_ms` a request, ask for `share` of this machine's cores (all
    tiers together, at the dearer mode's upper bound: the first step's CPU per request, on purpose — the smoke sizes
    a point below a wall with it), within [least, most]."""
    return max(least, min(most, int(measured.rate_at_share(share) * delay_ms / 1000)))
