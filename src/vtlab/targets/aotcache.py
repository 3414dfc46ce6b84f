"""The AOT cache a row's service starts with (vtlab.rig.aot): trained the first time a command line needs it — the
service started with the row's options and thread mode, TRAIN_S of the row's workload from k6, then a clean stop,
at which the JVM writes the cache. Every later row with that command line (and every later run, until the jar
or the runtime changes) starts from it."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vtlab.core.settings import APP_PORT, Java
from vtlab.measure import load
from vtlab.measure.tiers import Rig
from vtlab.rig import aot, procs, services

# The training's load: the hot paths of a request, profiled over a few thousand of them; short beside the rows it
# serves; users capped so that a 10,000-user row trains no longer than others.
TRAIN_RAMP_S, TRAIN_S = 2, 10
TRAIN_USERS = 200


@dataclass(frozen=True)
class Start:
    """How a row's service starts: the jar, the cache's options, and the cache (None: without one)."""
    jar: Path | None
    flags: tuple[str, ...]
    cache: aot.Cache | None

    def outcome(self, log: Path) -> str:
        return aot.OFF if self.cache is None else aot.outcome(log)


WITHOUT = Start(None, (), None)


def start_for(rig: Rig, java: Java, config: services.AppConfig, jvm_opts: tuple[str, ...], workload: str, users: int,
              route: tuple[dict[str, str], str], log_dir: Path, aot_log: Path) -> Start:
    """The row's service start with its AOT cache, trained now when missing. `route`: the row's database
    environment and stub URL."""
    jar = aot.extracted(java, services.app_jar(config))
    cache = aot.cache_for(java, jar, services.app_options(config, jvm_opts), config.thread_mode, workload)
    if not cache.trained:
        db_env, stub_url = route

        def service(work: Path, flags: tuple[str, ...]) -> services.Tier:
            return services.start_app(java, APP_PORT, config, db_env, stub_url, work / "service.log",
                                      work / "training.jfr", rig.core_map["app"], jvm_opts, jar, flags)

        def spec(base_url: str) -> load.LoadSpec:
            return load.LoadSpec(base_url, "closed", min(users, TRAIN_USERS), 0, TRAIN_RAMP_S, TRAIN_S, 1,
                                 rig.max_order_id, 1, workload, max_customer_id=rig.max_customer_id)

        train(rig, cache, service, spec, log_dir, f"{config.thread_mode}, {workload}")
    aot_log.unlink(missing_ok=True)
    return Start(jar, tuple(cache.flags(aot_log)), cache)


def train(rig: Rig, cache: aot.Cache, service: Callable[[Path, tuple[str, ...]], services.Tier],
          spec: Callable[[str], load.LoadSpec], log_dir: Path, what: str) -> None:
    """Train `cache`: `service(work folder, the cache's training flags)` started healthy, `spec(its URL)`'s load
    from k6, then a clean stop, at which the JVM writes the cache (renamed into place only once written whole)."""
    print(f"vtlab: training the service's AOT cache ({what}; {TRAIN_S} s, once)…", flush=True)
    started = time.monotonic()
    work = log_dir / "aot-training"
    work.mkdir(parents=True, exist_ok=True)
    cache.training.unlink(missing_ok=True)
    app = service(work, tuple(cache.training_flags()))
    forget = procs.on_cleanup(app.stop)
    try:
        load_spec = spec(app.base_url)
        k6 = load.start(rig.k6, load_spec, work / "k6.json", work / "k6.log", rig.core_map["load"],
                        work / "k6.csv.gz")
        try:
            k6.wait(timeout=load_spec.duration_s + 60)
        finally:
            procs.terminate(k6)
    finally:
        assert app.proc is not None
        procs.terminate(app.proc, grace=120)  # a clean exit: the JVM writes the cache as it ends
        forget()
    if not cache.training.exists():
        raise RuntimeError(f"the AOT training run wrote no cache; see {work / 'service.log'}")
    os.replace(cache.training, cache.path)
    shutil.rmtree(work, ignore_errors=True)
    print(f"vtlab: AOT cache trained in {time.monotonic() - started:.0f} s: {cache.path.name}", flush=True)
