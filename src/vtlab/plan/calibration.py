"""This machine's calibration: what one request of vtlab's own order-summary call costs each tier here, measured once
and cached per machine, and the loads sized from it.

Machines of one kind differ by up to ~30% (the same k6 and stub cost 0.216 ms of CPU a request on one 2-core EPYC
and 0.154 on another), so a point fixed on one machine sits at another share of another's cores: a proof that
asserts a class (below every wall, behind the thread wall, inside the generator's noise) sizes its points from the
CPU per request measured on the machine in front of it, never from users fixed on the one it was written on.

`vtlab calibrate` measures it (a short row of each mode at CALIBRATION_POINT, on the real tiers) and keeps it in the
cache beside the user's other caches, keyed by the machine and CALIBRATION_VERSION: a clean clone on the same
machine reads it, a new machine or a changed procedure measures again."""

from __future__ import annotations

import datetime
import json
import math
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path

from vtlab.core import cores as cpus

# Bump when what is measured changes (the point, the phases, the service's request path): a cached calibration of
# another version is measured again.
CALIBRATION_VERSION = 1
# The point measured: far below every wall on any machine of this kind (20 users at 100 ms ask ~190 req/s). Its
# warm-up is bounded at 20 s (the first row's at 40): at 190 req/s the JIT was still busy at that bound in both modes
# here (2026-11-27: service 2.4 ms a request platform, 3.9 virtual), so the figures are an upper bound, recorded as
# such (`warmup_end`) — a safe side for sizing points below a wall, not yet the service's own cost.
CALIBRATION_POINT = {"users": 20, "stub_delay_ms": 100, "ramp_s": 2, "warmup_s": 20, "hold_s": 10}
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
class ModeCost:
    """One thread mode's CPU per request at the calibration point, by tier, in ms (of one core), and its rate."""
    service_ms: float
    generator_ms: float
    stub_ms: float
    database_ms: float
    rps: float
    # how its warm-up ended ("settled", or "bound": the JIT still busy, so the figures are an upper bound — safe
    # for sizing a point below a wall, too high as the service's own cost)
    warmup_end: str = "settled"

    @property
    def total_ms(self) -> float:
        return self.service_ms + self.generator_ms + self.stub_ms + self.database_ms

    def valid(self) -> bool:
        return all(math.isfinite(v) and v > 0 for v in (self.service_ms, self.generator_ms, self.rps)) and all(
            math.isfinite(v) and v >= 0 for v in (self.stub_ms, self.database_ms))


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
        return ModeCost(*(max(getattr(mode, field) for mode in self.modes.values())
                          for field in ("service_ms", "generator_ms", "stub_ms", "database_ms", "rps")),
                        warmup_end="settled" if all(m.warmup_end == "settled" for m in self.modes.values()) else
                        "bound")

    def rate_at_share(self, share: float) -> float:
        """The request rate whose CPU, all tiers together, takes `share` of the CPU vtlab may use."""
        return share * self.capacity * 1000 / self.cost().total_ms

    def age_days(self, now: datetime.datetime | None = None) -> float:
        now = now or datetime.datetime.now(datetime.timezone.utc)
        return (now - datetime.datetime.fromisoformat(self.measured_at)).total_seconds() / 86_400

    def summary(self) -> str:
        parts = [f"{mode}: service {c.service_ms:.3f}, k6 {c.generator_ms:.3f}, stub {c.stub_ms:.3f}, "
                 f"PostgreSQL {c.database_ms:.3f} ms/request at {c.rps:.0f} req/s"
                 + ("" if c.warmup_end == "settled" else
                    " (its JIT still busy at the warm-up's bound: an upper bound)" if c.warmup_end == "bound" else
                    f" (its warm-up ended: {c.warmup_end})")
                 for mode, c in self.modes.items()]
        return f"{self.machine} (measured {self.measured_at[:16]}): " + "; ".join(parts)


def path_for(cores: int) -> Path:
    safe = "".join(ch if ch.isalnum() else "-" for ch in machine_key(cores)).strip("-")
    return cache_dir() / f"calibration-v{CALIBRATION_VERSION}-{safe[:150]}.json"


def load(cores: int, now: datetime.datetime | None = None) -> Calibration | None:
    """This machine's cached calibration, or None where there is none, it is of another machine or version, older
    than MAX_AGE_DAYS, or unreadable."""
    try:
        data = json.loads(path_for(cores).read_text())
        found = Calibration(machine=data["machine"], cores=int(data["cores"]), version=int(data["version"]),
                            measured_at=data["measured_at"], run_dir=data.get("run_dir", ""),
                            quota=data.get("quota"),
                            modes={mode: ModeCost(**cost) for mode, cost in data["modes"].items()})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if (found.machine, found.cores, found.version) != (machine_key(cores), cores, CALIBRATION_VERSION):
        return None
    if not all(cost.valid() for cost in found.modes.values()) or found.age_days(now) > MAX_AGE_DAYS:
        return None
    return found


def save(calibration: Calibration) -> Path:
    path = path_for(calibration.cores)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(calibration), indent=2) + "\n")
    tmp.replace(path)
    return path


def users_at_share(measured: Calibration, share: float, delay_ms: float, least: int, most: int) -> int:
    """The closed-model users who, each waiting `delay_ms` a request, ask for `share` of this machine's cores (all
    tiers together, at the dearer mode's cost), within [least, most]."""
    return max(least, min(most, int(measured.rate_at_share(share) * delay_ms / 1000)))
