"""What each iteration calls on the user's service: a request mix (`--mix FILE`, YAML) of named entries, each a
method, a path and a weight, with an optional JSON body template, headers, the ids its `{id}` is drawn from and the
statuses that count as its success; `--endpoint` is the mix of one entry. Read and checked here, before anything
starts: every error names the file, the entry and the field. load/mix.js draws the entries and fills the
placeholders in k6 the way `fill` does here (the preflight's requests, and the check that a body is JSON)."""

from __future__ import annotations

import json
import math
import random
import re
import urllib.parse
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from vtlab.core.settings import LOAD
from vtlab.targets import headers as header_values

SCRIPT = LOAD / "mix.js"
METHODS = ("GET", "HEAD", "DELETE", "POST", "PUT", "PATCH", "OPTIONS")
ENTRY_FIELDS = ("name", "method", "path", "weight", "body", "headers", "ids", "ids_file", "success", "count")
TOP_FIELDS = ("entries", "headers")
# {id}: the entry's id drawn at random; {n}: a counter of the k6 run (unique within a row, or a paired point's
# arm); {uuid}: a random UUID; {text:N}: N random lower-case letters
PLACEHOLDER = re.compile(r"\{(id|n|uuid|text:(\d{1,4}))\}")
_ANY_PLACEHOLDER = re.compile(r"\{([^{}/]*)\}")
# An entry's name is a field of the series' comma-separated lines and a tag of k6's: no comma, no line break
_NAME = re.compile(r"[^,\x00-\x1f]{1,60}")
DEFAULT_SUCCESS = ((200, 299),)


@dataclass(frozen=True)
class Entry:
    """One kind of request of the mix."""
    name: str
    method: str
    path: str                                 # with placeholders
    weight: float = 1.0
    body: str | None = None                   # a JSON template
    # a value may be a secret: only names are ever written (describe); the values live in k6's environment
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    ids: tuple[int, int] | None = None        # the range {id} is drawn from ...
    ids_file: Path | None = None              # ... or a file's lines
    success: tuple[tuple[int, int], ...] = DEFAULT_SUCCESS  # status ranges, inclusive
    count: str | None = None                  # SQL counting what its writes landed (with --db)

    def first_id(self) -> str:
        """The id a preflight (and the body's check) uses: the range's first, or the file's first line."""
        if self.ids_file:
            return next(line.strip() for line in self.ids_file.read_text().splitlines() if line.strip())
        return str(self.ids[0]) if self.ids else "1"

    def succeeded(self, status: int) -> bool:
        return any(low <= status <= high for low, high in self.success)


@dataclass(frozen=True)
class Mix:
    entries: tuple[Entry, ...]
    source: Path | None = None   # the --mix file; None: --endpoint's one entry

    def describe(self) -> str:
        """What metadata records: the entries, never a header's value."""
        if self.source is None:
            return _endpoint_words(self.entries[0])
        total = sum(entry.weight for entry in self.entries)
        return f"mix {self.source}: " + ", ".join(
            f"{entry.name} {_share(entry.weight / total)} {entry.method} {entry.path}" for entry in self.entries) + (
            f" (headers {', '.join(names)})" if (names := self.header_names()) else "")

    def header_names(self) -> list[str]:
        return list(dict.fromkeys(name for entry in self.entries for name, _ in entry.headers))

    def k6_env(self) -> dict[str, str]:
        """load/mix.js's environment: the entries as JSON (header values included: k6's environment only)."""
        return {"VTLAB_MIX": json.dumps([_for_k6(entry) for entry in self.entries], separators=(",", ":"))}

    def with_headers(self, given: tuple[tuple[str, str], ...]) -> Mix:
        """Every entry with `given` (--header) added, an entry's own header of that name winning."""
        if not given:
            return self
        entries = []
        for entry in self.entries:
            own = {name.lower() for name, _ in entry.headers}
            entries.append(replace(entry, headers=(*entry.headers, *(h for h in given if h[0].lower() not in own))))
        return Mix(tuple(entries), self.source)


def _share(fraction: float) -> str:
    return f"{fraction:.0%}" if fraction >= 0.01 else f"{fraction:.1%}"


def _endpoint_words(entry: Entry) -> str:
    """--endpoint's description, as metadata has always recorded it."""
    ids = f"ids from {entry.ids_file}" if entry.ids_file else f"ids {entry.ids[0]}-{entry.ids[1]}" if entry.ids else ""
    names = ", ".join(name for name, _ in entry.headers)
    told = ", ".join(part for part in (ids if "{id}" in entry.path else "", f"headers {names}" if names else "")
                     if part)
    return f"{entry.method} {entry.path}" + (f" ({told})" if told else "")


def _for_k6(entry: Entry) -> dict[str, object]:
    return {"name": entry.name, "method": entry.method, "path": entry.path, "weight": entry.weight,
            "body": entry.body, "headers": request_headers(entry), "ids": list(entry.ids) if entry.ids else None,
            "idsFile": str(entry.ids_file) if entry.ids_file else None,
            "success": [{"min": low, "max": high} for low, high in entry.success]}


