"""--mix: a request mix read and checked (every bad field an exit 2 naming the file, the entry and the field, nothing
started), run by real k6 (each entry drawn by its weight, its body filled and sent as JSON, its own success statuses,
its entry kept in the series) and told entry by entry."""

from __future__ import annotations

import http.server
import json
import tempfile
import threading
from pathlib import Path

import pytest
from boots import BOOT_MANIFEST, boot_jar

from vtlab.measure import load
from vtlab.rig import build, ownership
from vtlab.series import entries, store
from vtlab.targets import requestmix, userservice

MIX = """\
headers:
  X-Tenant: acme
entries:
  - name: getOwner
    method: get
    path: /owners/{id}
    ids: 1-10
    weight: 80
  - name: createOwner
    method: POST
    path: /owners
    body: '{"firstName": "{text:8}", "telephone": "555{n}", "ref": "{uuid}", "ownerId": {id}}'
    ids: 3-3
    weight: 20
    success: [201]
    count: select count(*) from owners
    headers:
      Authorization: Bearer $TOKEN
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mix.yaml"
    path.write_text(text)
    return path


def test_a_mix_is_read_with_its_entries_weights_bodies_and_headers(tmp_path):
    mix = requestmix.read(write(tmp_path, MIX), {"TOKEN": "t0k"})
    get, create = mix.entries
    assert (get.name, get.method, get.path, get.weight, get.ids, get.body) == (
        "getOwner", "GET", "/owners/{id}", 80.0, (1, 10), None)
    assert create.success == ((201, 201),) and get.success == ((200, 299),)
    assert create.count == "select count(*) from owners"
    assert dict(create.headers) == {"Authorization": "Bearer t0k", "X-Tenant": "acme"}
    assert dict(get.headers) == {"X-Tenant": "acme"}
    described = mix.describe()
    assert described == (f"mix {tmp_path / 'mix.yaml'}: getOwner 80% GET /owners/{{id}}, createOwner 20% POST /owners "
                         "(headers X-Tenant, Authorization)")
    assert "t0k" not in described and "t0k" not in repr(mix)
    sent = json.loads(mix.k6_env()["VTLAB_MIX"])
    assert sent[1]["headers"]["Content-Type"] == "application/json"  # a body goes as JSON
    assert sent[1]["success"] == [{"min": 201, "max": 201}]


def test_placeholders_are_filled_as_json_and_an_id_is_encoded_in_a_path():
    filled = requestmix.fill('{"a": "{text:5}", "n": {n}, "u": "{uuid}", "id": "{id}"}', "x/y", 7, in_path=False)
    body = json.loads(filled)
    assert len(body["a"]) == 5 and body["a"].isalpha() and body["n"] == 7 and body["id"] == "x/y"
    assert len(body["u"]) == 36 and body["u"][14] == "4"
    assert requestmix.fill("/a/{id}", "x/y", 0, in_path=True) == "/a/x%2Fy"


def test_a_headers_value_given_in_the_flags_joins_every_entry_an_entrys_own_winning(tmp_path):
    mix = requestmix.read(write(tmp_path, MIX), {"TOKEN": "t"}).with_headers(
        (("Authorization", "Bearer flag"), ("X-Trace", "1")))
    get, create = mix.entries
    assert dict(get.headers)["Authorization"] == "Bearer flag"
    assert dict(create.headers)["Authorization"] == "Bearer t"
    assert dict(create.headers)["X-Trace"] == "1"


@pytest.mark.parametrize("text, words", [
    (MIX.replace("    weight: 20\n", "    wieght: 20\n"),
     "entries[2] (createOwner): unknown field 'wieght' (the fields: name, method"),
    (MIX.replace("weight: 80", "weight: 0"), "entries[1] (getOwner).weight: 0: give a number above 0"),
    (MIX.replace("weight: 80", "weight: -3"), "entries[1] (getOwner).weight: -3: give a number above 0"),
    (MIX.replace('"ownerId": {id}}', '"ownerId": {id}'),
     "entries[2] (createOwner).body: not JSON once its placeholders are filled"),
    (MIX.replace('"firstName": "{text:8}"', '"firstName": {text:8}'),
     "entries[2] (createOwner).body: not JSON once its placeholders are filled"),
    (MIX.replace("    ids: 1-10\n", ""), "entries[1] (getOwner).ids: its path or body has an {id}"),
    (MIX.replace("/owners/{id}", "/owners/{ownerId}"), "entries[1] (getOwner).path: the placeholder {ownerId} is not"),
    (MIX.replace("method: get", "method: FETCH"), "entries[1] (getOwner).method: 'FETCH' is not one of GET"),
    (MIX.replace("ids: 1-10", "ids: 10-1"), "entries[1] (getOwner).ids: '10-1': give a range FIRST-LAST"),
    (MIX.replace("success: [201]", "success: [20]"), "entries[2] (createOwner).success: 20: give statuses"),
    (MIX.replace("count: select", "count: delete"), "entries[2] (createOwner).count: 'delete count(*) from owners'"),
    (MIX.replace("    method: POST\n", ""), "entries[2] (createOwner).method: missing"),
    (MIX.replace("name: createOwner", "name: getOwner"), "the name 'getOwner' is given twice"),
    (MIX.replace("Authorization: Bearer $TOKEN", "Authorization: Bearer $NOT_SET"),
     "entries[2] (createOwner).headers: Authorization: $NOT_SET is not set"),
    (MIX.replace("  X-Tenant: acme", "  Bad Name: acme"), "headers: 'Bad Name': not a header name"),
    (MIX.replace("entries:", "requests:"), "unknown field 'requests' (the fields: entries, headers)"),
    ("entries: []\n", "entries: give a list of at least one entry"),
    ("- just a list\n", "give a mapping with `entries:`"),
    ("entries: [\n", "not YAML"),
    ('entries:\n  - {name: a, method: POST, path: /a, body: {"ownerId": {id}}, ids: 1-2}\n',
     "YAML read the unquoted {id} as a mapping of its own"),
])
def test_a_bad_mix_names_the_entry_and_the_field(tmp_path, text, words):
    with pytest.raises(ValueError) as refused:
        requestmix.read(write(tmp_path, text), {"TOKEN": "t"})
    assert str(refused.value).startswith(f"--mix {tmp_path / 'mix.yaml'}: ") and words in str(refused.value), refused


def test_bad_mix_flags_exit_2_naming_the_field_and_start_nothing(capsys, tmp_path):
    from vtlab.cli.main import main

    jar = boot_jar(tmp_path / "svc.jar", BOOT_MANIFEST.format("3.5.7"))
    mix = write(tmp_path, MIX.replace("weight: 80", "weight: 0"))
    for argv, words in (
            (["--service", str(jar), "--mix", str(mix)], "entries[1] (getOwner).weight: 0: give a number above 0"),
            (["--service", str(jar), "--mix", str(mix), "--ids", "1-2"], "--ids goes with --endpoint"),
            (["--service", str(jar), "--mix", str(mix), "--endpoint", "GET /x"], "say what to call"),
            (["--mix", str(mix)], "--mix needs --service JAR or --url URL"),
            (["--service", str(jar), "--mix", str(tmp_path / "none.yaml")], "cannot be read")):
        code = main(["run", *argv, "--out", str(tmp_path / "run"), "--dry-run"])
        err = capsys.readouterr().err
        assert code == 2 and words in err, (argv, err)
    assert not (tmp_path / "run").exists()


class _Service(http.server.BaseHTTPRequestHandler):
    """GET /owners/N: 200; POST /owners: 201 for a JSON body sent as JSON, else 400 (and 415 for another type)."""
    seen: dict[str, list] = {}

    def do_GET(self):  # noqa: N802 (the stdlib's name)
        _Service.seen.setdefault("get", []).append(self.path)
        self._answer(200 if self.path.startswith("/owners/") else 404)

    def do_POST(self):  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        try:
            _Service.seen.setdefault("post", []).append(json.loads(body))
            code = 201 if self.headers.get("Content-Type") == "application/json" else 415
        except ValueError:
            code = 400
        self._answer(code)

    def _answer(self, code: int) -> None:
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture
def service():
    _Service.seen = {}
    running = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Service)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{running.server_port}"
    running.shutdown()


def test_k6_draws_each_entry_by_weight_fills_its_body_and_keeps_its_entry_in_the_series(tmp_path, service):
    if build.find_k6() is None:
        pytest.skip("k6 not built yet (./vtlab setup builds it; ./vtlab test builds it before pytest)")
    call = userservice.Call(mix=requestmix.read(write(tmp_path, MIX), {"TOKEN": "t"}))
    with tempfile.TemporaryDirectory() as folder:
        spec = load.LoadSpec(service, "closed", 4, 0, 1, 2, 2, 1, cooldown_s=1,
                             script=call.entry_script(Path(folder) / "k6"), script_env=tuple(call.k6_env().items()))
        summary, series = Path(folder) / "summary.json", Path(folder) / "s.k6.csv.gz"
        proc = load.start(build.K6_BIN, spec, summary, Path(folder) / "k6.log", None, series)
        proc.wait(timeout=60)
        ownership.release(proc.pid)
        result = load.read_summary(summary, proc.returncode)
        requests = store.read_k6(series).requests
    assert result.requests > 100 and result.error_rate == 0  # every POST's 201 counted as its success
    by_name = {figures.name: figures for figures in entries.of(requests)}
    assert set(by_name) == {"getOwner", "createOwner"} and all(r.entry for r in requests)
    share = by_name["createOwner"].requests / len(requests)
    assert 0.15 < share < 0.25, share  # 20 of 100 by weight (thousands of draws: ±2% is 5 sd)
    assert by_name["getOwner"].ok == by_name["getOwner"].requests
    posted = _Service.seen["post"]
    assert len(posted) == by_name["createOwner"].requests
    assert {body["ownerId"] for body in posted} == {3}
    assert all(len(body["firstName"]) == 8 and body["firstName"].isalpha() for body in posted)
    assert len({body["telephone"] for body in posted}) == len(posted)  # {n}: one counter for the run's users
    assert len({body["ref"] for body in posted}) == len(posted)
    assert {int(path.rsplit("/", 1)[1]) for path in _Service.seen["get"]} <= set(range(1, 11))


def test_an_entry_s_figures_are_its_own_requests():
    def request(entry: str, ms: float, status: str = "200") -> store.Request:
        return store.Request(1.0, ms, status, "hold", "a", status == "200", entry)

    told = entries.of([request("a", 10), request("b", 50), request("a", 30), request("b", 70, "500"),
                       request("", 99)])
    assert [(f.name, f.requests, f.ok, f.p50_ms, f.p99_ms, f.failures) for f in told] == [
        ("a", 2, 2, 20.0, 29.8, ()), ("b", 2, 1, 50.0, 50.0, (("500", 1),))]
