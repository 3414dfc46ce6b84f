"""`vtlab mix --openapi`: a starter mix from an OpenAPI 3 document (tests/fixtures/things-openapi.yaml, written for
these tests), read back as `--mix` reads it; what vtlab cannot call is named, not guessed; a document that is not
OpenAPI 3 exits 2 naming it, writing nothing."""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest
import yaml

from vtlab.cli.main import main
from vtlab.targets import requestmix

DOCUMENT = Path(__file__).resolve().parents[1] / "fixtures" / "things-openapi.yaml"


def test_every_operation_is_an_entry_its_body_from_the_examples_and_types(tmp_path, capsys):
    out = tmp_path / "mix.yaml"
    assert main(["mix", "--openapi", str(DOCUMENT), "--out", str(out)]) == 0
    told = capsys.readouterr().err
    assert "4 entries written" in told and "2 commented out" in told
    assert "security schemes (bearer: http bearer)" in told  # named, and no header guessed
    mix = requestmix.read(out, {})
    by_name = {entry.name: entry for entry in mix.entries}
    assert list(by_name) == ["getThing", "findThings", "addThing", "getOwnersThing"]
    assert all(entry.weight == 1 for entry in mix.entries)
    assert (by_name["getThing"].path, by_name["getThing"].ids) == ("/shop/things/{id}", (1, 10))  # under the server
    assert by_name["findThings"].path == "/shop/things?colour=red"        # the required query, its example
    assert by_name["getOwnersThing"].path == "/shop/owners/{id}/things/7"  # one {id}; the other its example
    create = by_name["addThing"]
    assert create.success == ((201, 201),) and create.method == "POST"
    body = json.loads(requestmix.fill(create.body, "1", 0, in_path=False))
    assert "id" not in body  # read-only
    assert (body["name"], body["code"], body["price"], body["madeOn"]) == ("Lamp", "110", 0.5, "2024-01-01")
    assert body["owner"]["email"].endswith("@example.com") and len(body["tags"]) == 1
    text = out.read_text()
    assert "# not called: its body is multipart/form-data, not JSON" in text
    assert "# not called: deletes data" in text


def test_a_commented_entry_uncommented_is_an_entry():
    from vtlab.targets import openapi

    text = openapi.starter(openapi.read(str(DOCUMENT)), "doc").text
    uncommented = text.replace("  # - name: 'deleteThing'", "  - name: 'deleteThing'")
    lines = uncommented.splitlines()
    start = lines.index("  - name: 'deleteThing'")
    for i in range(start + 1, start + 6):
        lines[i] = lines[i].replace("  #   ", "    ", 1)
    entries = yaml.safe_load("\n".join(lines))["entries"]
    assert {"name": "deleteThing", "method": "DELETE", "path": "/shop/things/{id}", "weight": 1, "ids": "1-10",
            "success": [204]} in entries


def test_a_running_services_document_is_read_from_its_url(tmp_path, capsys):
    served = DOCUMENT.read_text()

    class Docs(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the stdlib's name)
            body = json.dumps(yaml.safe_load(served)).encode() if self.path == "/v3/api-docs" else b""
            self.send_response(200 if body else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Docs)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        assert main(["mix", "--openapi", f"{url}/v3/api-docs"]) == 0
        assert "name: 'addThing'" in capsys.readouterr().out
        assert main(["mix", "--openapi", f"{url}/nothing"]) == 2
        assert "cannot be read" in capsys.readouterr().err
    finally:
        server.shutdown()


@pytest.mark.parametrize("text, words", [
    ('{"swagger": "2.0", "paths": {}}', "not an OpenAPI 3 document (a Swagger 2.0 document)"),
    ("openapi: 2.1\npaths: {}\n", "not an OpenAPI 3 document (its `openapi` field is '2.1')"),
    ("- a\n- list\n", "not an OpenAPI 3 document (not JSON or YAML)"),
    ("title: no version\n", "not an OpenAPI 3 document (no `openapi: 3.x` field)"),
    ("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n", "the document has no paths"),
])
def test_a_document_that_is_not_openapi_3_exits_2_and_writes_nothing(tmp_path, capsys, text, words):
    document, out = tmp_path / "doc.yaml", tmp_path / "mix.yaml"
    document.write_text(text)
    assert main(["mix", "--openapi", str(document), "--out", str(out)]) == 2
    assert words in capsys.readouterr().err and not out.exists()


def test_an_existing_mix_is_not_overwritten_without_force(tmp_path, capsys):
    out = tmp_path / "mix.yaml"
    out.write_text("mine")
    assert main(["mix", "--openapi", str(DOCUMENT), "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err and out.read_text() == "mine"
    assert main(["mix", "--openapi", str(DOCUMENT), "--out", str(out), "--force"]) == 0
