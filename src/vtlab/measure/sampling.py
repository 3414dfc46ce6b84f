"""What a local row samples beside its load: each tier's CPU (k6's runners among them) with the service JVM's
compiler threads, and the service's meters."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from vtlab.core import constants
from vtlab.measure import hostwork, jit, load, samplers
from vtlab.measure.tiers import Rig
from vtlab.rig import services
from vtlab.series import windows


def samplers_of(rig: Rig, app: services.Tier, runners: Sequence[load.Runner],
                read_meters: Callable[[], dict[str, float] | None] | None, idle: tuple[int, ...] | None = None
                ) -> tuple[dict[str, int | tuple[int, ...] | None], samplers.Sampler, samplers.Sampler]:
    """The tiers whose CPU is sampled (k6: each runner), the CPU sampler and the meters' (a service that exposes no
    meters, or a --url without --metrics, is sampled for none: its columns stay empty). The CPU sampler also reads the
    service JVM's compiler threads, through the whole row: the hold's compiler CPU is the JVM's, not its requests'
    (explain.compiler), and the hold is only known once k6's requests are read back; and, each reading, the host's
    speed (measure.hostwork). `idle`: the rig's own processes that wait while this load runs (a paired point's other
    arm in turns: its JVM and its k6), where not the rig's."""
    current = constants.CURRENT
    pids = {**rig.pids(app), "load": tuple(runner.proc.pid for runner in runners),
            "proxy": rig.toxiproxy.pid if rig.toxiproxy else None, **({"idle": idle} if idle is not None else {})}
    read_cpu = hostwork.with_host_work(jit.with_compiler_cpu(samplers.cpu_reader(lambda: pids), app.pid))
    return (pids, samplers.Sampler(current.cpu_interval_s, read_cpu),
            samplers.Sampler(current.meter_interval_s, read_meters or (lambda: None)))


def stopped(sampler: samplers.Sampler) -> windows.Series:
    """A sampler's readings, stopped; none where it never started (what it sampled for failed first)."""
    return sampler.stop() if sampler.ident is not None else windows.Series()
