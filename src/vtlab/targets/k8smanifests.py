"""A plan rendered as Kubernetes manifests: the same tiers and rows as a local run, each tier on nodes of its own.

What is rendered (files, applied in name order):
- `00-namespace.yaml`: the namespace.
- `10-postgres.yaml`: PostgreSQL (scram-sha-256; its password from the Secret `vtlab-db`, never in a manifest)
  and a Job seeding it with vtlab's own schema and seed — or nothing, with --db-url (the user's database).
- `20-stub.yaml`: the downstream stub with the plan's delay.
- `30-load.yaml`: vtlab's k6 scripts (ConfigMap) and the JFR settings the service records pinning with.
- `rows/NN-<row>.yaml` per row: the service in the row's configuration (Deployment + Service, JFR to a volume)
  and the k6-operator `TestRun` driving it with `parallelism` = --runners, each runner writing vtlab's series
  to its log (`--out vtlab=-`) for `vtlab k8s run` to merge.

Every container's CPU and memory requests equal its limits (the Guaranteed class: the CPU budget is known), and
each tier refuses nodes running another tier (required pod anti-affinity on the hostname): the service never
shares a node's CPUs with PostgreSQL, the stub or the generator, which is the caveat of every one-host rig.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vtlab.core import dimensions
from vtlab.targets import kubeletstats, servicejvm
from vtlab.measure import load, loop
from vtlab.rig import postgres, services
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan, row_options
from vtlab.core.settings import LOAD, SQL

LABEL = "vtlab.dev/tier"
NAME_LABEL = "vtlab.dev/name"  # on a pod: the Deployment, StatefulSet or Job it belongs to
ROW_ANNOTATION = "vtlab.dev/row"
TIERS = ("service", "postgres", "stub", "load")
SECRET = "vtlab-db"  # key "password": made by `vtlab k8s run`, or by hand (docs/kubernetes.md)
DB_SERVICE, STUB_SERVICE, SCRIPTS, SQL_CONFIG = "vtlab-postgres", "vtlab-stub", "vtlab-k6-scripts", "vtlab-sql"
SEED_JOB = "vtlab-seed"
APP_PORT, MANAGEMENT_PORT, STUB_PORT, PG_PORT = 8080, 9090, 8081, 5432

# CPU (cores) and memory per container, requests equal to limits. The service's 2 cores match the hero point's
# budget on this project's 2-core reference machine; each k6 runner gets 1 core and is split further by --runners.
DEFAULT_RESOURCES = {"service": ("2", "2Gi"), "postgres": ("2", "2Gi"), "stub": ("1", "1Gi"), "load": ("1", "1Gi")}

# What the service's JVM needs beyond its heap (thread stacks, metaspace, the JIT's code, direct buffers): a row
# whose sized heap (services.service_heap_mb) leaves less in the pod gets a pod that large.
SERVICE_NATIVE_MB = 768

# The operator version whose TestRun CRD the manifests follow (reference/k6-operator-testrun.schema.json).
K6_OPERATOR_VERSION = "v1.x (CRD k6.io_testruns.yaml at grafana/k6-operator 0044cb2)"


@dataclass(frozen=True)
class Cluster:
    """Where and how the plan runs on Kubernetes: the flags of `vtlab k8s render` and `vtlab k8s run`."""
    namespace: str = "vtlab"
    images: dict[str, str] = field(default_factory=lambda: dict(IMAGES))
    node_selectors: dict[str, dict[str, str]] = field(default_factory=dict)  # tier -> node labels
    resources: dict[str, tuple[str, str]] = field(default_factory=lambda: dict(DEFAULT_RESOURCES))
    db_url: str | None = None  # the user's database (JDBC URL) instead of vtlab's PostgreSQL


# Built from this repository (docs/kubernetes.md: the Dockerfiles beside each part) except PostgreSQL's.
IMAGES = {"service": "vtlab/app:latest", "stub": "vtlab/stub:latest", "k6": "vtlab/k6:latest",
          "postgres": "postgres:15"}


def render(plan: Plan, cluster: Cluster) -> dict[str, list[dict]]:
    """File name -> its documents, for every tier and row of the plan."""
    files: dict[str, list[dict]] = {"00-namespace.yaml": [_namespace(cluster)]}
    if cluster.db_url is None:
        files["10-postgres.yaml"] = _postgres(cluster)
    files["20-stub.yaml"] = _stub(plan, cluster)
    files["30-load.yaml"] = _load_config(cluster)
    for index, row in enumerate(plan.rows):
        files[f"rows/{row_file(index, row)}"] = [*_service(plan, row, index, cluster),
                                                 _testrun(plan, row, index, cluster)]
    return files


def row_file(index: int, row: Row) -> str:
    return f"{index + 1:02d}-{dimensions.slug(row)}.yaml"


def service_name(index: int) -> str:
    return f"vtlab-service-r{index + 1:02d}"


def testrun_name(index: int) -> str:
    return f"vtlab-load-r{index + 1:02d}"


# --- the tiers ---------------------------------------------------------------------------------------------

def _namespace(cluster: Cluster) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": cluster.namespace}}


def _postgres(cluster: Cluster) -> list[dict]:
    password = {"name": "POSTGRES_PASSWORD", "valueFrom": {"secretKeyRef": {"name": SECRET, "key": "password"}}}
    server = _container("postgres", cluster.images["postgres"], cluster, "postgres", [
        {"name": "POSTGRES_USER", "value": postgres.DB_USER}, {"name": "POSTGRES_DB", "value": postgres.DB_NAME},
        password, {"name": "POSTGRES_INITDB_ARGS", "value": "--auth-host=scram-sha-256"},
        {"name": "POSTGRES_HOST_AUTH_METHOD", "value": "scram-sha-256"},
        {"name": "PGDATA", "value": "/var/lib/postgresql/data/pgdata"}])
    server["args"] = _server_flags()
    server["ports"] = [{"name": "postgres", "containerPort": PG_PORT}]
    server["readinessProbe"] = {"exec": {"command": ["pg_isready", "-U", postgres.DB_USER, "-d", postgres.DB_NAME]},
                                "periodSeconds": 2}
    server["volumeMounts"] = [{"name": "data", "mountPath": "/var/lib/postgresql/data"}]
    pod = _pod("postgres", DB_SERVICE, cluster, [server], [{"name": "data", "emptyDir": {}}])
    seed = _container("seed", cluster.images["postgres"], cluster, "postgres", [
        {"name": "PGPASSWORD", "valueFrom": {"secretKeyRef": {"name": SECRET, "key": "password"}}}])
    connect = f"-h {DB_SERVICE} -U {postgres.DB_USER} -d {postgres.DB_NAME}"
    seed["command"] = ["sh", "-c", f"until pg_isready {connect}; do sleep 2; done && "
                       f"psql {connect} -X -v ON_ERROR_STOP=1 -f /sql/schema.sql -f /sql/seed.sql"]
    seed["volumeMounts"] = [{"name": "sql", "mountPath": "/sql"}]
    seed_pod = _pod("postgres", SEED_JOB, cluster, [seed], [{"name": "sql", "configMap": {"name": SQL_CONFIG}}])
    seed_pod["spec"]["restartPolicy"] = "Never"
    return [
        _config_map(cluster, SQL_CONFIG, {name: (SQL / name).read_text() for name in ("schema.sql", "seed.sql")}),
        _service_of("postgres", DB_SERVICE, cluster, [{"name": "postgres", "port": PG_PORT}], headless=True),
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": _meta(DB_SERVICE, cluster, "postgres"),
         "spec": {"serviceName": DB_SERVICE, "replicas": 1,
                  "selector": {"matchLabels": _labels("postgres", DB_SERVICE)}, "template": pod}},
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": _meta(SEED_JOB, cluster, "postgres"),
         "spec": {"backoffLimit": 2, "template": seed_pod}},
    ]


def _server_flags() -> list[str]:
    """A local run's server settings (postgres.SERVER_SETTINGS) as the server's own flags; where it listens is the
    image's (every address of the pod, port 5432)."""
    flags = []
    for line in postgres.SERVER_SETTINGS.splitlines():
        key, _, value = line.partition(" = ")
        if value and key not in ("listen_addresses", "port", "unix_socket_directories"):
            flags += ["-c", f"{key}={value.strip(chr(39))}"]
    return flags


