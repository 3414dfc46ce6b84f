"""A row's dimensions (a `dimensions.Row`, from a verdict or an aggregate) in the report's words:
'virtual 1000 users released, pool 50'."""

from __future__ import annotations

import math
import shlex
from typing import Any

from vtlab.core import constants
from vtlab.core.arms import ARM_B_OPTION
from vtlab.core.dimensions import DIMENSIONS

# only where no run's record is at hand; the report passes the run's
TOMCAT_THREADS = constants.CURRENT.tomcat_max_threads
JDK_DEFAULT = next(d.default for d in DIMENSIONS if d.name == "jdk")  # the JDK a label leaves unsaid


def fmt(value: object, digits: int = 0) -> str:
    number = float(value)  # type: ignore[arg-type]
    return "–" if math.isnan(number) or math.isinf(number) else f"{number:,.{digits}f}"


def load_of(row: Any) -> str:
    """ "1,000 users", "150/s offered": the row's load in words."""
    return f"{fmt(row.target_rps)}/s offered" if row.load_model == "open" else f"{fmt(row.concurrency)} users"


def row_label(row: Any, threads: int = TOMCAT_THREADS) -> str:
    load = f"{row.target_rps}/s" if row.load_model == "open" else f"{row.concurrency} users"
    return f"{mode_label(row, threads)} {load} {scenario_label(row)}" + (f" rep {row.rep}" if row.rep != 1 else "")


def mode_label(row: Any, default_threads: int = TOMCAT_THREADS) -> str:
    """'platform' with Tomcat's default pool, 'platform (2 threads)' with another size, 'virtual'; the second arm of
    one mode (an A/A's, a before/after's --vs jar) ', arm b' after it."""
    arm = ", arm b" if is_arm_b(row) else ""
    if row.thread_mode == "platform" and row.tomcat_max_threads not in (default_threads, 0):  # 0: a user's service
        return f"platform ({row.tomcat_max_threads} threads){arm}"
    return f"{row.thread_mode}{arm}"


def is_arm_b(row: Any) -> bool:
    """Whether the row is the second arm of one mode in a paired run (its JVM marked: core.arms.ARM_B_OPTION)."""
    return ARM_B_OPTION in shlex.split(getattr(row, "jvm_opts", "") or "")


def scenario_label(row: Any) -> str:
    """The scenario in words, a JDK other than the default named: one scenario measured on two JDKs is two lines of
    the headline, never one line whose cell the other's figures overwrote."""
    return _scenario_words(row) + ("" if row.jdk == JDK_DEFAULT else f", JDK {row.jdk}")


def _scenario_words(row: Any) -> str:
    kind = row.workload
    if kind == "service":
        return "your service" + (f", downstream {fmt(row.stub_delay_ms)} ms" if row.stub_delay_ms else "")
    if kind == "sleep":
        return f"sleep {fmt(row.sleep_ms)} ms"
    if kind == "cpu":
        return f"cpu {fmt(row.cpu_work)} SHA-256 rounds"
    if kind == "offload":
        return (f"offload to a {fmt(row.offload_pool)}-thread platform pool"
                if row.offload_executor == "platform" else "offload to virtual threads")
    if kind == "fanout":
        return f"fan-out, {row.fanout}"
    return (("write, " if kind == "write" else "") + f"{row.conn_mode}, pool {row.hikari_pool}"
            + ("" if row.pool_impl in ("hikari", "r2dbc") else f" ({row.pool_impl})")
            + ("" if row.server == "tomcat" else f", on {row.server}")
            + ("" if row.http_client == "jdk" else f", {row.http_client} client"
               + (f" ({fmt(row.client_pool)} connections)" if row.client_pool else ""))
            + ("" if row.path_mode == "normal" else f", {row.path_mode}")
            + ("" if row.context == "none" else f", {row.context} context")
            + _latency_label(row, "db", "PostgreSQL") + _latency_label(row, "downstream", "downstream"))


def _latency_label(row: Any, prefix: str, tier: str) -> str:
    latency, jitter = getattr(row, f"{prefix}_latency_ms"), getattr(row, f"{prefix}_jitter_ms")
    if not latency and not jitter:
        return ""
    return f", {tier} +{fmt(latency)}" + (f"±{fmt(jitter)}" if jitter else "") + " ms each way"

