"""A first request mix from a service's OpenAPI 3 document (`vtlab mix --openapi URL|FILE`): every operation an
entry of equal weight, its first path parameter the entry's {id}, its JSON body from the document's examples (or
made from the schema's types), its success the 2xx statuses it documents — commented where the user has to
decide (the ids that exist, the weights, what a DELETE does) and where vtlab cannot follow the document (an auth
flow, a body that is not JSON), never guessed. The document's $refs are resolved by prance; whether it validates
as OpenAPI is openapi-spec-validator's word, told as a note (springdoc's own documents often do not, and still
describe every call)."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vtlab.targets import requestmix

OPERATIONS = ("get", "post", "put", "patch", "delete", "head", "options")
FETCH_TIMEOUT_S = 30
NESTING = 6        # how deep a body made from a schema goes (a schema that refers to itself ends here)
STARTER_IDS = "1-10"


@dataclass
class Starter:
    """The mix's text and what the document held that it could not follow."""
    text: str
    notes: list[str] = field(default_factory=list)


def read(source: str) -> dict[str, Any]:
    """The document at a URL or in a file, its $refs resolved; ValueError naming `source` where it is not OpenAPI 3."""
    is_url = urllib.parse.urlsplit(source).scheme in ("http", "https")
    try:
        if is_url:
            with urllib.request.urlopen(source, timeout=FETCH_TIMEOUT_S) as response:
                text = response.read().decode("utf-8", "replace")
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, ValueError) as err:
        raise ValueError(f"--openapi {source}: cannot be read ({getattr(err, 'reason', None) or err})") from None
    try:
        document = yaml.safe_load(text)  # JSON is YAML too
    except yaml.YAMLError:
        document = None
    version = str(document.get("openapi", "")) if isinstance(document, dict) else ""
    if not version.startswith("3."):
        said = (f"its `openapi` field is {version!r}" if version else
                f"a Swagger {document['swagger']} document" if isinstance(document, dict) and "swagger" in document
                else "no `openapi: 3.x` field" if isinstance(document, dict) else "not JSON or YAML")
        raise ValueError(f"--openapi {source}: not an OpenAPI 3 document ({said}); give a service's /v3/api-docs "
                         "(springdoc) or an OpenAPI 3.0/3.1 file")
    if not isinstance(document.get("paths"), dict) or not document["paths"]:
        raise ValueError(f"--openapi {source}: the document has no paths: nothing to call")
    return _resolved(document, source if is_url else Path(source).resolve().as_uri())


def _resolved(document: dict[str, Any], url: str) -> dict[str, Any]:
    from prance.util.resolver import RefResolver

    resolver = RefResolver(document, url)
    resolver.resolve_references()
    return resolver.specs


def problems(document: dict[str, Any]) -> str:
    """The first thing openapi-spec-validator finds wrong in the document, or ""."""
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    try:
        validate(document)
    except OpenAPIValidationError as err:
        return str(err).splitlines()[0]
    return ""


def starter(document: dict[str, Any], source: str) -> Starter:
    """The starter mix's YAML, every operation of the document an entry."""
    notes: list[str] = []
    if invalid := problems(document):
        notes.append(f"the document does not validate as OpenAPI {document['openapi']} ({invalid}); the mix is "
                     "written from what it holds")
    base = _base_path(document)
    security = _security(document)
    if security:
        notes.append(f"the document names security schemes ({security}): give their header with --header "
                     "'Authorization: …' or a mix's `headers:`; vtlab runs no OAuth2 or OpenID flow")
    names: set[str] = set()
    blocks = []
    for path, operations in document["paths"].items():
        for method in OPERATIONS:
            operation = operations.get(method) if isinstance(operations, dict) else None
            if isinstance(operation, dict):
                shared = operations.get("parameters", [])
                blocks.append(_entry(method, base + path, operation, shared, names))
    title = (document.get("info") or {}).get("title", "the document")
    head = [f"# A request mix written by `vtlab mix --openapi {source}`",
            f"# from {title} (OpenAPI {document['openapi']}).",
            "# Every operation is an entry of weight 1: set the weights to your traffic's mix, the ids to those that",
            "# exist, and drop what you do not call. Each iteration calls one entry drawn by weight.",
            "# Placeholders: {id} (from ids), {n} (a counter), {uuid}, {text:N}.",
            "# The fields: docs/your-service.md#a-request-mix",
            *(f"# Note: {note}" for note in notes),
            "entries:"]
    return Starter("\n".join(head + [line for block in blocks for line in block]) + "\n", notes)


def _base_path(document: dict[str, Any]) -> str:
    """The first server's path (/petclinic in http://host/petclinic): the paths are under it."""
    servers = document.get("servers") or []
    url = servers[0].get("url", "") if servers and isinstance(servers[0], dict) else ""
    return urllib.parse.urlsplit(url).path.rstrip("/") if url else ""


def _security(document: dict[str, Any]) -> str:
    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    return ", ".join(f"{name}: {scheme.get('type', '?')}" + (f" {scheme['scheme']}" if scheme.get("scheme") else "")
                     for name, scheme in schemes.items() if isinstance(scheme, dict))