def _stub(plan: Plan, cluster: Cluster) -> list[dict]:
    stub = _container("stub", cluster.images["stub"], cluster, "stub", [
        {"name": "SERVER_ADDRESS", "value": "0.0.0.0"}, {"name": "SERVER_PORT", "value": str(STUB_PORT)},
        {"name": "STUB_DELAY_MS", "value": str(plan.stub_delay_ms)},
        {"name": "STUB_JITTER_MS", "value": str(plan.stub_jitter_ms)}])
    stub["command"] = ["java", *services.STUB_JVM_OPTS, "-jar", "/app/stub.jar"]
    stub["ports"] = [{"name": "http", "containerPort": STUB_PORT}]
    stub["readinessProbe"] = _http_probe("/actuator/health", "http")
    return [_service_of("stub", STUB_SERVICE, cluster, [{"name": "http", "port": STUB_PORT}]),
            _deployment(STUB_SERVICE, "stub", cluster, _pod("stub", STUB_SERVICE, cluster, [stub]))]


def _load_config(cluster: Cluster) -> list[dict]:
    scripts = {name: (LOAD / name).read_text() for name in ("orders.js", "phases.js")}
    return [_config_map(cluster, SCRIPTS, scripts),
            _config_map(cluster, "vtlab-jfr", {"pinning.jfc": (LOAD / "pinning.jfc").read_text()})]


