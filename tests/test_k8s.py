"""Kubernetes, without a cluster: the rendered manifests validated offline against the Kubernetes schemas of a pinned
version (kubernetes-validate bundles them) and the k6-operator TestRun schema (reference/), the committed example
kept current, and `vtlab k8s run` refusing clearly when kubectl, the cluster or the operator is missing."""

from __future__ import annotations

import copy
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml

from vtlab import cli, k8smanifests, k8srun, plan, series

REPO = Path(__file__).resolve().parent.parent
KUBERNETES = "1.34"  # the Kubernetes version the manifests are validated against
TESTRUN_SCHEMA = json.loads((REPO / "reference" / "k6-operator-testrun.schema.json").read_text())
EXAMPLE = REPO / "examples" / "kubernetes" / "quick"


def validate(document: dict) -> None:
    if document["kind"] == "TestRun":
        jsonschema.validate(document, TESTRUN_SCHEMA)
    else:
        kubernetes_validate.validate(document, KUBERNETES, strict=True)


def rendered(*flags: str) -> dict[str, list[dict]]:
    args = cli.parser().parse_args(["k8s", "render", "--out", "unused", *flags])
    return k8smanifests.render(cli._plan(args), cli.k8sflags.cluster(args))


def documents(files: dict[str, list[dict]]) -> list[dict]:
    return [document for docs in files.values() for document in docs]


def test_every_rendered_manifest_is_valid_for_kubernetes_and_the_k6_operator():
    files = rendered("--runners", "4", "--node-selector", "service=vtlab.dev/pool=app", "--cpu", "service=4",
                     "--memory", "service=4Gi", "--namespace", "bench")
    kinds = [document["kind"] for document in documents(files)]
    assert kinds.count("TestRun") == kinds.count("Deployment") - 1 == len(plan.build("quick", plan.Overrides()).rows)
    for document in documents(files):
        validate(document)


def test_the_validators_refuse_what_kubernetes_and_the_operator_would():
    files = rendered()
    testrun = next(d for d in documents(files) if d["kind"] == "TestRun")
    deployment = next(d for d in documents(files) if d["kind"] == "Deployment")
    for broken, change in ((testrun, lambda d: d["spec"].update(quiet=True)),         # a string in the CRD
                           (testrun, lambda d: d["spec"].update(parallelism=0)),
                           (testrun, lambda d: d["spec"]["runner"].update(cpus=2)),   # no such field
                           (deployment, lambda d: d["spec"]["template"]["spec"]["containers"][0].update(cpus=2)),
                           (deployment, lambda d: d["spec"].update(replicas="one"))):
        document = copy.deepcopy(broken)
        change(document)
        with pytest.raises((jsonschema.ValidationError, kubernetes_validate.ValidationError)):
            validate(document)


def test_each_tier_has_a_known_cpu_budget_and_nodes_of_its_own_and_nothing_assumes_one_host():
    files = rendered("--runners", "3")
    text = yaml.safe_dump_all(documents(files))
    assert "127.0.0.1" not in text and "localhost" not in text
    for document in documents(files):
        if document["kind"] in ("Deployment", "StatefulSet", "Job"):
            pod = document["spec"]["template"]["spec"]
        elif document["kind"] == "TestRun":
            pod = document["spec"]["runner"]
            assert document["spec"]["parallelism"] == 3
        else:
            continue
        tier = (pod.get("metadata") or document["spec"]["template"]["metadata"])["labels"][k8smanifests.LABEL]
        others = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
        assert set(others["labelSelector"]["matchExpressions"][0]["values"]) == set(k8smanifests.TIERS) - {tier}
        for container in pod.get("containers", [pod]):
            assert container["resources"]["requests"] == container["resources"]["limits"], document["metadata"]


