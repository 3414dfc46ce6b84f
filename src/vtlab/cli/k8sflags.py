"""The flags of `vtlab k8s render` and `vtlab k8s run` beyond the plan's: the namespace, the images, where each
tier runs and its CPU budget; and what of a plan a cluster cannot measure yet, refused before anything is made."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from vtlab.targets import k8smanifests
from vtlab.targets.k8smanifests import Cluster
from vtlab.plan.planner import Plan

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")  # a DNS-1123 label: a namespace's rule
# Kubernetes quantities as vtlab writes them: cores (2, 0.5, 500m) and bytes (2Gi, 512Mi)
_QUANTITY = {"CORES": re.compile(r"^\d+(\.\d+)?m?$"), "SIZE": re.compile(r"^\d+(Ki|Mi|Gi|Ti|k|M|G|T)?$")}
_IMAGE_TIERS = {"service": "service", "stub": "stub", "k6": "k6", "postgres": "postgres"}


def namespace(text: str) -> str:
    if not _NAME.match(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; use a Kubernetes namespace name (lower-case "
                                         "letters, digits and '-', at most 63)")
    return text


def tier_setting(what: str) -> Callable[[str], tuple[str, str]]:
    """TIER=VALUE for one of the tiers (k8smanifests.TIERS); the value checked as a Kubernetes quantity for CPU and
    memory, or as KEY=VALUE (a node label) for node selectors."""
    def parse(text: str) -> tuple[str, str]:
        tier, _, value = text.partition("=")
        if tier not in k8smanifests.TIERS or not value:
            raise argparse.ArgumentTypeError(f"{text!r} is not accepted; use TIER={what} with TIER one of "
                                             f"{', '.join(k8smanifests.TIERS)}")
        if what == "KEY=VALUE" and "=" not in value:
            raise argparse.ArgumentTypeError(f"{text!r} is not accepted; use TIER=KEY=VALUE (a node label), "
                                             "e.g. service=vtlab.dev/pool=app")
        if what in _QUANTITY and not _QUANTITY[what].match(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not accepted; {value!r} is not a Kubernetes quantity of "
                                             + ("cores (e.g. 2, 500m)" if what == "CORES" else "memory (e.g. 2Gi)"))
        return tier, value
    return parse


def add(command: argparse.ArgumentParser) -> None:
    command.add_argument("--namespace", type=namespace, default="vtlab", help="the namespace (default vtlab)")
    for tier in _IMAGE_TIERS:
        command.add_argument(f"--image-{tier}", metavar="IMAGE", default=k8smanifests.IMAGES[tier],
                             help=f"the {tier}'s image (default {k8smanifests.IMAGES[tier]})")
    command.add_argument("--node-selector", type=tier_setting("KEY=VALUE"), action="append", default=[],
                         metavar="TIER=KEY=VALUE", help="run a tier only on nodes with this label (repeatable), "
                         f"TIER one of {', '.join(k8smanifests.TIERS)}")
    defaults = k8smanifests.DEFAULT_RESOURCES.items()
    command.add_argument("--cpu", type=tier_setting("CORES"), action="append", default=[], metavar="TIER=CORES",
                         help="a tier's CPU, requested and limited alike (defaults: "
                              + ", ".join(f"{t} {c}" for t, (c, _) in defaults) + "; load: each runner's)")
    command.add_argument("--memory", type=tier_setting("SIZE"), action="append", default=[], metavar="TIER=SIZE",
                         help="a tier's memory, requested and limited alike (defaults: "
                              + ", ".join(f"{t} {m}" for t, (_, m) in defaults) + ")")
    command.add_argument("--db-url", dest="k8s_db_url", metavar="JDBC_URL",
                         help="a database of your own (e.g. a managed PostgreSQL seeded with vtlab's sql/) instead "
                              "of vtlab's PostgreSQL in the cluster; its password in the Secret vtlab-db")


def cluster(args: argparse.Namespace) -> Cluster:
    resources = dict(k8smanifests.DEFAULT_RESOURCES)
    for tier, cpu in args.cpu:
        resources[tier] = (cpu, resources[tier][1])
    for tier, memory in args.memory:
        resources[tier] = (resources[tier][0], memory)
    selectors: dict[str, dict[str, str]] = {}
    for tier, label in args.node_selector:
        key, _, value = label.partition("=")
        selectors.setdefault(tier, {})[key] = value
    if args.k8s_db_url is not None and not args.k8s_db_url.startswith("jdbc:postgresql://"):
        raise ValueError(f"--db-url {args.k8s_db_url!r}: give a JDBC URL, jdbc:postgresql://HOST:PORT/DATABASE")
    images = {tier: getattr(args, f"image_{tier}") for tier in _IMAGE_TIERS}
    return Cluster(args.namespace, images, selectors, resources, args.k8s_db_url)


def unsupported(plan: Plan) -> str | None:
    """What in the plan a cluster run cannot measure (yet), naming the flag; None when it all can."""
    for row in plan.rows:
        if row.thread_mode == "webflux":
            return "--modes webflux: the reactive twin has no image yet; measure platform and virtual"
        if row.workload in ("write", "service"):
            return (f"--workload {row.workload}: "
                    + ("its every-write check reads vtlab's local database" if row.workload == "write"
                       else "a user's service is not rendered yet") + "; use a read workload")
        if row.db_latency_ms or row.downstream_latency_ms or row.db_jitter_ms or row.downstream_jitter_ms:
            return "--db-latency/--downstream-latency: a cluster's network is real; drop the latency proxy's flags"
        if row.jdk != 25:
            return f"--jdk {row.jdk}: the service image is JDK 25's; measure --jdk 25"
    if plan.java_homes:
        return "--java-home: the service image brings its own runtime"
    return None
