"""A Kubernetes cluster with the k6-operator, as `kubectl` shows it to `vtlab k8s run`, simulated on this machine
(it has no cluster): run as `kubectl --context C --namespace N VERB …`, it keeps the applied objects in a folder
(FAKE_CLUSTER_DIR) and answers every call vtlab makes the way the API server, the kubelet, the operator and a
runner would, with numbers a test can check against:

- each row's service answers its runtime-info from the environment its Deployment was applied with, and its
  meters count SERVICE_RPS successful requests a second since it started;
- a TestRun runs RAMP_S + WARMUP_S + HOLD_S + COOLDOWN_S seconds of wall time from when it was applied; each of its
  `parallelism` runners logs vtlab's series (RUNNER_RPS requests a second, each taking 101 + its index ms, tagged
  with the phase it started in, on the runner's own clock) and then k6's summary of it;
- the kubelet refreshes a pod's cumulative CPU only every KUBELET_REFRESH_S, stamped with that moment, each tier
  using CORES of a core and the service's node NODE_OVERHEAD more besides.

What it cannot stand for is the real cluster's behaviour; what it tests is everything vtlab does with the answers.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import time
from pathlib import Path

import yaml

STATE = Path(os.environ["FAKE_CLUSTER_DIR"])
SERVICE_RPS, RUNNER_RPS, KUBELET_REFRESH_S, NODE_OVERHEAD = 100.0, 50.0, 1.0, 0.1
CORES = {"service": 0.4, "postgres": 0.05, "stub": 0.03, "load": 0.1}
NODES = {"service": "node-a", "postgres": "node-b", "stub": "node-c", "load": "node-d"}
TIER = "vtlab.dev/tier"
KINDS = {"deployment": "Deployment", "statefulset": "StatefulSet"}  # as kubectl names them, as the objects are


def objects() -> dict[str, dict]:
    path = STATE / "objects.json"
    return json.loads(path.read_text()) if path.exists() else {}


def save(found: dict[str, dict]) -> None:
    (STATE / "objects.json").write_text(json.dumps(found))


def answer(document: object, code: int = 0) -> None:
    print(json.dumps(document) if not isinstance(document, str) else document)
    sys.exit(code)


def refuse(message: str, code: int = 1) -> None:
    print(f"Error from server (NotFound): {message}", file=sys.stderr)
    sys.exit(code)


def env_of(document: dict) -> dict[str, str]:
    containers = document["spec"]["template"]["spec"]["containers"]
    return {e["name"]: e.get("value", "") for e in containers[0]["env"]}


def testrun_env(testrun: dict) -> dict[str, str]:
    return {e["name"]: e["value"] for e in testrun["spec"]["runner"]["env"]}


def duration_s(testrun: dict) -> float:
    env = testrun_env(testrun)
    return sum(float(env[key]) for key in ("RAMP_S", "WARMUP_S", "HOLD_S", "COOLDOWN_S"))


def pod(name: str, tier: str, labels: dict, started: float, finished: float | None = None) -> dict:
    done = finished is not None and time.time() >= finished
    return {"metadata": {"name": name, "labels": {**labels, TIER: tier},
                         "annotations": {"started": started, "finished": finished}},
            "spec": {"nodeName": NODES[tier]},
            "status": {"phase": "Succeeded" if done else "Running",
                       "containerStatuses": [{"state": {"terminated": {"exitCode": 0}} if done else {"running": {}}}]}}


def pods() -> list[dict]:
    found = []
    for key, document in objects().items():
        kind, name = key.split("/")
        if kind == "Deployment":
            tier = document["metadata"]["labels"][TIER]
            found.append(pod(f"{name}-5d8f-abcde", tier, document["spec"]["template"]["metadata"]["labels"],
                             document["applied"]))
        elif kind == "StatefulSet":
            found.append(pod(f"{name}-0", "postgres", document["spec"]["template"]["metadata"]["labels"],
                             document["applied"]))
        elif kind == "TestRun":
            labels = {**document["spec"]["runner"]["metadata"]["labels"], "app": "k6", "k6_cr": name,
                      "runner": "true"}
            end = document["applied"] + duration_s(document)
            found += [pod(f"{name}-{i}-x{i}yz", "load", labels, document["applied"], end)
                      for i in range(1, document["spec"]["parallelism"] + 1)]
            # the operator's starter: labelled like the runners but for "runner", done in a second and a half
            starter = {**document["spec"]["starter"]["metadata"]["labels"], "app": "k6", "k6_cr": name}
            found.append(pod(f"{name}-starter-abcde", "load", starter, document["applied"],
                             document["applied"] + 1.5))
    return found


def selected(selector: str) -> list[dict]:
    wanted = dict(part.split("=", 1) for part in selector.split(","))
    return [p for p in pods() if all(p["metadata"]["labels"].get(k) == v for k, v in wanted.items())]


def rfc3339(at: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at)) + f".{int(at % 1 * 1e9):09d}Z"


def stats_summary(node: str) -> dict:
    refreshed = math.floor(time.time() / KUBELET_REFRESH_S) * KUBELET_REFRESH_S
    # a pod whose container has exited is no longer in the summary
    mine = [p for p in pods() if p["spec"]["nodeName"] == node and p["status"]["phase"] == "Running"]
    used = []
    for p in mine:
        tier = p["metadata"]["labels"][TIER]
        began = p["metadata"]["annotations"]["started"]
        used.append((p, CORES[tier] * max(0.0, refreshed - began)))
    node_cpu = sum(u for _, u in used) + NODE_OVERHEAD * refreshed
    return {"node": {"nodeName": node, "cpu": {"time": rfc3339(refreshed), "usageCoreNanoSeconds": node_cpu * 1e9}},
            "pods": [{"podRef": {"name": p["metadata"]["name"], "namespace": NAMESPACE},
                      "cpu": {"time": rfc3339(refreshed), "usageCoreNanoSeconds": int(u * 1e9)},
                      "memory": {"workingSetBytes": 600 << 20}} for p, u in used]}


def runtime_info(service: str) -> dict:
    env = env_of(objects()[f"Deployment/{service}"])
    virtual = env["VT_ENABLED"] == "true"
    return {"threadMode": "virtual" if virtual else "platform", "connMode": env["CONN_MODE"],
            "pathMode": env["PATH_MODE"], "fanOutMode": env["FANOUT_MODE"],
            "pool": {"maximumPoolSize": int(env["DB_POOL_MAX"]), "implementation": "HikariCP", "version": "7.1.0"},
            "context": {"mode": env["CONTEXT_MODE"], "kilobytes": int(env["CONTEXT_KB"])},
            "offload": {"executor": env["OFFLOAD_EXECUTOR"], "poolSize": int(env["OFFLOAD_POOL"])},
            "server": {"name": env["SERVER"], "maxThreads": -1 if virtual else int(env["TOMCAT_MAX_THREADS"])},
            "tomcat": {"maxThreads": -1 if virtual else int(env["TOMCAT_MAX_THREADS"]),
                       "maxConnections": int(env["TOMCAT_MAX_CONNECTIONS"]),
                       "acceptCount": int(env["TOMCAT_ACCEPT_COUNT"])},
            "downstream": {"httpVersion": env["DOWNSTREAM_HTTP"], "httpClient": env["HTTP_CLIENT"],
                           "pool": {"maxPerRoute": int(env["CLIENT_POOL"]) or -1, "maxPending": -1}},
            "availableProcessors": 2, "jdkVersion": "25.0.1", "springBootVersion": "4.1.1"}


def prometheus(service: str) -> str:
    up = time.time() - objects()[f"Deployment/{service}"]["applied"]
    served = SERVICE_RPS * up
    return "\n".join([
        f'http_server_requests_seconds_count{{outcome="SUCCESS",uri="/api/order-summary/{{id}}"}} {served}',
        'hikaricp_connections_active{pool="vtlab"} 2', 'hikaricp_connections_pending{pool="vtlab"} 0',
        'hikaricp_connections_max{pool="vtlab"} 50', f'hikaricp_connections_acquire_seconds_count {served}',
        f"hikaricp_connections_acquire_seconds_sum {served * 1e-5}",
        f"hikaricp_connections_usage_seconds_sum {served * 2e-3}", "hikaricp_connections_timeout_total 0",
        "jvm_threads_live_threads 30", "jvm_threads_virtual_live_threads 40",
        "tomcat_connections_current_connections 40", "jvm_gc_pause_seconds_count 1", "jvm_gc_pause_seconds_sum 0.01",
        'jvm_memory_used_bytes{area="heap"} 1.0E8', ""])


def runner_log(testrun: dict, index: int) -> str:
    env = testrun_env(testrun)
    hold_start = float(env["RAMP_S"]) + float(env["WARMUP_S"])
    hold_end = hold_start + float(env["HOLD_S"])
    start_ms = int(testrun["applied"] * 1000) + 7 * index  # the runners' clocks start a few ms apart
    lines = [f"# vtlab series v1 start_unix_ms={start_ms}",
             "# r,end_ms,duration_ms,status,phase,half,expected | v,t_ms,vus | d,t_ms,scenario,count",
             'time="2026-11-25T10:00:00Z" level=info msg="a line of k6 own, not a request"']
    counted = 0
    for n in range(int(duration_s(testrun) * RUNNER_RPS)):
        began = n / RUNNER_RPS
        phase, half = (("warmup", "none") if began < hold_start else ("hold", "a")
                       if began < (hold_start + hold_end) / 2 else ("hold", "b") if began < hold_end
                       else ("cooldown", "none"))
        counted += phase == "hold"
        took = 101 + index
        lines.append(f"r,{began * 1000 + took:.3f},{took},200,{phase},{half},true")
        if n % int(RUNNER_RPS) == 0:
            lines.append(f"v,{began * 1000:.3f},{int(env['VUS']) // testrun['spec']['parallelism']}")
    lines.append(json.dumps({"metrics": {"http_reqs{phase:hold}": {"values": {"count": counted}}}}))
    return "\n".join(lines) + "\n"


def apply(stream: str) -> None:
    found = objects()
    for document in yaml.safe_load_all(stream):
        key = f"{document['kind']}/{document['metadata']['name']}"
        document["applied"] = found.get(key, {}).get("applied", time.time())
        found[key] = document
    save(found)


def delete(stream: str) -> None:
    found = objects()
    for document in yaml.safe_load_all(stream):
        found.pop(f"{document['kind']}/{document['metadata']['name']}", None)
    save(found)


def get(args: list[str]) -> None:
    if args[0] == "--raw":
        path = args[1]
        if path == "/version":
            answer({"gitVersion": "v1.34.0"})
        if path.endswith("/proxy/stats/summary"):
            answer(stats_summary(path.split("/")[4]))
        service_port = path.split("/services/")[1].split("/proxy")[0]
        service, port = service_port.split(":")
        if f"Deployment/{service}" not in objects():
            refuse(f'services "{service}" not found')
        answer(runtime_info(service) if port == "http" else prometheus(service))
    kind, rest = args[0], args[1:]
    if kind == "crd":
        answer({"spec": {"versions": [{"name": "v1alpha1"}]}})
    if kind == "nodes":
        answer({"items": [{"metadata": {"name": n, "labels": {}}, "spec": {},
                           "status": {"capacity": {"cpu": "4", "memory": "16Gi"}}} for n in NODES.values()]})
    if kind == "node":
        answer({"status": {"capacity": {"cpu": "4"}}})
    if kind == "secret":
        answer({}) if f"Secret/{rest[0]}" in objects() else refuse(f'secrets "{rest[0]}" not found')
    if kind == "pods":
        answer({"items": selected(rest[rest.index("-l") + 1])})
    if kind == "job":
        if f"Job/{rest[0]}" not in objects():
            refuse(f'jobs.batch "{rest[0]}" not found')
        answer({"status": {"conditions": [{"type": "Complete", "status": "True"}]}})
    if kind == "testrun":
        testrun = objects().get(f"TestRun/{rest[0]}")
        if testrun is None:
            refuse(f'testruns.k6.io "{rest[0]}" not found')
        over = time.time() >= testrun["applied"] + duration_s(testrun) + 0.5
        answer({"status": {"stage": "finished" if over else "started"}})
    refuse(f"the fake cluster has no answer for get {' '.join(args)}")


def main(argv: list[str]) -> None:
    global NAMESPACE
    NAMESPACE = argv[argv.index("--namespace") + 1]
    args = [a for i, a in enumerate(argv) if a not in ("--context", "--namespace")
            and argv[i - 1] not in ("--context", "--namespace") and not a.startswith("--request-timeout")]
    verb, rest = args[0], args[1:]
    with open(STATE / "calls.log", "a") as log:
        log.write(" ".join(args) + "\n")
    if verb == "apply":
        apply(sys.stdin.read())
    elif verb == "delete":
        delete(sys.stdin.read())
    elif verb == "get":
        get([a for a in rest if a not in ("-o", "json")])
    elif verb == "logs":  # -f: the log as it grows, ending with the pod
        name = rest[-1]
        testrun_name, index = name.rsplit("-", 2)[0], int(name.rsplit("-", 2)[1])
        testrun = objects()[f"TestRun/{testrun_name}"]
        time.sleep(max(0.0, testrun["applied"] + duration_s(testrun) - time.time()))
        sys.stdout.write(runner_log(testrun, index))
    elif verb in ("rollout", "exec") and "/" in rest[verb == "rollout"]:  # rollout status KIND/NAME, exec KIND/NAME
        kind, name = rest[verb == "rollout"].split("/")
        if f"{KINDS[kind]}/{name}" not in objects():
            refuse(f'{kind}s.apps "{name}" not found')
        if "psql" in rest:
            answer("1000000")
    elif verb == "cp":  # the service's JFR recording: a real one the test made
        shutil.copy(os.environ["FAKE_CLUSTER_JFR"], rest[-1])
    elif verb != "exec":  # jcmd in the service's pod
        refuse(f"the fake cluster has no answer for {verb}")


NAMESPACE = ""

if __name__ == "__main__":
    main(sys.argv[1:])
