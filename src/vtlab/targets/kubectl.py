"""kubectl, the one way vtlab talks to a cluster: every call with its context and namespace, a time limit, and a
failure as a RuntimeError naming the call."""

from __future__ import annotations

import dataclasses
import json
import subprocess

import yaml

READY_TIMEOUT_S = 600


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
            raise RuntimeError(f"kubectl {' '.join(args[:3])} failed: {last_line(done.stderr)}")
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

    def rollout(self, what: str) -> None:
        self.run("rollout", "status", what, f"--timeout={READY_TIMEOUT_S}s", timeout=READY_TIMEOUT_S + 30)


def forbidden(done: subprocess.CompletedProcess) -> bool:
    return "forbidden" in done.stderr.lower()


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"
