"""`vtlab doctor`: what on this machine would bend the numbers or stop a run, each with the command that fixes it.

Every `vtlab run` runs it too, before any tier starts (ports are checked while they are still free),
prints the warnings and keeps every finding in metadata.json beside the rows it may explain.
"""

from __future__ import annotations

import glob
import resource
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from vtlab.rig import ownership, prereqs, procs, services
from vtlab.core.settings import APP_HOST, APP_PORT, PG_HOST, PG_PORT, RESULTS, STUB_HOST, STUB_PORT

OK, WARN, INFO = "ok", "warning", "info"
# Each user holds one socket in k6 and two in the service, each process within its own limit: its request's
# connection in and, for the whole of the downstream call, one out over HTTP/1.1 (a structured fan-out's two calls
# hold a third; over HTTP/2 the calls share a few connections); the rest covers the JVM's jars, JFR and the pool.
# Measured at 10,000 users under a limit of 20,000: the service held 19,999, failed connections with "Too many open
# files" and could not answer the rig's scrapes.
FILES_PER_USER = {"http1": 2, "http2": 1}
FD_HEADROOM = 1024
# Per row: a JFR recording, the k6 summary and logs (a quick run's rows take 1-3 MB); ten times that
# plus room for the database's written orders, so a long matrix never stops on a full disk.
DISK_PER_ROW_MB = 30
DISK_BASE_MB = 500


@dataclass(frozen=True)
class Finding:
    status: str    # ok, warning or info
    topic: str
    found: str     # what was seen
    meaning: str   # what it means for the numbers ("" when ok)
    fix: str       # the one command that fixes it ("" when nothing to fix)

    def line(self) -> str:
        text = f"[{self.status:>7}] {self.topic}: {self.found}"
        if self.meaning:
            text += f"\n          {self.meaning}"
        if self.fix:
            text += f"\n          fix: {self.fix}"
        return text


def examine(max_users: int, rows: int, pg_running: bool, option_sets: tuple[tuple[str, ...], ...] = ((),),
            downstream_http: str = "http1", burst: int = 0) -> list[Finding]:
    """Every check; `max_users`, `rows`, the service's JVM `option_sets` (one per --jvm-opts), how it calls the stub
    (`downstream_http`) and the most users that connect within a second (`burst`) come from the plan about to run (or
    the default one)."""
    return [*_toolchains(), open_files(max_users, downstream_http), accept_backlog(max_users, burst),
            heaps(max_users, option_sets),
            *cpu_frequency(), free_disk(rows),
            *ports(pg_running), other_harnesses()]


def warnings(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.status == WARN]


def record(findings: list[Finding]) -> list[dict[str, str]]:
    return [asdict(f) for f in findings]


# --- toolchains ---------------------------------------------------------------------------------

def _toolchains() -> list[Finding]:
    checks: list[tuple[str, Callable[[], Path], list[str]]] = [
        ("JDK", lambda: prereqs.find_jdk().java, ["-version"]),
        ("Maven", prereqs.find_maven, ["-B", "-v"]),
        ("Go", prereqs.find_go, ["version"]),
        ("PostgreSQL", lambda: prereqs.find_pg_bin() / "postgres", ["--version"]),
    ]
    return [_toolchain(topic, find, argv) for topic, find, argv in checks]


