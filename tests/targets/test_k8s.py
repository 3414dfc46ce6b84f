"""Kubernetes, without a cluster: the rendered manifests validated offline against the Kubernetes schemas of a pinned
version (kubernetes-validate bundles them) and the k6-operator TestRun schema (reference/), the committed example
kept current, and `vtlab k8s run` refusing clearly when kubectl, the cluster or the operator is missing."""

from __future__ import annotations

import copy
import csv
import datetime
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

from vtlab.cli import k8sflags
from vtlab.cli.flags import plan_of
from vtlab.cli.main import parser
from vtlab.targets import k8smanifests, k8srow, k8srun, kubeletstats
from vtlab.measure import csvrow, jfr, loop
from vtlab.measure.drive import of_requests
from vtlab.plan import planner
from vtlab.results import table
from vtlab.series import store, windows

REPO = Path(__file__).resolve().parents[2]
KUBERNETES = "1.34"  # the Kubernetes version the manifests are validated against
TESTRUN_SCHEMA = json.loads((REPO / "reference" / "k6-operator-testrun.schema.json").read_text())
EXAMPLE = REPO / "examples" / "kubernetes" / "quick"


def validate(document: dict) -> None:
    if document["kind"] == "TestRun":
        jsonschema.validate(document, TESTRUN_SCHEMA)
    else:
        kubernetes_validate.validate(document, KUBERNETES, strict=True)


def rendered(*flags: str) -> dict[str, list[dict]]:
    args = parser().parse_args(["k8s", "render", "--out", "unused", *flags])
    return k8smanifests.render(plan_of(args), k8sflags.cluster(args))


def documents(files: dict[str, list[dict]]) -> list[dict]:
    return [document for docs in files.values() for document in docs]


def test_every_rendered_manifest_is_valid_for_kubernetes_and_the_k6_operator():
    files = rendered("--runners", "4", "--node-selector", "service=vtlab.dev/pool=app", "--cpu", "service=4",
                     "--memory", "service=4Gi", "--namespace", "bench")
    kinds = [document["kind"] for document in documents(files)]
    rows = planner.build("quick", planner.Overrides(jvm_per_row=True)).rows  # a pod per row
    assert kinds.count("TestRun") == kinds.count("Deployment") - 1 == len(rows)
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
    rows = planner.build("quick", planner.Overrides(jvm_per_row=True)).rows  # a pod per row
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
        assert (fresh / name).read_text() == (EXAMPLE / name).read_text(), \
            f"{name}: render it again (docs/kubernetes.md)"
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


