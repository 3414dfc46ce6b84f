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

from vtlab import cli, k8smanifests, k8srun, matrix, plan, results, sample, series

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


def runner_log(path: Path, counted: int | None) -> Path:
    """A k6-operator runner's log as `kubectl logs` gives it: k6's own lines among vtlab's series, then the
    summary handleSummary wrote to standard output (`counted`: its hold count; None: the runner never finished)."""
    lines = ['time="2026-11-25T10:00:00Z" level=info msg="k6 starting"',
             "# vtlab series v1 start_unix_ms=1000000", "# r,end_ms,duration_ms,status,phase,half,expected | v,...",
             "r,900.000,50,200,warmup,none,true", "r,1500.000,100,200,hold,a,true", "v,1000.000,10",
             'time="2026-11-25T10:00:02Z" level=warning msg="Request Failed"', "r,1600.000,5,0,hold,b,false"]
    if counted is not None:
        lines.append(json.dumps({"metrics": {"http_reqs{phase:hold}": {"values": {"count": counted}}}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_runners_log_becomes_its_series_part_when_its_summary_vouches_for_every_line(tmp_path):
    part = k8srun._runner_part(runner_log(tmp_path / "vtlab-load-r01-1-abcde.log", 2))
    with gzip.open(part, "rt") as handle:
        assert handle.readline().startswith("# vtlab series v1 start_unix_ms=1000000")
    k6 = series.read_k6(part)
    assert [(r.duration_ms, r.phase, r.ok) for r in k6.requests] == [
        (50.0, "warmup", True), (100.0, "hold", True), (5.0, "hold", False)] and k6.vus == [(1.0, 10)]
    with pytest.raises(RuntimeError, match="holds 2 of the 3 requests"):  # a line lost on the way
        k8srun._runner_part(runner_log(tmp_path / "lost.log", 3))
    with pytest.raises(RuntimeError, match="without k6's summary"):
        k8srun._runner_part(runner_log(tmp_path / "cut.log", None))


def test_a_cluster_rows_merged_runners_and_kubelet_readings_make_a_whole_csv_line(tmp_path):
    """What `k8s run` does after the cluster answered: the runners' parts merged, the kubelet's cumulative CPU and
    the actuator's meters over the hold, into a line the run's CSV takes."""
    the_plan = plan.build("quick", plan.Overrides(concurrency=(100,), modes=("virtual",), hold_s=10, warmup_s=2,
                                                  ramp_s=1, reps=1, conn_modes=("released",)))
    row = the_plan.rows[0]
    spec = k8smanifests.load_spec(the_plan, row, 0)
    parts = []
    for runner, start_ms in enumerate((1_000_000, 1_000_040)):
        lines = [f"r,{(spec.hold_start_s + 0.5 + i * 0.1) * 1000:.3f},{101 + runner},200,hold,"
                 f"{'a' if i < 50 else 'b'},true" for i in range(100)]
        lines += [f"v,{second * 1000:.3f},50" for second in range(1, spec.duration_s)]
        path = tmp_path / f"runner-{runner}.csv.gz"
        with gzip.open(path, "wt") as handle:
            handle.write(f"# vtlab series v1 start_unix_ms={start_ms}\n" + "\n".join(lines) + "\n")
        parts.append(path)
    merged = tmp_path / "row.k6.csv.gz"
    series.merge(parts, merged)
    requests = series.read_k6(merged)
    ticks = [(t, {"app_ticks": 40.0 * t, "pg_ticks": 5.0 * t, "stub_ticks": 3.0 * t, "load_ticks": 20.0 * t,
                  "host_busy": 50.0 * t, "host_total": 400.0 * t, "host_irq": 0.0, "harness_ticks": 0.0,
                  "rss_kb": 300_000.0}) for t in range(0, spec.duration_s + 5, 2)]
    meters = [(t, {"requests_total": 100.0 * t, "hikari_active": 3.0, "hikari_pending": 0.0, "jvm_threads": 40.0})
              for t in range(0, spec.duration_s + 5, 2)]
    drive = k8srun.drive_of(requests, 0, sample.Series(ticks), sample.Series(meters), spec)
    values = matrix.row_values(row, the_plan, spec, drive, {"availableProcessors": 2, "jdkVersion": "25"}, {}, False,
                               "vtlab/k6:1", "kubernetes lab")
    assert values["http_reqs"] == 200 and values["p50_ms"] == 101.5 and values["max_ms"] == 102.0
    assert values["app_cpu_pct"] == pytest.approx(40.0) and values["load_cpu_pct"] == pytest.approx(20.0)
    assert values["foreign_cpu_pct"] == pytest.approx((50 - 40) / 400 * 100)  # the service's node beside it
    results.CsvWriter(tmp_path / "matrix.csv").append(values)
    assert len(results.read_rows(tmp_path / "matrix.csv")) == 1