def test_a_rows_load_reaches_that_rows_service_with_the_rows_settings():
    files = rendered()
    rows = plan.build("quick", plan.Overrides()).rows
    for index, row in enumerate(rows):
        service, deployment, testrun = files[f"rows/{k8smanifests.row_file(index, row)}"]
        env = {e["name"]: e.get("value") for e in testrun["spec"]["runner"]["env"]}
        assert env["BASE_URL"] == f"http://{service['metadata']['name']}:{k8smanifests.APP_PORT}"
        assert env["VUS"] == str(row.concurrency) and env["SUMMARY"] == "stdout"
        app_env = {e["name"]: e.get("value") for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert app_env["VT_ENABLED"] == str(row.thread_mode == "virtual").lower()
        assert app_env["DB_POOL_MAX"] == str(row.hikari_pool) and app_env["CONN_MODE"] == row.conn_mode
        # the database's password only ever by reference to the Secret
        assert app_env["DB_PASSWORD"] is None and "--out vtlab=-" in testrun["spec"]["arguments"]


def test_the_committed_example_is_the_default_profiles_render_and_valid(tmp_path):
    fresh = tmp_path / "fresh"
    result = subprocess.run([str(REPO / "vtlab"), "k8s", "render", "--out", str(fresh)], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    names = sorted(str(p.relative_to(fresh)) for p in fresh.rglob("*.yaml"))
    assert names == sorted(str(p.relative_to(EXAMPLE)) for p in EXAMPLE.rglob("*.yaml"))
    for name in names:
        assert (fresh / name).read_text() == (EXAMPLE / name).read_text(), f"{name}: render it again (README)"
        for document in yaml.safe_load_all((EXAMPLE / name).read_text()):
            validate(document)


def test_what_a_cluster_cannot_measure_is_refused_naming_the_flag():
    for flags, named in ((["--modes", "webflux"], "--modes webflux"), (["--workload", "write"], "--workload write"),
                         (["--db-latency", "5"], "--db-latency"), (["--jdk", "21"], "--jdk 21")):
        result = subprocess.run([str(REPO / "vtlab"), "k8s", "render", "--out", "/nonexistent", *flags],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 2 and named in result.stderr, result.stderr
    result = subprocess.run([str(REPO / "vtlab"), "k8s", "render", "--out", "x", "--cpu", "app=2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "--cpu" in result.stderr and "service, postgres, stub, load" in result.stderr


def test_k8s_run_without_a_reachable_cluster_exits_3_saying_what_is_missing(tmp_path):
    # the real kubectl (the test extra installs it), with a kubeconfig that names no cluster
    env = {**os.environ, "KUBECONFIG": str(tmp_path / "no-such-kubeconfig"), "VTLAB_RESULTS": str(tmp_path)}
    result = subprocess.run([str(REPO / "vtlab"), "k8s", "run", "--context", "lab", "--out", str(tmp_path / "run")],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 3, result.stderr
    assert "--context lab: the cluster cannot be reached" in result.stderr and 'context "lab"' in result.stderr
    assert not (tmp_path / "run").exists()  # nothing started, nothing written
    # no kubectl at all: what to install
    result = subprocess.run([sys.executable, "-m", "vtlab", "k8s", "run", "--context", "lab"],
                            env={**env, "PATH": str(tmp_path)}, capture_output=True, text=True, timeout=120)
    assert result.returncode == 3 and "install it" in result.stderr and "kubectl" in result.stderr, result.stderr


def test_k8s_run_names_a_missing_operator(tmp_path):
    """A reachable API server without the TestRun CRD: a local HTTP server answering kubectl as one would."""
    import http.server
    import threading

    class Api(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            found = self.path.startswith("/version")
            body = json.dumps({"gitVersion": "v1.34.0"} if found else {
                "kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
                "message": 'customresourcedefinitions.apiextensions.k8s.io "testruns.k6.io" not found'}).encode()
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config = tmp_path / "kubeconfig"
    config.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "lab",
        "clusters": [{"name": "lab", "cluster": {"server": f"http://127.0.0.1:{server.server_port}"}}],
        "users": [{"name": "lab", "user": {}}],
        "contexts": [{"name": "lab", "context": {"cluster": "lab", "user": "lab"}}]}))
    try:
        result = subprocess.run([str(REPO / "vtlab"), "k8s", "run", "--context", "lab", "--out",
                                 str(tmp_path / "run")], env={**os.environ, "KUBECONFIG": str(config)},
                                capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
    assert result.returncode == 3, result.stderr
    assert "the k6-operator is not installed" in result.stderr and "testruns.k6.io" in result.stderr


def test_a_runners_log_becomes_its_series_part_and_its_summary(tmp_path):
    log = tmp_path / "vtlab-load-r01-1-abcde.log"
    log.write_text("\n".join([
        'time="2026-11-25T10:00:00Z" level=info msg="k6 starting"',
        "# vtlab series v1 start_unix_ms=1000000", "# r,end_ms,duration_ms,status,phase,half,expected | v,...",
        "r,1500.000,100,200,hold,a,true", "v,1000.000,10",
        'time="2026-11-25T10:00:02Z" level=warning msg="Request Failed"',
        "r,1600.000,5,0,hold,b,false", '{"metrics":{"http_reqs{phase:hold}":{"values":{"count":2}}}}', ""]))
    part = k8srun._runner_part(log, tmp_path)
    with gzip.open(part, "rt") as handle:
        assert handle.readline().startswith("# vtlab series v1 start_unix_ms=1000000")
    k6 = series.read_k6(part)
    assert [(r.duration_ms, r.ok) for r in k6.requests] == [(100.0, True), (5.0, False)] and k6.vus == [(1.0, 10)]
    summary = json.loads((tmp_path / "vtlab-load-r01-1-abcde.summary.json").read_text())
    assert summary["metrics"]["http_reqs{phase:hold}"]["values"]["count"] == 2