@pytest.mark.parametrize(("code", "reason", "said"), [
    (404, "NotFound", "the k6-operator is not installed"),
    (403, "Forbidden", "may not read CustomResourceDefinitions"),
])
def test_k8s_run_names_a_missing_operator_or_a_user_who_may_not_look(tmp_path, code, reason, said):
    """A reachable API server without the TestRun CRD, or one that will not show it to this user: a local HTTP
    server answering kubectl as one would."""
    import http.server
    import threading

    class Api(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            found = self.path.startswith("/version")
            body = json.dumps({"gitVersion": "v1.34.0"} if found else {
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": reason,
                "code": code, "details": {"name": "testruns.k6.io", "group": "apiextensions.k8s.io",
                                          "kind": "customresourcedefinitions"},
                "message": 'customresourcedefinitions.apiextensions.k8s.io "testruns.k6.io" ' + (
                    "not found" if code == 404 else 'is forbidden: User "lab" cannot get resource '
                    '"customresourcedefinitions" in API group "apiextensions.k8s.io" at the cluster scope')}).encode()
            self.send_response(200 if found else code)
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
    assert said in result.stderr and "testruns.k6.io" in result.stderr, result.stderr
    assert not (tmp_path / "run").exists()


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
    part = k8srow.runner_part(runner_log(tmp_path / "vtlab-load-r01-1-abcde.log", 2))
    with gzip.open(part, "rt") as handle:
        assert handle.readline().startswith("# vtlab series v1 start_unix_ms=1000000")
    k6 = store.read_k6(part)
    assert [(r.duration_ms, r.phase, r.ok) for r in k6.requests] == [
        (50.0, "warmup", True), (100.0, "hold", True), (5.0, "hold", False)] and k6.vus == [(1.0, 10)]
    with pytest.raises(RuntimeError, match="holds 2 of the 3 requests"):  # a line lost on the way
        k8srow.runner_part(runner_log(tmp_path / "lost.log", 3))
    with pytest.raises(RuntimeError, match="without k6's summary"):
        k8srow.runner_part(runner_log(tmp_path / "cut.log", None))


def test_a_cluster_rows_merged_runners_and_kubelet_readings_make_a_whole_csv_line(tmp_path):
    """What `k8s run` does after the cluster answered: the runners' parts merged, the kubelet's cumulative CPU and
    the actuator's meters over the hold, into a line the run's CSV takes."""
    the_plan = planner.build("quick", planner.Overrides(concurrency=(100,), modes=("virtual",), hold_s=10,
                                                            warmup_s=2, ramp_s=1, reps=1, conn_modes=("released",)))
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
    store.merge(parts, merged)
    requests = store.read_k6(merged)
    ticks = [(t, {"app_ticks": 40.0 * t, "pg_ticks": 5.0 * t, "stub_ticks": 3.0 * t, "load_ticks": 20.0 * t,
                  "host_busy": 50.0 * t, "host_total": 400.0 * t, "host_irq": 0.0, "harness_ticks": 0.0,
                  "rss_kb": 300_000.0}) for t in range(0, spec.duration_s + 5, 2)]
    meters = [(t, {"requests_total": 100.0 * t, "hikari_active": 3.0, "hikari_pending": 0.0, "jvm_threads": 40.0})
              for t in range(0, spec.duration_s + 5, 2)]
    drive = of_requests(requests, 0, windows.Series(ticks), windows.Series(meters), spec,
                        kubeletstats.CONSTANTS.k6_start_slack_s)
    values = csvrow.row_values(row, the_plan, spec, drive, {"availableProcessors": 2, "jdkVersion": "25"},
                               jfr.Pinned({}, ()), False,
                               "vtlab/k6:1", "kubernetes lab")
    assert values["http_reqs"] == 200 and values["p50_ms"] == 101.5 and values["max_ms"] == 102.0
    assert values["app_cpu_pct"] == pytest.approx(40.0) and values["load_cpu_pct"] == pytest.approx(20.0)
    assert values["foreign_cpu_pct"] == pytest.approx((50 - 40) / 400 * 100)  # the service's node beside it
    table.CsvWriter(tmp_path / "matrix.csv").append(values)
    assert len(table.read_rows(tmp_path / "matrix.csv")) == 1


def kubelet_summary(node: str, pods: dict[str, tuple[str, float]], node_cores_used: float, refreshed: float) -> dict:
    """A node's /stats/summary as the kubelet gives it: every counter as of its last refresh (`refreshed`, Unix s),
    stamped with that moment; `pods`: name -> (namespace, cores it uses all the time)."""
    stamp = datetime.datetime.fromtimestamp(refreshed, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f") + "123Z"
    return {"node": {"nodeName": node, "cpu": {"time": stamp, "usageCoreNanoSeconds": int(node_cores_used * refreshed
                                                                                          * 1e9)}},
            "pods": [{"podRef": {"name": name, "namespace": namespace},
                      "cpu": {"time": stamp, "usageCoreNanoSeconds": int(cores * refreshed * 1e9)},
                      "memory": {"workingSetBytes": 512 << 20}} for name, (namespace, cores) in pods.items()]}


def test_the_kubelets_cpu_counters_refreshed_every_10_s_give_each_tiers_true_mean_and_peak():
    """cAdvisor refreshes a pod's CPU every ~10 s; read every 2 s, a tier's counter stands still four reads in five
    and then jumps. Resampled on the kubelet's own times, the hold shows the tiers' real, steady use."""
    origin = 1_800_000_000.0  # the row's clock starts here (Unix s); the kubelet refreshes at origin + 3.7 + 10 k
    tiers = {"svc-1": "app", "pg-0": "pg", "stub-1": "stub", "load-1": "load", "load-2": "load"}
    cores = {"svc-1": 0.4, "pg-0": 0.05, "stub-1": 0.03, "load-1": 0.1, "load-2": 0.1}
    layout = {"node-a": ["svc-1"], "node-b": ["pg-0"], "node-c": ["stub-1"], "node-d": ["load-1", "load-2"]}
    observed = []
    for t in range(0, 80, 2):
        refreshed = origin + 3.7 + 10 * ((t - 3.7) // 10)
        reading: dict[str, float] = {}
        for node, names in layout.items():
            pods = {name: ("vtlab", cores[name]) for name in names}
            pods["other-tenant"] = ("kube-system", 0.5)  # not the row's: never counted as a tier
            used = sum(cores[name] for name in names) + 0.1  # the node's own daemons beside the pods
            reading.update(kubeletstats.observe(kubelet_summary(node, pods, used, refreshed), "vtlab", tiers,
                                                "node-a", 4))
        observed.append((float(t), reading))
    stale = windows.Series([(t, {"app_ticks": r["app@svc-1"]}) for t, r in observed])  # stamped when read
    assert windows.cpu_percent(stale, "app", 20, 60)[1] > 150  # the kubelet's bookkeeping, not the service

    series_ = kubeletstats.resample(windows.Series(observed), origin)
    for tier, share in (("app", 40), ("pg", 5), ("stub", 3), ("load", 20)):
        mean, peak = windows.cpu_percent(series_, tier, 20, 60)
        assert mean == pytest.approx(share, rel=1e-3) and peak == pytest.approx(share, rel=1e-3), tier
    assert windows.host_percent(series_, 20, 60) == pytest.approx((0.4 + 0.1) / 4 * 100, rel=1e-3)
    assert windows.foreign_percent(series_, ["app"], 20, 60) == pytest.approx(0.1 / 4 * 100, rel=1e-2)
    assert windows.maximum(series_, "rss_kb", 20, 60) == 512 * 1024
    # after the kubelet's last observation (73.7 s) every tier is unknown, never idle: no sample at 74–78 s
    assert [t for t, _ in series_.points][-1] == 72 and "app_ticks" in series_.points[-1][1]


def test_a_runner_that_has_gone_leaves_its_tier_unknown_from_its_last_observation():
    points = [(t, {"load@r-1": 100.0 * t, "load@r-1@at": 1000.0 + t,
                   **({"load@r-2": 100.0 * t, "load@r-2@at": 1000.0 + t} if t < 20 else {})}) for t in range(0, 40, 10)]
    series_ = kubeletstats.resample(windows.Series(points), 1000.0)
    assert [t for t, _ in series_.points] == [0, 10]  # from 20 s on the tier, the only one, is unknown: no sample
    assert series_.points[1][1]["load_ticks"] == 2000.0


def test_k8s_run_resumes_only_a_cluster_run_of_the_same_images_runners_and_resources(tmp_path):
    env = {**os.environ, "KUBECONFIG": str(tmp_path / "no-such-kubeconfig")}
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "matrix.csv").write_text("")
    args = parser().parse_args(["k8s", "run", "--context", "lab", "--runners", "2"])
    recorded = k8srun.target(plan_of(args), k8sflags.cluster(args))

    def resume(*flags: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(REPO / "vtlab"), "k8s", "run", "--context", "lab", "--resume", "--out",
                               str(run_dir), *flags], env=env, capture_output=True, text=True, timeout=120)

    for target in (None, {**recorded, "kubernetes": {**recorded["kubernetes"], "runners": 1}}):  # local; 1 runner
        table.write_metadata(run_dir, {"target": target} if target else {})
        result = resume("--runners", "2")
        assert result.returncode == 2 and "--resume" in result.stderr and "not measured on a cluster with these" \
            in result.stderr, result.stderr
    table.write_metadata(run_dir, {"target": recorded})
    result = resume("--runners", "2")  # the same: on to the cluster, which is not there
    assert result.returncode == 3 and "cannot be reached" in result.stderr, result.stderr


@pytest.fixture
def simulated_cluster(tmp_path, monkeypatch):
    """kubectl on PATH answering as a cluster with the k6-operator would (tests/fakecluster.py), and a real JFR
    recording for the service's pod to give back."""
    from vtlab.rig import prereqs

    state, bin_dir = tmp_path / "cluster", tmp_path / "bin"
    state.mkdir()
    bin_dir.mkdir()
    kubectl = bin_dir / "kubectl"
    kubectl.write_text(f"#!/bin/sh\nexec {sys.executable} {REPO / 'tests' / 'fakecluster.py'} \"$@\"\n")
    kubectl.chmod(0o755)
    java = prereqs.find_jdk()
    program = tmp_path / "Idle.java"
    program.write_text("class Idle { public static void main(String[] args) {} }\n")
    recording = tmp_path / "service.jfr"
    subprocess.run([str(java.java), f"-XX:StartFlightRecording=filename={recording},settings="
                    f"{REPO / 'load' / 'pinning.jfc'},dumponexit=true", str(program)], check=True, timeout=120,
                   capture_output=True)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLUSTER_DIR", str(state))
    monkeypatch.setenv("FAKE_CLUSTER_JFR", str(recording))
    # the simulated kubelet refreshes every second, and the first row needs no 30 s more: the JIT is not real here
    monkeypatch.setattr(kubeletstats, "REFRESH_S", 2)
    monkeypatch.setattr(loop, "FIRST_ROW_EXTRA_WARMUP_S", 0)
    return state, java


def test_k8s_run_on_a_simulated_cluster_measures_each_row_through_to_a_valid_report(simulated_cluster, tmp_path):
    """Everything `vtlab k8s run` does with what a cluster answers, on a simulated one: the preflight, the seed, a
    row's service checked against the row, its TestRun's two runners followed and merged, the kubelet's CPU and
    the actuator's meters over the hold, the JFR recording read back, every object deleted, the analysis and
    report of a local run. The simulated numbers are known: each runner 50 req/s at 102 and 103 ms; the service
    0.4 of a core, each runner 0.1, its node's own daemons 0.1 of its 4 cores."""
    from vtlab.rig import prereqs
    from vtlab.report import render

    state, java = simulated_cluster
    the_plan = planner.build("quick", planner.Overrides(concurrency=(20,), modes=("platform", "virtual"), hold_s=10,
                                                  warmup_s=2, ramp_s=1, reps=1, conn_modes=("released",),
                                                  runners=2))
    cluster = k8smanifests.Cluster()
    kubectl, facts = k8srun.preflight("lab", cluster)
    run_dir = tmp_path / "run"
    outcome = loop.run(k8srun.ClusterRun(kubectl, facts, cluster, prereqs.find_jdk().jfr), the_plan, run_dir)
    assert outcome.failed_rows == 0

    rows = table.read_rows(run_dir / "matrix.csv")
    assert [row["thread_mode"] for row in rows] == ["platform", "virtual"]
    for row in rows:
        assert int(row["http_reqs"]) == 2 * 50 * 10, row  # both runners' hold, every request of it
        assert float(row["throughput_rps"]) == pytest.approx(100, rel=0.02)
        assert 102 <= float(row["p50_ms"]) <= 103 and float(row["max_ms"]) == 103
        assert float(row["app_cpu_pct"]) == pytest.approx(40, rel=0.05)
        assert float(row["load_cpu_pct"]) == pytest.approx(20, rel=0.05)
        assert float(row["app_cpu_pct_max"]) < 1.2 * float(row["app_cpu_pct"])  # not the kubelet's bookkeeping
        assert float(row["foreign_cpu_pct"]) == pytest.approx(0.1 / 4 * 100, rel=0.2)
        assert int(row["pinned_events"]) == 0  # the recording came back and was read
    with open(render.render(run_dir, [])["analysis"], newline="") as handle:
        verdicts = list(csv.DictReader(handle))
    # the simulated service answers in 102 ms where the plan designed a 1,000 ms downstream: the users ÷ that
    # delay (20 req/s) is a prediction both rows passed, which is said (a note: the rows stay valid)
    assert [(v["valid"], v["flags"]) for v in verdicts] == [("true", "ceiling-exceeded:concurrency")] * 2, verdicts

    # every row's objects and the run's tiers are gone; the namespace and the database's Secret stay (--resume)
    left = json.loads((state / "objects.json").read_text())
    assert sorted(left) == ["Namespace/vtlab", "Secret/vtlab-db"]
    calls = (state / "calls.log").read_text()
    assert calls.count("logs -f vtlab-load-r02-") == 2  # each runner of the second row followed once


def test_the_kubelets_times_are_read_in_their_own_zone_whatever_this_machines():
    for zone in ("UTC", "Europe/Berlin", "America/New_York"):
        done = subprocess.run([sys.executable, "-c", "from vtlab.targets import kubeletstats as k; print(k.unix_s("
                               "'1970-01-01T00:00:01.500000000Z'), k.unix_s('1970-01-01T00:00:02Z'), "
                               "k.unix_s('1970-01-01T01:00:03.25+01:00'))"],
                              env={**os.environ, "TZ": zone, "PYTHONPATH": str(REPO / "src")},
                              capture_output=True, text=True, check=True)
        assert done.stdout.split() == ["1.5", "2.0", "3.25"], zone
    with pytest.raises(ValueError, match="without its zone"):
        kubeletstats.unix_s("1970-01-01T00:00:01.5")


def test_a_cluster_run_that_rendered_nothing_deletes_nothing():
    class Unreachable:
        def delete(self, documents):
            raise AssertionError(f"kubectl delete of {len(documents)} documents, though nothing was applied")

    k8srun.ClusterRun(Unreachable(), {}, None, Path("/nonexistent/jfr")).close()


def test_a_rows_pod_holds_its_sized_heap_and_the_jvms_memory_beside_it():
    """10,000 users get a 3,840 MB heap: the 2Gi default pod would be killed by the kubelet, not the JVM's heap end."""
    files = rendered("--conc", "100,10000", "--modes", "virtual", "--conn-mode", "released")
    services = [d["spec"]["template"]["spec"]["containers"][0] for d in documents(files)
                if d["kind"] == "Deployment" and d["metadata"]["name"].startswith("vtlab-service")]
    memory = {container["command"][1]: container["resources"]["limits"]["memory"] for container in services}
    assert memory == {"-Xmx1024m": "2Gi", "-Xmx3840m": f"{3840 + k8smanifests.SERVICE_NATIVE_MB}Mi"}