# --- a row ------------------------------------------------------------------------------------------------

def _service(plan: Plan, row: Row, index: int, cluster: Cluster) -> list[dict]:
    name = service_name(index)
    config = servicejvm.app_config(row, plan.peak_users(row), plan.downstream_http)
    db_url = cluster.db_url or f"jdbc:postgresql://{DB_SERVICE}:{PG_PORT}/{postgres.DB_NAME}"
    env = [{"name": key, "value": value} for key, value in config.env().items()] + [
        {"name": "DB_URL", "value": db_url}, {"name": "DB_USER", "value": postgres.DB_USER},
        {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": SECRET, "key": "password"}}},
        {"name": "STUB_URL", "value": f"http://{STUB_SERVICE}:{STUB_PORT}"},
        # a pod's address is its own: the service and its actuator listen on it, the actuator on a port apart
        {"name": "SERVER_ADDRESS", "value": "0.0.0.0"}, {"name": "SERVER_PORT", "value": str(APP_PORT)},
        {"name": "MANAGEMENT_PORT", "value": str(MANAGEMENT_PORT)}]
    app = _container("service", cluster.images["service"], cluster, "service", env)
    # the row's heap and the JVM's own memory beside it (stacks, metaspace, JIT, direct buffers): never below it, or
    # the kubelet kills the pod (a dead tier) where the JVM would have said out of memory
    needed = config.heap_mb + SERVICE_NATIVE_MB
    if _mebibytes(app["resources"]["limits"]["memory"]) < needed:
        for bound in ("requests", "limits"):
            app["resources"][bound]["memory"] = f"{needed}Mi"
    app["command"] = ["java", *config.jvm_flags(), *row_options(row),
                      f"-XX:StartFlightRecording=filename=/jfr/{dimensions.slug(row)}.jfr,"
                      "settings=/jfc/pinning.jfc,dumponexit=true",
                      "-XX:FlightRecorderOptions=repository=/jfr/repository", "-jar", "/app/app.jar"]
    app["ports"] = [{"name": "http", "containerPort": APP_PORT},
                    {"name": "management", "containerPort": MANAGEMENT_PORT}]
    app["readinessProbe"] = _http_probe("/actuator/health", "management")
    app["volumeMounts"] = [{"name": "jfr", "mountPath": "/jfr"}, {"name": "jfc", "mountPath": "/jfc"}]
    pod = _pod("service", name, cluster, [app], [{"name": "jfr", "emptyDir": {}},
                                                 {"name": "jfc", "configMap": {"name": "vtlab-jfr"}}])
    pod["spec"]["terminationGracePeriodSeconds"] = 60  # JFR writes its recording on SIGTERM
    service = _service_of("service", name, cluster, [{"name": "http", "port": APP_PORT},
                                                     {"name": "management", "port": MANAGEMENT_PORT}])
    deployment = _deployment(name, "service", cluster, pod)
    for document in (service, deployment):
        document["metadata"]["annotations"] = {ROW_ANNOTATION: dimensions.slug(row)}
    return [service, deployment]


def load_spec(plan: Plan, row: Row, index: int) -> load.LoadSpec:
    """The row's load as a local run gives it, against the row's service in the cluster and the seeded database.
    Its runners keep loading a kubelet refresh past the hold: a runner's CPU is observed only while its pod runs,
    and the hold's end has to lie between two observations (kubeletstats)."""
    cooldown_s = max(plan.cooldown_s, kubeletstats.REFRESH_S + 5)
    return load.LoadSpec(f"http://{service_name(index)}:{APP_PORT}", row.load_model, plan.users(row),
                         row.target_rps, plan.ramp_for(row, False), loop.warmup_for(plan, index), plan.hold_s,
                         postgres.SEED_ORDERS, cooldown_s, row.workload, row.sleep_ms, row.cpu_work,
                         postgres.SEED_CUSTOMERS, plan.shape(row))


def _testrun(plan: Plan, row: Row, index: int, cluster: Cluster) -> dict:
    spec = load_spec(plan, row, index)
    env = [{"name": key, "value": value} for key, value in load.script_env(spec, "stdout").items()]
    runner = _pod_spec_fields("load", cluster)
    runner.update(image=cluster.images["k6"], env=env, resources=_resources(cluster, "load"),
                  metadata={"labels": _labels("load")})
    # the operator's starter (it un-pauses the runners) is load too: off the service's node like them
    starter = {**_pod_spec_fields("load", cluster), "metadata": {"labels": _labels("load")}}
    return {
        "apiVersion": "k6.io/v1alpha1", "kind": "TestRun",
        "metadata": {**_meta(testrun_name(index), cluster, "load"),
                     "annotations": {ROW_ANNOTATION: dimensions.slug(row)}},
        "spec": {
            "parallelism": plan.runners,
            "script": {"configMap": {"name": SCRIPTS, "file": "orders.js"}},
            # every request to the runner's log, for vtlab to merge across runners (series.store.merge)
            "arguments": "--out vtlab=- --no-color",
            "quiet": "true",
            # The initializer would run `k6 archive` and `k6 inspect`, which see none of the runner's environment
            # (k6 includes system variables only in `run`): the scripts' phases come from there, so it is skipped.
            "initializer": {"disabled": True},
            "runner": runner,
            "starter": starter,
        },
    }


# --- shared shapes ---------------------------------------------------------------------------------------------

def _labels(tier: str, name: str | None = None) -> dict[str, str]:
    """Every object's labels; a pod's also name what it belongs to, which its Service and controller select."""
    return {"app.kubernetes.io/part-of": "vtlab", LABEL: tier, **({NAME_LABEL: name} if name else {})}


def _meta(name: str, cluster: Cluster, tier: str) -> dict:
    return {"name": name, "namespace": cluster.namespace, "labels": _labels(tier)}


def _config_map(cluster: Cluster, name: str, data: dict[str, str]) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta(name, cluster, "config"), "data": data}


