"""Real network latency between tiers without `tc netem`: a Toxiproxy TCP proxy in front of a service.

One `toxiproxy-server` (built by `vtlab.rig.build.build_toxiproxy`) holds any number of proxies; each
listens on 127.0.0.1, forwards to one upstream port and delays the bytes in both directions.

What the `latency` toxic of Toxiproxy v2.5.0 does (toxics/latency.go, link.go, stream/io_chan.go):

* It works on chunks, not packets: whatever one read() from the socket returned (up to 32 KiB)
  is one chunk, stamped with the time it was read.
* Each chunk is held until `latency + j` ms after that stamp, with `j` drawn per chunk as
  `rand.Int63n(2*jitter) - jitter`: uniform over the whole milliseconds -jitter … jitter-1
  (mean -0.5 ms, not 0). jitter 0 means exactly `latency`.
* A direction of one connection is a single FIFO goroutine: chunks never overtake each other, so
  a chunk drawn short behind one drawn long leaves when the long one does. Back-to-back chunks
  therefore see more than `latency` on average when jitter > 0; a lone request sees exactly the draw.
* Only bytes are delayed. Toxiproxy accepts the client and dials the upstream at once, so the TCP
  connect costs no added latency; a protocol's own handshake (PostgreSQL's startup and SCRAM
  exchange, TLS) pays it on every round trip it makes.

`add` puts the same toxic on both streams, so one request/response round trip gains two draws:
2 × latency on average, anywhere from 2 × (latency - jitter) to 2 × (latency + jitter - 1).
"""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vtlab.rig import procs
from vtlab.core.settings import HOST

START_TIMEOUT_S = 30
API_TIMEOUT_S = 10
STREAMS = ("upstream", "downstream")  # client→service and service→client


def check_delay(latency_ms: int, jitter_ms: int) -> None:
    if latency_ms < 0:
        raise ValueError(f"latency must be 0 ms or more, got {latency_ms} ms")
    if jitter_ms < 0:
        raise ValueError(f"jitter must be 0 ms or more, got {jitter_ms} ms")
    if jitter_ms > latency_ms:
        # Toxiproxy would clamp the negative draws to no delay at all, skewing the mean upwards.
        raise ValueError(f"jitter ({jitter_ms} ms) must not exceed latency ({latency_ms} ms): "
                         "a delay cannot be negative")


@dataclass
class Toxiproxy:
    proc: subprocess.Popen
    log: Path
    api_url: str
    _forget: Callable[[], None] = field(default=lambda: None, repr=False)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def add(self, name: str, upstream_host: str, upstream_port: int, latency_ms: int, jitter_ms: int = 0) -> int:
        """A proxy to `upstream_host`:`upstream_port` delaying each direction by `latency_ms` ± `jitter_ms`
        (see the module docstring for the exact distribution); returns the port it listens on."""
        check_delay(latency_ms, jitter_ms)
        # Port 0: the kernel picks a free port at bind time and the API reports it, so there is no
        # window in which another process could take a port we picked beforehand.
        created = self._post("/proxies", {"name": name, "listen": f"{HOST}:0",
                                          "upstream": f"{upstream_host}:{upstream_port}", "enabled": True})
        listen_port = int(created["listen"].rsplit(":", 1)[1])
        for stream in STREAMS:
            self._post(f"/proxies/{name}/toxics",
                       {"name": f"latency_{stream}", "type": "latency", "stream": stream, "toxicity": 1.0,
                        "attributes": {"latency": latency_ms, "jitter": jitter_ms}})
        return listen_port

    def remove(self, name: str) -> None:
        """Delete a proxy: its listener closes and the connections through it are cut."""
        self._request("DELETE", f"/proxies/{name}")

    def stop(self) -> None:
        procs.terminate(self.proc, grace=5)
        self._forget()

    def _post(self, path: str, body: dict) -> dict:
        return self._request("POST", path, body)

    def _request(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(self.api_url + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=API_TIMEOUT_S) as response:
                text = response.read()
                return json.loads(text) if text.strip() else {}
        except urllib.error.HTTPError as err:
            raise RuntimeError(f"toxiproxy refused {method} {path} ({err.code}): "
                               f"{err.read().decode(errors='replace').strip()}") from None


def start(server_bin: Path, log: Path, cpus: set[int] | None = None) -> Toxiproxy:
    """Start `toxiproxy-server` on a free loopback port, registered for cleanup; returns once its API answers."""
    port = procs.free_port()
    proc = procs.spawn([str(server_bin), "-host", HOST, "-port", str(port)], log=log, cpus=cpus)
    proxy = Toxiproxy(proc, log, f"http://{HOST}:{port}")
    proxy._forget = procs.on_cleanup(proxy.stop)
    try:
        procs.wait_http_ok(proxy.api_url + "/version", proc, START_TIMEOUT_S, log, "latency proxy")
    except BaseException:
        proxy.stop()
        raise
    return proxy
