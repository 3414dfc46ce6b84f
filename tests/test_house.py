"""The house by stage, kept: the harness's packages read as the flow and data only flows one way.

Read from the source's own import lines (ast), so a move that breaks a rule fails here, not in a review."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "vtlab"

# The flow: what each stage may import beside itself. Data goes plan -> rig -> measure -> series -> results ->
# explain -> report -> compare (two runs' analyses side by side); the targets drive the measuring, the capacity
# search asks for points through one callable (rows read back, the way explain reads them) and the command line sits
# on top of everything. An earlier stage never imports a later one, and the analysis, the report and the
# comparison read only what run folders hold.
ALLOWED = {
    "core": set(),
    "plan": {"core"},
    "rig": {"core", "plan"},
    "results": {"core"},
    "series": {"core", "results"},
    "explain": {"core", "results", "series"},
    "measure": {"core", "plan", "rig", "series", "results"},
    "report": {"core", "results", "series", "explain"},
    "compare": {"core", "results", "series", "explain", "report"},
    "targets": {"core", "plan", "rig", "measure", "series", "results"},
    "capacity": {"core", "results", "series", "explain"},
    "cli": {"core", "plan", "rig", "measure", "series", "results", "explain", "report", "compare", "targets",
            "capacity"},
}
STAGES = tuple(ALLOWED)
MAX_LINES = 400
MAX_IMPORTED = 14


def modules() -> dict[str, Path]:
    """Every module of the harness by dotted name (packages' __init__ as the package)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(path: Path, known: dict[str, Path]) -> set[str]:
    """The vtlab modules a file imports, at any depth (a function's import counts as much as a top-level one)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("vtlab"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                names.add(sub if sub in known else node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("vtlab"))
    return {n for n in names if n in known}


def stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in STAGES) else None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(path, known) - {name} for name, path in known.items()}


def test_every_module_sits_in_a_stage_package():
    loose = [n for n in modules() if stage(n) not in STAGES and n not in ("vtlab", "vtlab.__main__")]
    assert not loose, f"modules outside the stage packages: {loose}"


def test_no_module_is_longer_than_it_can_be_read(graph):
    long = {n: len(p.read_text().splitlines()) for n, p in modules().items()}
    assert not {n: lines for n, lines in long.items() if lines > MAX_LINES}


def test_no_module_leans_on_too_many_others(graph):
    assert not {n: len(deps) for n, deps in graph.items() if len(deps) > MAX_IMPORTED}


def test_data_flows_one_way(graph):
    back = sorted(f"{n} -> {d}" for n, deps in graph.items() for d in deps
                  if stage(d) != stage(n) and stage(n) in ALLOWED and stage(d) not in ALLOWED[stage(n)])
    assert not back


def test_no_import_circle(graph):
    # depth-first with colours: a grey module met again closes a circle
    colour: dict[str, str] = {}
    circles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        colour[node] = "grey"
        for dep in sorted(graph[node]):
            if colour.get(dep) == "grey":
                circles.append(trail[trail.index(dep):] + [dep])
            elif dep not in colour:
                visit(dep, [*trail, dep])
        colour[node] = "black"

    for start in sorted(graph):
        if start not in colour:
            visit(start, [start])
    assert not circles


def test_the_rules_catch_what_they_guard(tmp_path):
    """The checker itself on a made-up file: a report module reaching into the rig is found."""
    fake = tmp_path / "x.py"
    fake.write_text("from vtlab.rig import procs\nfrom vtlab.explain import model\n")
    known = {"vtlab.rig.procs": fake, "vtlab.explain.model": fake}
    assert imported(fake, known) == {"vtlab.rig.procs", "vtlab.explain.model"}
    assert stage("vtlab.rig.procs") == "rig" and "rig" not in ALLOWED["report"]