def request_headers(entry: Entry) -> dict[str, str]:
    """The entry's headers as sent: a body goes as JSON unless the entry says otherwise."""
    sent = dict(entry.headers)
    if entry.body is not None and not any(name.lower() == "content-type" for name in sent):
        sent["Content-Type"] = "application/json"
    return sent


def fill(template: str, entry_id: str, n: int, in_path: bool, rng: random.Random | None = None) -> str:
    """A template with its placeholders filled, as load/mix.js fills them (an id is URL-encoded in a path)."""
    chance = rng or random.Random()

    def one(found: re.Match) -> str:
        name = found.group(1)
        if name == "id":
            return urllib.parse.quote(entry_id, safe="") if in_path else entry_id
        if name == "n":
            return str(n)
        if name == "uuid":
            return str(uuid.UUID(int=chance.getrandbits(128), version=4))
        return "".join(chance.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(int(found.group(2))))
    return PLACEHOLDER.sub(one, template)


def endpoint(method: str, path: str, ids: tuple[int, int] | None, ids_file: Path | None,
             headers: tuple[tuple[str, str], ...] = ()) -> Mix:
    """--endpoint 'METHOD /path': the mix of one entry, named as the endpoint."""
    return Mix((Entry(f"{method} {path}", method, path, 1.0, headers=headers, ids=ids, ids_file=ids_file),))


class _Where:
    """Where in the mix file a value sits, for the error that names it."""

    def __init__(self, source: Path, place: str = ""):
        self.source, self.place = source, place

    def at(self, place: str) -> _Where:
        return _Where(self.source, f"{self.place}.{place}" if self.place else place)

    def error(self, what: str) -> ValueError:
        return ValueError(f"--mix {self.source}: {self.place + ': ' if self.place else ''}{what}")


def read(source: Path, environ: Mapping[str, str]) -> Mix:
    """The mix file, checked: ValueError naming the file, the entry and the field for anything wrong."""
    where = _Where(source)
    try:
        document = yaml.safe_load(source.read_text())
    except OSError as err:
        raise where.error(f"cannot be read ({err.strerror or err})") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise where.error(f"not YAML{f' (line {mark.line + 1})' if mark else ''}: "
                          f"{getattr(err, 'problem', None) or err}") from None
    if not isinstance(document, dict):
        raise where.error("give a mapping with `entries:` (a list of requests), e.g.\n" + EXAMPLE)
    _known(document, TOP_FIELDS, where)
    shared = _headers(document.get("headers"), environ, where.at("headers"))
    listed = document.get("entries")
    if not isinstance(listed, list) or not listed:
        raise where.at("entries").error("give a list of at least one entry, e.g.\n" + EXAMPLE)
    entries = [_entry(item, index, source.parent, environ, where) for index, item in enumerate(listed)]
    names = [entry.name for entry in entries]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise where.at("entries").error(f"the name {twice[0]!r} is given twice: each entry's name is its own")
    return Mix(tuple(entries), source).with_headers(shared)


EXAMPLE = """  entries:
    - name: getOwner
      method: GET
      path: /api/owners/{id}
      ids: 1-10
      weight: 80
    - name: createOwner
      method: POST
      path: /api/owners
      body: {"firstName": "{text:8}", "lastName": "Load{n}"}
      weight: 20"""


def _known(mapping: dict, fields: tuple[str, ...], where: _Where) -> None:
    for name in mapping:
        if name not in fields:
            raise where.error(f"unknown field {name!r} (the fields: {', '.join(fields)})")


def _entry(item: object, index: int, folder: Path, environ: Mapping[str, str], mix: _Where) -> Entry:
    where = mix.at(f"entries[{index + 1}]")
    if not isinstance(item, dict):
        raise where.error(f"give a mapping of {', '.join(ENTRY_FIELDS)}")
    if isinstance(item.get("name"), str):
        where = mix.at(f"entries[{index + 1}] ({item['name']})")
    _known(item, ENTRY_FIELDS, where)
    for required in ("name", "method", "path"):
        if item.get(required) in (None, ""):
            raise where.at(required).error("missing: every entry names its name, method and path")
    name, method, path = str(item["name"]), str(item["method"]).upper(), str(item["path"])
    if not _NAME.fullmatch(name):
        raise where.at("name").error("1 to 60 characters, no comma or line break")
    if method not in METHODS:
        raise where.at("method").error(f"{item['method']!r} is not one of {', '.join(METHODS)}")
    if not path.startswith("/"):
        raise where.at("path").error(f"{path!r}: give a path starting with /")
    for found in _ANY_PLACEHOLDER.finditer(path):
        if not PLACEHOLDER.fullmatch(found.group(0)):
            raise where.at("path").error(f"the placeholder {found.group(0)} is not one vtlab fills (it fills {{id}}, "
                                         "{n}, {uuid}, {text:N})")
    ids, ids_file = _ids(item, folder, where)
    uses_id = "{id}" in path or "{id}" in _body_text(item.get("body"), where.at("body"))
    if uses_id and ids is None and ids_file is None:
        raise where.at("ids").error("its path or body has an {id}: give `ids: FIRST-LAST` or `ids_file: FILE`")
    entry = Entry(name, method, path, _weight(item.get("weight", 1), where.at("weight")),
                  body=_body_text(item.get("body"), where.at("body")) if item.get("body") is not None else None,
                  headers=_headers(item.get("headers"), environ, where.at("headers")), ids=ids, ids_file=ids_file,
                  success=_success(item.get("success"), where.at("success")), count=_count(item.get("count"), where))
    if entry.body is not None:
        _check_json(entry, where.at("body"))
    return entry


