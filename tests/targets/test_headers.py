"""--header on a user's service: each header sent on every request k6 makes and on the preflight's, $NAME read from
the environment, only its name ever written down; a header that cannot be one is refused naming its position or
name, never echoing its value (it may be a secret)."""

from __future__ import annotations

import http.server
import json
import tempfile
import threading
from pathlib import Path

import pytest

from vtlab.measure import load
from vtlab.rig import build, ownership
from vtlab.rig.services import Tier
from vtlab.targets import headers as header_values, requestmix, userrow, userservice

SECRET = "s3cr3t-token-value"


def _endpoint(path: str, headers=()) -> userservice.Call:
    return userservice.Call(mix=requestmix.endpoint("GET", path, (1, 9), None, headers))


def test_a_header_s_variables_are_read_from_the_environment_and_only_its_name_is_described():
    headers = header_values.parse(["Authorization: Bearer $TOKEN", "X-Tenant:  ${TENANT}-eu "],
                                        {"TOKEN": SECRET, "TENANT": "acme"})
    assert headers == (("Authorization", f"Bearer {SECRET}"), ("X-Tenant", "acme-eu"))
    call = _endpoint("/api/things/{id}", headers)
    assert call.describe() == "GET /api/things/{id} (ids 1-9, headers Authorization, X-Tenant)"
    assert SECRET not in call.describe()
    assert json.loads(call.k6_env()["VTLAB_MIX"])[0]["headers"] == {"Authorization": f"Bearer {SECRET}",
                                                                      "X-Tenant": "acme-eu"}
    assert _endpoint("/health", headers[1:]).describe() == "GET /health (headers X-Tenant)"
    assert SECRET not in repr(call)  # nor in a traceback's locals
    assert header_values.parse(["X-Price: $$5 for $$$TOKEN"], {"TOKEN": "t"}) == (("X-Price", "$5 for $t"),)


@pytest.mark.parametrize("items, words", [
    ([f"Authorization Bearer {SECRET}"], "--header #1: give 'Name: value'"),           # no colon
    (["X-Ok: 1", f"Bad Name: {SECRET}"], "--header #2: give 'Name: value'"),          # a space in the name
    (["Authorization: Bearer $NOT_SET_HERE"], "--header Authorization: $NOT_SET_HERE is not set"),
    (["Host: example.com"], "--header Host: k6 sets it"),
    (["X-A: 1", "x-a: 2"], "--header x-a given twice"),
    (["Authorization: Bearer $WITH_NEWLINE"], "--header Authorization: its value holds a line break"),
])
def test_a_header_that_cannot_be_one_is_refused_without_its_value(items, words):
    with pytest.raises(ValueError) as refused:
        header_values.parse(items, {"WITH_NEWLINE": SECRET + "\n"})  # a secret read with its line end
    assert words in str(refused.value) and SECRET not in str(refused.value)


@pytest.mark.parametrize("argv, words", [
    (["--endpoint", "GET /x", "--header", f"Authorization {SECRET}"], "--header #1: give 'Name: value'"),
    (["--script", "{script}", "--header", "X-A: 1"], "--header goes with --endpoint or --mix"),
    (["--header", "X-A: 1"], "--header needs --service JAR or --url URL"),
])
def test_header_flags_that_cannot_run_exit_2_naming_the_flag(capsys, tmp_path, argv, words):
    from vtlab.cli.main import main

    script = tmp_path / "s.js"
    script.write_text("export default function () {}\n")
    target = ["--url", "http://127.0.0.1:1", "--modes", "virtual"] if "--header" != argv[0] else []
    code = main(["run", *target, *[arg.replace("{script}", str(script)) for arg in argv], "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2 and words in err and SECRET not in err, err


class _Seen(http.server.BaseHTTPRequestHandler):
    """Answers 200 where the request carried the token, 401 where it did not, and counts both."""
    counts = {"with": 0, "without": 0}

    def do_GET(self):  # noqa: N802 (the stdlib's name)
        ok = self.headers.get("Authorization") == f"Bearer {SECRET}"
        _Seen.counts["with" if ok else "without"] += 1
        self.send_response(200 if ok else 401)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Seen.counts = {"with": 0, "without": 0}
    running = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Seen)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{running.server_port}"
    running.shutdown()


def test_the_preflight_sends_the_headers(server):
    call = _endpoint("/api/things/{id}", (("Authorization", f"Bearer {SECRET}"),))
    tier = Tier("service", None, Path("/dev/null"), server, server)
    userrow.preflight(tier, call)  # a 401 would stop it (TargetError)
    assert _Seen.counts == {"with": 1, "without": 0}
    with pytest.raises(userservice.TargetError, match="answered 401"):
        userrow.preflight(tier, _endpoint("/api/things/{id}"))


def test_k6_sends_the_headers_on_every_request_of_the_endpoint(server):
    if build.find_k6() is None:
        pytest.skip("k6 not built yet (./vtlab setup builds it; ./vtlab test builds it before pytest)")
    call = _endpoint("/api/things/{id}", (("Authorization", f"Bearer {SECRET}"),))
    with tempfile.TemporaryDirectory() as folder:
        spec = load.LoadSpec(server, "closed", 2, 0, 1, 1, 2, 1, cooldown_s=1,
                             script=call.entry_script(Path(folder) / "k6"), script_env=tuple(call.k6_env().items()))
        summary = Path(folder) / "summary.json"
        proc = load.start(build.K6_BIN, spec, summary, Path(folder) / "k6.log", None, Path(folder) / "s.k6.csv.gz")
        proc.wait(timeout=60)
        ownership.release(proc.pid)
        result = load.read_summary(summary, proc.returncode)
    assert _Seen.counts["without"] == 0 and _Seen.counts["with"] >= result.requests > 0