def _service_of(tier: str, name: str, cluster: Cluster, ports: list[dict], headless: bool = False) -> dict:
    spec = {"selector": _labels(tier, name), "ports": [{**port, "targetPort": port["name"]} for port in ports]}
    if headless:  # a StatefulSet's own: its name resolves to the pod itself
        spec["clusterIP"] = "None"
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta(name, cluster, tier), "spec": spec}


def _deployment(name: str, tier: str, cluster: Cluster, pod: dict) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _meta(name, cluster, tier),
            "spec": {"replicas": 1, "selector": {"matchLabels": _labels(tier, name)}, "template": pod}}


def _container(name: str, image: str, cluster: Cluster, tier: str, env: list[dict]) -> dict:
    return {"name": name, "image": image, "env": env, "resources": _resources(cluster, tier)}


def _mebibytes(quantity: str) -> float:
    """A Kubernetes memory quantity (2Gi, 1536Mi, 2G, 500M, bytes) in MiB."""
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "Ti": 1024**2, "K": 1000 / 2**20, "M": 10**6 / 2**20,
             "G": 10**9 / 2**20, "T": 10**12 / 2**20}
    for unit, mib in units.items():
        if quantity.endswith(unit):
            return float(quantity[:-len(unit)]) * mib
    return float(quantity) / 2**20


def _resources(cluster: Cluster, tier: str) -> dict:
    cpu, memory = cluster.resources[tier]
    return {"requests": {"cpu": cpu, "memory": memory}, "limits": {"cpu": cpu, "memory": memory}}


def _pod(tier: str, name: str, cluster: Cluster, containers: list[dict], volumes: list[dict] | None = None) -> dict:
    spec: dict = {**_pod_spec_fields(tier, cluster), "containers": containers}
    if volumes:
        spec["volumes"] = volumes
    return {"metadata": {"labels": _labels(tier, name)}, "spec": spec}


def _pod_spec_fields(tier: str, cluster: Cluster) -> dict:
    """Where a tier's pods may run: not on a node running another tier, and on the nodes --node-selector names."""
    others = [other for other in TIERS if other != tier]
    fields: dict = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchExpressions": [{"key": LABEL, "operator": "In", "values": others}]},
         "topologyKey": "kubernetes.io/hostname"}]}}}
    if tier in cluster.node_selectors:
        fields["nodeSelector"] = dict(cluster.node_selectors[tier])
    return fields


def _http_probe(path: str, port: str) -> dict:
    return {"httpGet": {"path": path, "port": port}, "periodSeconds": 2, "failureThreshold": 3}