def _entry(method: str, path: str, operation: dict[str, Any], shared: list, names: set[str]) -> list[str]:
    """One operation's entry as YAML lines (commented out where vtlab cannot call it as documented)."""
    name = _name(operation.get("operationId") or f"{method.upper()} {path}", names)
    parameters = [p for p in [*shared, *operation.get("parameters", [])] if isinstance(p, dict)]
    path, said = _path(path, parameters)
    lines = [f"  - name: {_quoted(name)}", f"    method: {method.upper()}", f"    path: {_quoted(path)}",
             "    weight: 1"]
    if "{id}" in path:
        lines.append(f"    ids: {STARTER_IDS}        # edit: the ids that exist")
    comments = list(said)
    body, why_not = _body(operation.get("requestBody"))
    if body is not None:
        lines.append(f"    body: {_quoted(body)}")
    success = sorted({str(code) for code in (operation.get("responses") or {}) if re.fullmatch(r"2\d\d", str(code))})
    if success and success != ["200"]:
        lines.append(f"    success: [{', '.join(success)}]")
    if method == "delete":
        comments.append("a DELETE removes what its id names: a second call for one id may answer 404")
        why_not = why_not or "deletes data: uncomment it where your mix deletes"
    summary = f"  # {operation['summary']}" if operation.get("summary") else ""
    told = [summary] if summary else []
    told += [f"  # {comment}" for comment in comments]
    if why_not:
        # commented at the entry's own indent: deleting "# " gives the entry back
        return [*told, f"  # not called: {why_not}", *(f"  # {line[2:]}" for line in lines)]
    return [*told, *lines]


def _name(wanted: str, names: set[str]) -> str:
    name = re.sub(r"[,\x00-\x1f]", " ", wanted)[:56].strip() or "operation"
    chosen, number = name, 2
    while chosen in names:
        chosen, number = f"{name} {number}", number + 1
    names.add(chosen)
    return chosen


def _path(path: str, parameters: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """The path with its first path parameter as {id}, any other as its example (said), required query
    parameters appended with their examples."""
    said = []
    placeholders = re.findall(r"\{([^{}]+)\}", path)
    by_name = {p.get("name"): p for p in parameters}
    for index, placeholder in enumerate(placeholders):
        if index == 0:
            path = path.replace(f"{{{placeholder}}}", "{id}")
            continue
        value = _example_of(by_name.get(placeholder, {})) or "1"
        path = path.replace(f"{{{placeholder}}}", urllib.parse.quote(str(value), safe=""))
        said.append(f"{placeholder} fixed at {value} (one id a request is drawn: {placeholders[0]}'s)")
    query = []
    for parameter in parameters:
        if parameter.get("in") == "query" and parameter.get("required"):
            value = _example_of(parameter) or "{text:6}"
            query.append(f"{parameter['name']}={value}")
        elif parameter.get("in") in ("header", "cookie") and parameter.get("required"):
            said.append(f"needs the {parameter['in']} {parameter.get('name')}: give it under headers:")
    return path + ("?" + "&".join(query) if query else ""), said


def _example_of(parameter: dict[str, Any]) -> str:
    if "example" in parameter:
        return str(parameter["example"])
    schema = parameter.get("schema") or {}
    return str(schema["example"]) if "example" in schema else ""


def _body(request_body: Any) -> tuple[str | None, str]:
    """The request body as a JSON template, or (None, why it is not called) for a body vtlab does not send."""
    if not isinstance(request_body, dict):
        return None, ""
    content = request_body.get("content") or {}
    kind = next((media for media in content if media == "application/json" or media.endswith("+json")), None)
    if kind is None:
        others = ", ".join(content) or "none given"
        return None, f"its body is {others}, not JSON: vtlab sends JSON bodies only"
    media = content[kind] or {}
    if "example" in media:
        return json.dumps(media["example"]), ""
    examples = media.get("examples") or {}
    first = next(iter(examples.values()), None) if isinstance(examples, dict) else None
    if isinstance(first, dict) and "value" in first:
        return json.dumps(first["value"]), ""
    return json.dumps(_made(media.get("schema") or {}, 0)), ""


def _made(schema: dict[str, Any], depth: int) -> Any:
    """A value of the schema: its example where it gives one, else one of its type (a string as {text:8})."""
    if "example" in schema:
        return _typed(schema["example"], schema.get("type"))
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    for combined in ("allOf", "oneOf", "anyOf"):
        if schema.get(combined):
            parts = [_made(part, depth) for part in schema[combined]]
            if combined == "allOf" and all(isinstance(part, dict) for part in parts):
                return {key: value for part in parts for key, value in part.items()}
            return parts[0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
    if kind == "object" or "properties" in schema:
        if depth >= NESTING:
            return {}
        return {name: _made(part, depth + 1) for name, part in (schema.get("properties") or {}).items()
                if isinstance(part, dict) and not part.get("readOnly")}
    if kind == "array":
        return [] if depth >= NESTING else [_made(schema.get("items") or {}, depth + 1)]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    return _string(schema)


def _string(schema: dict[str, Any]) -> str:
    formats = {"date": "2024-01-01", "date-time": "2024-01-01T00:00:00Z", "uuid": "{uuid}",
               "email": "{text:8}@example.com", "uri": "https://example.com/{text:8}"}
    return formats.get(schema.get("format", ""), "{text:8}")


def _typed(example: Any, kind: Any) -> Any:
    """An example as its schema types it: springdoc writes `example: 110` for a string."""
    return str(example) if kind == "string" and not isinstance(example, str) else example


def _quoted(text: str) -> str:
    """A YAML scalar in single quotes: its {placeholders} and JSON kept as they are."""
    return "'" + text.replace("'", "''") + "'"


def check(written: Path) -> requestmix.Mix:
    """The starter read back as `--mix` reads it (what the command promises: a mix vtlab accepts)."""
    return requestmix.read(written, {})