def _weight(value: object, where: _Where) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise where.error(f"{value!r}: give a number above 0 (the entries' weights are relative)")
    return float(value)


def _ids(item: dict, folder: Path, where: _Where) -> tuple[tuple[int, int] | None, Path | None]:
    ids, ids_file = item.get("ids"), item.get("ids_file")
    if ids is not None and ids_file is not None:
        raise where.error("ids and ids_file: give one")
    if ids is not None:
        found = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*", str(ids)) if not isinstance(ids, bool) else None
        single = isinstance(ids, int) and not isinstance(ids, bool) and ids >= 0
        if single:
            return (ids, ids), None
        if not found or int(found.group(1)) > int(found.group(2)):
            raise where.at("ids").error(f"{ids!r}: give a range FIRST-LAST of whole numbers, e.g. 1-1000")
        return (int(found.group(1)), int(found.group(2))), None
    if ids_file is not None:
        path = (folder / str(ids_file)).resolve()
        if not path.is_file() or not path.read_text().strip():
            raise where.at("ids_file").error(f"{ids_file}: no such file (read beside the mix file), or it holds no id")
        return None, path
    return None, None


def _body_text(body: object, where: _Where) -> str:
    """A body as its JSON template: a mapping or list given in YAML is written as JSON, a string is the template."""
    if body is None:
        return ""
    if isinstance(body, (dict, list)):
        if read_as_mapping := _placeholder_read_as_mapping(body):
            raise where.error(f"YAML read the unquoted {read_as_mapping} as a mapping of its own: write the body as a "
                              "string of JSON, e.g. body: '{\"ownerId\": {id}, \"name\": \"{text:8}\"}'")
        return json.dumps(body, separators=(",", ":"))
    if isinstance(body, str):
        return body
    raise where.error(f"{body!r}: give a JSON template, as YAML (a mapping) or as a string")


def _placeholder_read_as_mapping(value: object) -> str:
    """The placeholder YAML took for a flow mapping ({id} → {"id": None}) somewhere in a body, or ""."""
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value.values())) is None and PLACEHOLDER.fullmatch(f"{{{next(iter(value))}}}"):
            return f"{{{next(iter(value))}}}"
        value = list(value.values())
    if isinstance(value, list):
        return next((found for item in value if (found := _placeholder_read_as_mapping(item))), "")
    return ""


def _check_json(entry: Entry, where: _Where) -> None:
    assert entry.body is not None
    filled = fill(entry.body, entry.first_id(), 0, in_path=False, rng=random.Random(0))
    try:
        json.loads(filled)
    except json.JSONDecodeError as err:
        raise where.error(f"not JSON once its placeholders are filled ({err.msg} at character {err.pos + 1} of "
                          f"{filled[:120]!r}); a placeholder standing for a string goes inside quotes: "
                          '"{text:8}"') from None


def _headers(value: object, environ: Mapping[str, str], where: _Where) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise where.error("give a mapping of header names to values, e.g. {Authorization: 'Bearer $TOKEN'}")
    given: set[str] = set()
    found = []
    for name, text in value.items():
        try:
            found.append(header_values.one(str(name), str(text), environ, "headers", given))
        except ValueError as err:
            raise where.error(str(err).removeprefix("headers ")) from None
        given.add(str(name).lower())
    return tuple(found)


def _success(value: object, where: _Where) -> tuple[tuple[int, int], ...]:
    """`success: [200, 201]` or `[2xx]`: the statuses that count as the entry's success (default: any 2xx)."""
    if value is None:
        return DEFAULT_SUCCESS
    ranges = []
    for item in value if isinstance(value, list) else [value]:
        text = str(item).strip().lower()
        if re.fullmatch(r"[1-5]xx", text):
            ranges.append((int(text[0]) * 100, int(text[0]) * 100 + 99))
        elif re.fullmatch(r"[1-5]\d\d", text) and not isinstance(item, bool):
            ranges.append((int(text), int(text)))
        else:
            raise where.error(f"{item!r}: give statuses (200, 201) or classes (2xx)")
    return tuple(ranges)


def _count(value: object, where: _Where) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not re.match(r"\s*select\b", value, re.I):
        raise where.at("count").error(f"{value!r}: give a query that counts the rows its writes make, e.g. "
                                      "'select count(*) from owners'")
    return value.strip()
