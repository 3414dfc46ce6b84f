"""One row on a cluster: the row's service applied and checked against the row, its k6-operator TestRun applied,
every runner's log (vtlab's series: one line per request) followed while it runs and merged into the row's one
series (store.merge: exact counts and percentiles), the JFR recording read back. Beside the load, per-tier CPU is
read from each node's kubelet (`/stats/summary`, put on the row's clock by kubeletstats) and the service's meters
from its actuator, both through the API server."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import time
from pathlib import Path

from vtlab.core import dimensions
from vtlab.measure import csvrow, jfr, samplers
from vtlab.measure.drive import of_requests
from vtlab.core.dimensions import Row
from vtlab.plan.planner import Plan
from vtlab.rig import ownership, procs
from vtlab.series import store
from vtlab.targets import k8smanifests, kubeletstats, servicejvm
from vtlab.targets.kubectl import READY_TIMEOUT_S, Kubectl

TIER_KEYS = {"service": "app", "postgres": "pg", "stub": "stub", "load": "load"}  # the CSV's names for them


def measure(kubectl: Kubectl, plan: Plan, row: Row, index: int, documents: list[dict], run_dir: Path,
            jfr_tool: Path, k6_image: str) -> dict[str, object]:
    """The row's CSV values (`index`: its place in the plan, which names its objects)."""
    slug, name, testrun = dimensions.slug(row), k8smanifests.service_name(index), k8smanifests.testrun_name(index)
    service_documents, testrun_document = documents[:-1], documents[-1]
    kubectl.delete([testrun_document])  # a TestRun of an interrupted run would refuse the name
    kubectl.apply(service_documents)
    kubectl.rollout(f"deployment/{name}")
    info = _runtime_info(kubectl, name)
    problems = servicejvm.mismatches(info, row, plan.peak_users(row), plan.downstream_http)
    if problems:
        raise RuntimeError("the service does not run the row's configuration: " + "; ".join(problems))

    spec = k8smanifests.load_spec(plan, row, index)
    logs = run_dir / "k8s" / slug
    shutil.rmtree(logs, ignore_errors=True)  # an earlier attempt's runners are not this row's
    logs.mkdir(parents=True)
    cpu = samplers.Sampler(kubeletstats.CONSTANTS.cpu_interval_s, _cpu_reader(kubectl, name, testrun))
    meters = samplers.Sampler(kubeletstats.CONSTANTS.meter_interval_s, _meters_reader(kubectl, name))
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
    parts = [runner_part(logs / f"{pod}.log") for pod in sorted(followers)]
    if len(parts) != plan.runners:
        raise RuntimeError(f"{len(parts)} of {plan.runners} runners' series came back")
    series_dir = run_dir / "series"
    series_dir.mkdir(exist_ok=True)
    k6_series = store.k6_path(series_dir, slug)
    store.merge(parts, k6_series)
    store.write_samples(store.samples_path(series_dir, slug), cpu_series, meter_series, started_unix)
    requests = store.read_k6(k6_series, store.k6_start_unix_s(k6_series) - started_unix)
    exit_codes = _runner_exit_codes(kubectl, testrun)
    drive = of_requests(requests, max(exit_codes, key=abs) if exit_codes else -1, cpu_series, meter_series, spec,
                        kubeletstats.CONSTANTS.k6_start_slack_s)
    pinned = jfr.pinned(jfr_tool, _recording(kubectl, name, slug, run_dir))
    return csvrow.row_values(row, plan, spec, drive, info, pinned, False, k6_image, f"kubernetes {kubectl.context}")


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


def runner_part(log: Path) -> Path:
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
