"""What a row is made of, declared once.

Every dimension of a measured row — its name (which is also its CSV column and its `Row` field), its
type, the value an empty cell of an older CSV stands for, whether it tells two scenarios apart, whether
a row that departs from its plain value is a variant told in its own report section, whether it changes
what one request does (so rows differing in it never share a service time), and how it reads in a
label and a file name. The plan's `Row`, the resume key, the aggregation key, the CSV header, the
slug, the label and the empty-cell defaults all derive from this table: adding a dimension is one
entry here plus the code that really uses it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from vtlab.core import constants

Text = Callable[[Any], str]  # a Row (or any object with the dimensions as attributes) -> text


@dataclass(frozen=True)
class Dimension:
    name: str
    kind: type                       # int or str: how a CSV cell is parsed
    default: Any                     # what an empty or missing cell means (CSVs from before the dimension)
    label: Text                      # the row's words for it; "" where the value goes without saying
    slug: Text                       # the same for file names: short, no spaces; "" to leave it out
    key: bool = True                 # tells two scenarios apart (resume key, aggregation key)
    across_reps: bool = False        # differs between repetitions of one scenario (rep): not in the aggregation key
    plain: tuple[Any, ...] = ()      # values that keep a row in the main story; others make it a variant
    per_request: bool = False        # changes what one request does: rows differing here never share a service time

    def parse(self, cell: object) -> Any:
        if cell is None or cell == "":
            return self.default
        return self.kind(float(cell)) if self.kind is int else self.kind(cell)


def _when(condition: Callable[[Any], bool], text: Text) -> Text:
    return lambda row: text(row) if condition(row) else ""


_TOMCAT_DEFAULT = constants.Constants.tomcat_max_threads  # webflux rows have none: 0


def _open(row: Any) -> bool:
    return row.load_model == "open"


def _own_service(row: Any) -> bool:
    """A row of vtlab's own service, whose pool, paths and downstream the row sets (not a user's service)."""
    return row.workload != "service"


def _options_slug(options: str) -> str:
    """JVM options in a file name: their letters and digits ("-XX:+UseSerialGC" -> "XXUseSerialGC"), long ones cut
    and told apart by a digest of the whole."""
    words = "_".join("".join(c for c in word if c.isalnum()) for word in options.split())
    if len(words) > OPTIONS_SLUG_MAX:
        words = words[:OPTIONS_SLUG_MAX - 9] + "_" + hashlib.sha256(options.encode()).hexdigest()[:8]
    return "jvm_" + words


OPTIONS_SLUG_MAX = 40

DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("thread_mode", str, "", lambda r: r.thread_mode, lambda r: r.thread_mode,
              plain=("platform", "virtual")),
    # The embedded server of vtlab's blocking service (presets.SERVERS); rows before the dimension, the reactive twin's
    # and a user's service keep Tomcat's name, and only another server is shown.
    Dimension("server", str, "tomcat", _when(lambda r: r.server != "tomcat", lambda r: f"on {r.server}"),
              _when(lambda r: r.server != "tomcat", lambda r: r.server), plain=("tomcat",), per_request=True),
    Dimension("workload", str, "order-summary", lambda r: r.workload, lambda r: r.workload, per_request=True),
    Dimension("load_model", str, "closed", _when(_open, lambda r: "open model"), _when(_open, lambda r: "open")),
    Dimension("concurrency", int, 0, _when(lambda r: not _open(r), lambda r: f"{r.concurrency} users"),
              lambda r: f"c{r.concurrency}"),
    Dimension("target_rps", int, 0, _when(_open, lambda r: f"{r.target_rps} req/s"),
              _when(_open, lambda r: f"r{r.target_rps}")),
    Dimension("conn_mode", str, "released", _when(_own_service, lambda r: r.conn_mode),
              _when(_own_service, lambda r: r.conn_mode), per_request=True),
    Dimension("path_mode", str, "normal", _when(_own_service, lambda r: r.path_mode),
              _when(_own_service, lambda r: r.path_mode), per_request=True),
    Dimension("hikari_pool", int, 0, _when(_own_service, lambda r: f"pool {r.hikari_pool}"),
              _when(_own_service, lambda r: f"pool{r.hikari_pool}")),
    Dimension("pool_impl", str, "hikari", _when(lambda r: r.pool_impl != "hikari", lambda r: r.pool_impl),
              _when(lambda r: r.pool_impl != "hikari", lambda r: r.pool_impl), plain=("hikari",), per_request=True),
    # The blocking service's downstream client (presets.HTTP_CLIENTS) and its pool's size (0: the client's own default).
    # Rows whose service has no such choice (the reactive twin, a user's service, no downstream call) keep the JDK's,
    # as every row before the dimension ran, and never show it.
    Dimension("http_client", str, "jdk", _when(lambda r: r.http_client != "jdk", lambda r: f"{r.http_client} client"),
              _when(lambda r: r.http_client != "jdk", lambda r: r.http_client), plain=("jdk",), per_request=True),
    Dimension("client_pool", int, 0, _when(lambda r: r.client_pool, lambda r: f"{r.client_pool} connections"),
              _when(lambda r: r.client_pool, lambda r: f"cp{r.client_pool}")),
    Dimension("tomcat_max_threads", int, _TOMCAT_DEFAULT,
              _when(lambda r: r.tomcat_max_threads not in (_TOMCAT_DEFAULT, 0),
                    lambda r: f"tomcat {r.tomcat_max_threads}"),
              _when(_own_service, lambda r: f"t{r.tomcat_max_threads}")),
    Dimension("stub_delay_ms", int, 0, _when(lambda r: _own_service(r) or r.stub_delay_ms,
                                             lambda r: f"downstream {r.stub_delay_ms} ms"),
              _when(lambda r: _own_service(r) or r.stub_delay_ms, lambda r: f"d{r.stub_delay_ms}")),
    Dimension("sleep_ms", int, 0, _when(lambda r: r.sleep_ms, lambda r: f"sleep {r.sleep_ms} ms"),
              _when(lambda r: r.sleep_ms, lambda r: f"s{r.sleep_ms}")),
    Dimension("cpu_work", int, 0, _when(lambda r: r.cpu_work, lambda r: f"cpu {r.cpu_work} rounds"),
              _when(lambda r: r.cpu_work, lambda r: f"w{r.cpu_work}")),
    Dimension("offload_executor", str, "", _when(lambda r: r.offload_executor, lambda r: f"to {r.offload_executor}"),
              _when(lambda r: r.offload_executor, lambda r: r.offload_executor)),
    Dimension("offload_pool", int, 0, _when(lambda r: r.offload_pool, lambda r: f"{r.offload_pool} threads"),
              _when(lambda r: r.offload_pool, lambda r: f"x{r.offload_pool}")),
    Dimension("fanout", str, "", _when(lambda r: r.fanout, lambda r: r.fanout),
              _when(lambda r: r.fanout, lambda r: r.fanout), per_request=True),
    Dimension("context", str, "none", _when(lambda r: r.context != "none", lambda r: f"context {r.context}"),
              _when(lambda r: r.context != "none", lambda r: f"ctx{r.context}"), plain=("none",), per_request=True),
    Dimension("context_kb", int, 0, _when(lambda r: r.context_kb, lambda r: f"{r.context_kb} KB"),
              _when(lambda r: r.context_kb, lambda r: f"{r.context_kb}kb"), per_request=True),
    Dimension("db_latency_ms", int, 0, _when(lambda r: r.db_latency_ms, lambda r: f"db +{r.db_latency_ms}"),
              _when(lambda r: r.db_latency_ms, lambda r: f"db{r.db_latency_ms}"), plain=(0,), per_request=True),
    Dimension("db_jitter_ms", int, 0, _when(lambda r: r.db_jitter_ms, lambda r: f"±{r.db_jitter_ms} ms"),
              _when(lambda r: r.db_jitter_ms, lambda r: f"j{r.db_jitter_ms}"), plain=(0,), per_request=True),
    Dimension("downstream_latency_ms", int, 0,
              _when(lambda r: r.downstream_latency_ms, lambda r: f"call +{r.downstream_latency_ms}"),
              _when(lambda r: r.downstream_latency_ms, lambda r: f"ds{r.downstream_latency_ms}"),
              plain=(0,), per_request=True),
    Dimension("downstream_jitter_ms", int, 0,
              _when(lambda r: r.downstream_jitter_ms, lambda r: f"±{r.downstream_jitter_ms} ms"),
              _when(lambda r: r.downstream_jitter_ms, lambda r: f"j{r.downstream_jitter_ms}"),
              plain=(0,), per_request=True),
    # The service's Java runtime (major version; CSVs from before the dimension ran on 25). A JDK 21 row is a
    # variant, told in the JEP 491 section; it changes what blocking in a monitor does, so no shared service time.
    Dimension("jdk", int, 25, _when(lambda r: r.jdk != 25, lambda r: f"JDK {r.jdk}"),
              _when(lambda r: r.jdk != 25, lambda r: f"jdk{r.jdk}"), plain=(25,), per_request=True),
    # The service's JVM options beyond vtlab's own, as shell words (shlex.join; "" for none): one value per --jvm-opts
    # given, so two collectors are rows of one run. It changes what one request costs (a collector's barriers, -Xint),
    # so no shared service time; it never makes a variant: a whole run may carry one (the hero's heap).
    Dimension("jvm_opts", str, "", _when(lambda r: r.jvm_opts, lambda r: f"JVM {r.jvm_opts}"),
              _when(lambda r: r.jvm_opts, lambda r: _options_slug(r.jvm_opts)), per_request=True),
    Dimension("shape", str, "steady", _when(lambda r: r.shape != "steady", lambda r: f"{r.shape} shape"),
              _when(lambda r: r.shape != "steady", lambda r: r.shape), plain=("steady",)),
    Dimension("rep", int, 1, lambda r: f"rep {r.rep}", lambda r: f"rep{r.rep}", across_reps=True),
)

BY_NAME: dict[str, Dimension] = {d.name: d for d in DIMENSIONS}
NAMES: tuple[str, ...] = tuple(d.name for d in DIMENSIONS)
# What makes a row already measured (resume): every key dimension, repetition included.
RESUME_KEY: tuple[str, ...] = tuple(d.name for d in DIMENSIONS if d.key)
# What makes rows repetitions of one scenario (aggregation): the resume key without the repetition.
SCENARIO_KEY: tuple[str, ...] = tuple(d.name for d in DIMENSIONS if d.key and not d.across_reps)
PER_REQUEST: tuple[str, ...] = tuple(d.name for d in DIMENSIONS if d.per_request)

# The plan's row: one frozen field per dimension, built by keyword (`Row(thread_mode="virtual", ...)`).
Row = dataclasses.make_dataclass(
    "Row", [(d.name, d.kind, dataclasses.field(default=d.default)) for d in DIMENSIONS], frozen=True,
    namespace={"__doc__": "One measured scenario: a value for every dimension in DIMENSIONS.",
               "__module__": __name__})


def parse(cells: Mapping[str, object]) -> Any:
    """A Row from CSV cells (strings, empty where an older CSV has no such column)."""
    return Row(**{d.name: d.parse(cells.get(d.name)) for d in DIMENSIONS})


def key(row: Any, names: tuple[str, ...] = RESUME_KEY) -> tuple[str, ...]:
    """A row's identity as text: the same for a planned Row and for the CSV line it became."""
    return tuple(str(getattr(row, name)) for name in names)


def label(row: Any) -> str:
    return " ".join(text for text in (d.label(row) for d in DIMENSIONS) if text)


def slug(row: Any) -> str:
    """A file-name stem unique per row: the log, JFR recording and k6 summary of the row carry it."""
    return "-".join(text for text in (d.slug(row) for d in DIMENSIONS) if text)


def is_variant(row: Any) -> bool:
    """A row that changes the service's parts (another pool, a request context, injected latency, the
    reactive twin): told in its scenario's section, never mixed into the main platform/virtual story."""
    return any(d.plain and getattr(row, d.name) not in d.plain for d in DIMENSIONS)


def values(row: Any) -> dict[str, Any]:
    return {name: getattr(row, name) for name in NAMES}