def _toolchain(topic: str, find: Callable[[], Path], version_argv: list[str]) -> Finding:
    try:
        tool = find()
    except prereqs.MissingPrerequisite as missing:
        return Finding(WARN, topic, "not found", "vtlab cannot build or run without it", str(missing))
    try:
        out = subprocess.run([str(tool), *version_argv], capture_output=True, text=True, timeout=30)
        version = (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        version = "version unknown"
    return Finding(OK, topic, f"{tool} ({version})", "", "")


# --- limits the load runs into ------------------------------------------------------------------

def open_files_needed(max_users: int, downstream_http: str = "http1") -> int:
    """The open files the service needs for the plan's largest row (the tier that needs the most)."""
    return max_users * FILES_PER_USER[downstream_http] + FD_HEADROOM


def raise_open_files_limit(need: int) -> None:
    """Lift the soft limit on open files to the hard one, and both to `need` where this process may (root, or
    CAP_SYS_RESOURCE; never beyond the kernel's fs.nr_open); the tiers inherit it. Asking costs nothing."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        ceiling = _read_int("/proc/sys/fs/nr_open") or need
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, ceiling), min(need, ceiling)))
            return
        except (ValueError, OSError):
            pass  # not allowed: the soft limit still goes up to the hard one, and open_files() warns
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass


def open_files(max_users: int, downstream_http: str = "http1") -> Finding:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = open_files_needed(max_users, downstream_http)
    found = (f"{soft} per process (tiers inherit it); the plan's largest row has {max_users} users, the service "
             f"needing ~{need} (" + ("one connection in and one out per user" if downstream_http == "http1" else
                                     "one connection in per user: its calls out share a few HTTP/2 connections")
             + ")")
    if soft != resource.RLIM_INFINITY and soft < need:
        return Finding(WARN, "open files", found,
                       "k6 or the service will fail connections with 'too many open files': errors, not a wall",
                       f"ulimit -n {max(need, 65536)}  (or raise nofile in /etc/security/limits.conf)"
                       + ("; or --downstream-http http2 (a file per user)" if downstream_http == "http1" else ""))
    return Finding(OK, "open files", found, "", "")


def accept_backlog(max_users: int, burst: int, somaxconn_path: str = "/proc/sys/net/core/somaxconn") -> Finding:
    """The kernel caps every accept queue at net.core.somaxconn; vtlab's service asks for one that holds every user
    connecting at once (services.connection_limits). Only users connecting faster than the service accepts them
    queue: the plan's largest `burst` in a second (its ramp's users a second, a spike's step) is what must fit."""
    somaxconn = _read_int(somaxconn_path)
    if somaxconn is None:
        return Finding(INFO, "listen backlog", "net.core.somaxconn not readable", "", "")
    _, asked = services.connection_limits(max_users)
    found = (f"net.core.somaxconn {somaxconn}; the service asks for an accept queue of {asked} ({max_users} users); "
             f"the plan connects at most {burst} users within a second")
    if somaxconn < burst:
        return Finding(WARN, "listen backlog", found,
                       f"more than {somaxconn} users connecting at once overflow the queue: their connects are dropped "
                       "and retried a second or more later, stalls and errors that the service's threads did not "
                       "cause (the row counts them as listen_overflows)",
                       f"sysctl -w net.core.somaxconn={min(asked, max(burst, somaxconn * 2))}  (or a longer --ramp)")
    return Finding(OK, "listen backlog", found, "", "")


def heaps(max_users: int, option_sets: tuple[tuple[str, ...], ...]) -> Finding:
    """The heap check of each JVM option set the plan measures: the first set that warns, else the first set's."""
    found = [heap(max_users, options) for options in option_sets or ((),)]
    return next((finding for finding in found if finding.status == WARN), found[0])


def heap(max_users: int, jvm_opts: tuple[str, ...]) -> Finding:
    """The heap the plan's largest row needs against the one --jvm-opts sets (the last -Xmx wins, as in the JVM):
    vtlab's service holds ~150 KB live per waiting request (services.HEAP_KB_PER_WAITING_REQUEST, measured), and
    sizes its heap to the users unless an -Xmx says otherwise."""
    sizes = [_bytes(option[4:]) for option in jvm_opts if option.startswith("-Xmx")]
    live = services.live_heap_mb(max_users)
    sized = services.service_heap_mb(max_users)
    if not sizes or sizes[-1] is None:
        return Finding(OK, "heap", f"vtlab's service sized to {sized} MB for {max_users} users (~{live:,.0f} MB live; "
                       "a --service jar runs with -Xmx1g unless --jvm-opts sets it)", "", "")
    given = sizes[-1] / 2**20
    found = f"--jvm-opts sets -Xmx to {given:,.0f} MB; {max_users} users keep ~{live:,.0f} MB live in vtlab's service"
    if live > services.HEAP_LIVE_SHARE * given:
        return Finding(WARN, "heap", found,
                       f"the live set above {services.HEAP_LIVE_SHARE:.0%} of the heap: the collector runs most of the "
                       "time or the heap runs out (the row is named out-of-memory, not measured)",
                       f"--jvm-opts=-Xmx{sized}m  (or leave -Xmx out: vtlab sizes it to the row)")
    return Finding(OK, "heap", found, "", "")


def _bytes(size: str) -> float | None:
    """A JVM size (512m, 4g, 1048576k, 2097152) in bytes; None where it is not one."""
    units = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
    unit = units.get(size[-1:].lower(), 1)
    digits = size[:-1] if size[-1:].lower() in units else size
    return float(digits) * unit if digits.isdigit() else None


def cpu_frequency(root: str = "/sys/devices/system/cpu") -> list[Finding]:
    governors = sorted({Path(p).read_text().strip() for p in glob.glob(f"{root}/cpu[0-9]*/cpufreq/scaling_governor")})
    if not governors:
        findings = [Finding(INFO, "CPU frequency", "no cpufreq governor readable (a VM or container: the host decides)",
                            "clock changes outside vtlab's view are one reason two machines of one kind differ", "")]
    elif governors != ["performance"]:
        findings = [Finding(WARN, "CPU frequency", f"governor {', '.join(governors)}",
                            "the clock follows the load: the first seconds of a row and a light row run slower",
                            "cpupower frequency-set -g performance")]
    else:
        findings = [Finding(OK, "CPU frequency", "governor performance", "", "")]
    no_turbo, boost = _read_int(f"{root}/intel_pstate/no_turbo"), _read_int(f"{root}/cpufreq/boost")
    if no_turbo == 0 or boost == 1:
        fix = (f"echo 1 > {root}/intel_pstate/no_turbo" if no_turbo == 0 else f"echo 0 > {root}/cpufreq/boost")
        findings.append(Finding(WARN, "turbo", "on", "the clock depends on temperature and on how many cores are busy: "
                                "rows differ with the weather of the machine", fix))
    return findings


def free_disk(rows: int) -> Finding:
    folder = next(p for p in (RESULTS, *RESULTS.parents) if p.exists())
    free_mb = shutil.disk_usage(folder).free / 2**20
    need_mb = DISK_BASE_MB + rows * DISK_PER_ROW_MB
    found = f"{free_mb:,.0f} MB free under {folder}; {rows} rows want ~{need_mb:,} MB"
    if free_mb < need_mb:
        return Finding(WARN, "disk", found, "a full disk stops the run mid-way (the rows before stay in the CSV)",
                       f"free space under {folder}, or run with --out on a larger disk")
    return Finding(OK, "disk", found, "", "")


# --- what else is on the machine --------------------------------------------------------------------

def ports(pg_running: bool) -> list[Finding]:
    wanted = [("the service", APP_HOST, APP_PORT, "VTLAB_APP_PORT"),
              ("the stub", STUB_HOST, STUB_PORT, "VTLAB_STUB_PORT")]
    if not pg_running:  # vtlab's own PostgreSQL, already up, holds its port rightly
        wanted.append(("PostgreSQL", PG_HOST, PG_PORT, "VTLAB_PG_PORT"))
    findings = []
    for tier, host, port, variable in wanted:
        if procs.port_in_use(port, host):
            findings.append(Finding(WARN, f"port {port}", f"taken on {host} ({tier} needs it)",
                                    "the run cannot start that tier",
                                    f"stop what listens there (ss -ltnp 'sport = :{port}') "
                                    f"or choose another port: export {variable}=PORT"))
        else:
            findings.append(Finding(OK, f"port {port}", f"free for {tier}", "", ""))
    return findings


def other_harnesses() -> Finding:
    running = ownership.running_harnesses()
    if running:
        listed = "; ".join(f"pid {pid}: {', '.join(tiers) or 'no tier yet'}" for pid, tiers in running)
        return Finding(WARN, "other vtlab runs", listed,
                       "two runs on one machine share its CPU: both measure each other",
                       "wait for it, or stop it (kill PID; its tiers stop with it)")
    return Finding(OK, "other vtlab runs", "none (tiers a killed run left are stopped by every vtlab call)", "", "")


def _read_int(path: str) -> int | None:
    try:
        return int(Path(path).read_text().strip())
    except (OSError, ValueError):
        return None
