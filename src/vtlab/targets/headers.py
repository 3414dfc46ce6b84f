"""Request headers the user gives (--header 'Name: value', a mix's `headers:`): each checked as an HTTP header, its
$NAME or ${NAME} read from the environment. A value may be a secret: an error names the header's position or name,
never its value, and only names are ever written down."""

from __future__ import annotations

import re
from collections.abc import Mapping

# A header's name: an HTTP token (RFC 9110 §5.6.2); its value's $NAME or ${NAME}: read from vtlab's environment.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VARIABLE = re.compile(r"\$(?:\$|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# What the rig sets on every request itself, or what would change what a request is
_RIG_HEADERS = {"host", "content-length", "connection", "transfer-encoding"}


def parse(items: list[str], environ: Mapping[str, str], flag: str = "--header") -> tuple[tuple[str, str], ...]:
    """'Name: value' items as (name, value), each $NAME or ${NAME} in a value read from `environ`; `flag` is what an
    error names them by (--header, or a mix entry's headers)."""
    headers: list[tuple[str, str]] = []
    for number, item in enumerate(items, start=1):
        name, sep, value = item.partition(":")
        name = name.strip()
        if not sep or not _TOKEN.fullmatch(name):
            raise ValueError(f"{flag} #{number}: give 'Name: value' (a name, a colon, its value), e.g. "
                             "'Authorization: Bearer $TOKEN'")
        headers.append(one(name, value, environ, flag, {given.lower() for given, _ in headers}))
    return tuple(headers)


def one(name: str, value: str, environ: Mapping[str, str], flag: str, given: set[str]) -> tuple[str, str]:
    """One header, its name checked against the rig's own and those `given` before it (lower case)."""
    if not _TOKEN.fullmatch(name):
        raise ValueError(f"{flag} {name!r}: not a header name (letters, digits and !#$%&'*+.^_`|~-)")
    if name.lower() in _RIG_HEADERS:
        raise ValueError(f"{flag} {name}: k6 sets it on every request itself; leave it out")
    if name.lower() in given:
        raise ValueError(f"{flag} {name} given twice: give each header once")

    def read(found: re.Match) -> str:
        variable = found.group(1) or found.group(2)
        if variable is None:  # $$: a $ of the value's own
            return "$"
        if variable not in environ:
            raise ValueError(f"{flag} {name}: ${variable} is not set in the environment")
        return environ[variable]
    expanded = _VARIABLE.sub(read, value.strip())
    if any(char in expanded for char in "\r\n\0"):  # a secret read with its trailing newline, say
        raise ValueError(f"{flag} {name}: its value holds a line break or NUL, which no header may; trim it")
    return name, expanded
