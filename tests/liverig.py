"""The live tests' rig: each module's own cluster, ports and results folder, the processes a run leaves (none),
and a run's report as a person sees it in Chromium. Shared by the full live proofs (tests/e2e/) and the smoke."""

from __future__ import annotations

import contextlib
import csv
import http.server
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import browser

from vtlab.rig import procs

REPO = Path(__file__).resolve().parents[1]
BOOT3_APP = REPO / "tests" / "fixtures" / "boot3-app"


def boot3_jar() -> Path:
    """The Spring Boot 3 fixture's jar (tests/fixtures/boot3-app), built with vtlab's Maven where its sources are
    newer than it: a user's service as most are today, for the smoke only."""
    from vtlab.rig import build, prereqs

    jar = BOOT3_APP / "target" / "boot3-fixture.jar"
    sources = [path for path in BOOT3_APP.rglob("*") if path.is_file() and "target" not in path.parts]
    if not jar.exists() or jar.stat().st_mtime < max(path.stat().st_mtime for path in sources):
        subprocess.run([str(prereqs.find_maven()), "-B", "-q", "-f", str(BOOT3_APP / "pom.xml"), "-DskipTests",
                        "package"], env=build.maven_env(), check=True)
    return jar


def isolated_rig(extra: dict[str, str] | None = None):
    """The environment of a module's runs: its own cluster, ports and results folder (plus `extra`), removed after."""
    # Outside pytest's own temp root: the unprivileged database user must reach the data folder, and any other
    # pytest on the machine resets that root to mode 700 (and deletes all but its 3 newest folders).
    base = Path(tempfile.mkdtemp(prefix="vtlab-e2e-", dir="/tmp"))
    os.chmod(base, 0o755)
    env = {**os.environ, "VTLAB_PGDATA": str(base / "vtlab-e2e" / "pgdata"),
           "VTLAB_PG_PORT": str(procs.free_port()), "VTLAB_APP_PORT": str(procs.free_port()),
           "VTLAB_STUB_PORT": str(procs.free_port()), "VTLAB_RESULTS": str(base / "results"),
           "VTLAB_STATE": str(base / "state"), "VTLAB_MEMORY": str(base / "memory"), **(extra or {})}
    yield env
    # the cluster's data persists between runs by design; the test removes its own
    subprocess.run([str(REPO / "vtlab"), "db", "stop"], env=env, capture_output=True)
    shutil.rmtree(base, ignore_errors=True)


def rows_of(run_dir: Path) -> list[dict[str, str]]:
    with open(run_dir / "matrix.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def assert_nothing_left(env: dict[str, str], run_dir: Path) -> None:
    for name in ("VTLAB_PG_PORT", "VTLAB_APP_PORT", "VTLAB_STUB_PORT"):
        assert not procs.port_in_use(int(env[name])), f"{name} still bound"
    leftovers = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if (str(run_dir) in cmdline or env["VTLAB_PGDATA"] in cmdline or "load/orders.js" in cmdline
                    or "toxiproxy-server" in cmdline):
                leftovers.append(cmdline)
    assert not leftovers, leftovers


def assert_opens_in_chromium(run_dir: Path, rows: list[dict[str, str]]) -> None:
    """As a person sees it: Chromium renders each row's time chart with its hover values, one overlay of the
    thread modes per scenario, and each linked k6 dashboard draws its own charts once its script ran. Without
    Chromium the test is skipped with its reason (CI installs it and fails without it), never passed unlooked."""
    browser.require()
    from vtlab.core import dimensions

    profile = run_dir.parent / "chromium-profile"
    page = browser.dom(run_dir / "report.html", profile)
    for row in rows:
        slug = dimensions.slug(dimensions.parse(row))
        figure = page[page.index(f'<figure id="timeline-{slug}"'):]
        figure = figure[:figure.index("</figure>")]
        assert "<polyline" in figure and 'class="hover"' in figure, slug
        assert re.search(r"<title>\d+–\d+ s: successful/s \d", figure), slug  # a second's values on hover
        for link in re.findall(r'href="(k6/[^"]+-dashboard\.html)"', figure):
            dashboard = browser.dom(run_dir / link, profile, budget_ms=5000)
            assert "<canvas" in dashboard and 'class="uplot' in dashboard, link  # k6's charts, drawn by its script
    if len({row["thread_mode"] for row in rows}) == len(rows) > 1:  # one scenario, measured in each mode
        overlay = page[page.index('<figure id="overlay-'):]
        assert all(f">{row['thread_mode']}</text>" in overlay[:overlay.index("</figure>")] for row in rows)


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (children, their children, ...), from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def wait_for_row(proc: subprocess.Popen, run_dir: Path, written: int, deadline: float) -> set[int]:
    """Wait until `written` rows are in the CSV and the next row's k6 is loading; the harness's tiers then."""
    tiers: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        written_now = len(rows_of(run_dir)) if (run_dir / "matrix.csv").exists() else 0
        tiers = descendants(proc.pid)
        if written_now == written and any("orders.js" in cmdline(pid) for pid in tiers):
            return tiers
        time.sleep(0.3)
    raise AssertionError(f"row {written + 1} never started loading")


def wait_for_turns(proc: subprocess.Popen, deadline: float) -> set[int]:
    """Wait until two k6 processes are loading at once (a paired point's arms in turns: measure.turns); the harness's
    tiers then."""
    while time.monotonic() < deadline and proc.poll() is None:
        tiers = descendants(proc.pid)
        if len([pid for pid in tiers if "orders.js" in cmdline(pid)]) == 2:
            return tiers
        time.sleep(0.3)
    raise AssertionError("the arms' k6 never took turns")


@contextlib.contextmanager
def answering(answer: Callable[[], tuple[int, bytes]]) -> Iterator[str]:
    """A service vtlab did not start, on a free loopback port: each GET answered with `answer()`'s status and JSON
    body (a thread a request); its base URL, for --url. Shut down on leaving."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802  (the handler's name is http.server's)
            status, body = answer()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # quiet: thousands of requests
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
