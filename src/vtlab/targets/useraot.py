"""The AOT cache of the user's jar (`--aot on` with `--service`; vtlab.rig.aot), made as vtlab's own service's is
(targets/aotcache.py): the jar extracted to a plain class path, a training run the first time a row's command line
needs it — the service started with the row's thread mode, options, settings and a fresh database, TRAIN_S of the
row's own call (its endpoint or its k6 script) — and every later row with that command line starting from it.

The cache is keyed by everything that shapes what the training loaded and profiled: the runtime, the extracted jar,
the JVM options, the thread mode, the call, the service's arguments and settings (their values hashed into the
key, never written anywhere)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from vtlab.core.settings import Java
from vtlab.measure import load
from vtlab.measure.tiers import Rig
from vtlab.rig import aot
from vtlab.rig.services import Tier
from vtlab.targets import aotcache, userrow
from vtlab.targets.userservice import Target


WITHOUT = aotcache.WITHOUT  # the jar as built, no cache


def start_for(rig: Rig, target: Target, java: Java, virtual: bool, db_env: dict[str, str], stub_url: str | None,
              jvm_opts: tuple[str, ...], users: int, log_dir: Path, aot_log: Path) -> aotcache.Start:
    """The row's start of the user's jar from its AOT cache, trained now when missing. `db_env`: the training's own
    database settings (a fresh database, as each row gets)."""
    assert target.jar is not None
    jar = aot.extracted(java, target.jar)
    mode = "virtual" if virtual else "platform"
    cache = aot.cache_for(java, jar, userrow.options(jvm_opts), mode, "service-" + _call_digest(target))
    if not cache.trained:
        def service(work: Path, flags: tuple[str, ...]) -> Tier:
            return userrow.start(target, java, virtual, db_env, stub_url, work / "service.log", work / "training.jfr",
                                 rig.core_map["app"], jvm_opts, jar, flags)

        def spec(base_url: str) -> load.LoadSpec:
            return load.LoadSpec(base_url, "closed", min(users, aotcache.TRAIN_USERS), 0, aotcache.TRAIN_RAMP_S,
                                 aotcache.TRAIN_S, 1, 1, 1, "service",
                                 script=target.call.entry_script(log_dir / "aot-training"),
                                 script_env=tuple(target.call.k6_env().items()))

        aotcache.train(rig, cache, service, spec, log_dir, f"{mode}, {target.call.describe()}")
    aot_log.unlink(missing_ok=True)
    return aotcache.Start(jar, tuple(cache.flags(aot_log)), cache)


def _call_digest(target: Target) -> str:
    """What the training ran and the service was told: the call (a script or a mix file by its content), its arguments
    and its settings."""
    mix = target.call.mix.source if target.call.mix else None
    script = target.call.script.read_bytes() if target.call.script else mix.read_bytes() if mix else b""
    parts = [target.call.describe(), hashlib.sha256(script).hexdigest(), *target.args,
             *(f"{name}={value}" for name, value in target.env)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]
