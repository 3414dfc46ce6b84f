"""vtlab's own PostgreSQL instance: its own data folder, port and password, never a system cluster."""

from __future__ import annotations

import os
import pwd
import secrets
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from vtlab.rig import ownership, prereqs, procs
from vtlab.core.settings import DB_MAX_CONNECTIONS, PG_HOST, SQL

DB_NAME = "vtlab"
DB_USER = "vtlab"
SERVER_USER = "postgres"  # the unprivileged account PostgreSQL runs as when vtlab runs as root

SEED_CUSTOMERS = 100_000
SEED_ORDERS = 1_000_000
# Where the written_order_ids sequence of sql/schema.sql starts: every id from here on was written
# by the write workload, every id below was seeded.
WRITTEN_ID_START = 1_000_000_000_000

# Sized for the rig: pools of up to a few hundred connections, a read-mostly working set.
SERVER_SETTINGS = f"""
# --- vtlab ---
listen_addresses = '{{host}}'
port = {{port}}
unix_socket_directories = ''
password_encryption = 'scram-sha-256'
max_connections = {DB_MAX_CONNECTIONS}
shared_buffers = '256MB'
"""


@dataclass(frozen=True)
class Credentials:
    host: str
    port: int
    user: str
    password: str
    database: str

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.database}"

    def service_env(self) -> dict[str, str]:
        return {"DB_URL": self.jdbc_url, "DB_USER": self.user, "DB_PASSWORD": self.password}

    def env_file_text(self) -> str:
        return "".join(f"{key}={value}\n" for key, value in self.service_env().items())


class Postgres:
    """One cluster in `data_dir`, listening on PG_HOST (127.0.0.1 unless moved):`port`, scram-sha-256 auth only."""

    def __init__(self, data_dir: Path, port: int):
        self.bin = prereqs.find_pg_bin()
        self.psql = prereqs.find_psql(self.bin)
        self.data_dir = data_dir
        self.port = port
        # Kept with the cluster it unlocks, so two clusters can never mix their passwords.
        self.password_file = data_dir / "vtlab-password"
        self.log = data_dir / "server.log"

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def initialised(self) -> bool:
        return (self.data_dir / "PG_VERSION").exists() and self.password_file.exists()

    def credentials(self) -> Credentials:
        password = self.password_file.read_text().strip()
        return Credentials(PG_HOST, self.port, DB_USER, password, DB_NAME)

    def init(self) -> None:
        if self.initialised:
            return
        if self.data_dir.exists() and any(self.data_dir.iterdir()):
            raise RuntimeError(f"{self.data_dir} exists but holds no vtlab cluster; remove it first")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)
        password = secrets.token_urlsafe(24)
        with tempfile.TemporaryDirectory(prefix="vtlab-pw-") as tmp:
            pwfile = Path(tmp) / "pw"
            pwfile.write_text(password + "\n")
            self._give_to_server_user(Path(tmp), pwfile, self.data_dir.parent if self._owns_parent() else None,
                                      self.data_dir)
            self._run_as_server([str(self.bin / "initdb"), "-D", str(self.data_dir), "-U", DB_USER,
                                 "--pwfile", str(pwfile), "--auth=scram-sha-256", "-E", "UTF8",
                                 "--locale=C"])
        with open(self.data_dir / "postgresql.conf", "a") as conf:
            conf.write(SERVER_SETTINGS.format(host=PG_HOST, port=self.port))
        self.password_file.write_text(password + "\n")
        self.password_file.chmod(0o600)

    def running(self) -> bool:
        return self._run_as_server([str(self.bin / "pg_ctl"), "-D", str(self.data_dir), "status"],
                                   check=False).returncode == 0

    def start(self, cpus: set[int] | None = None) -> bool:
        """Start the server; returns False when it was already running (then we leave it be)."""
        self.init()
        if self.running():
            if not procs.port_in_use(self.port, PG_HOST):
                raise RuntimeError(f"vtlab's PostgreSQL runs, but not on {PG_HOST}:{self.port} (VTLAB_PG_HOST moved "
                                   "it); stop it first: ./vtlab db stop")
            return False
        if procs.port_in_use(self.port, PG_HOST):
            raise RuntimeError(f"port {self.port} on {PG_HOST} is taken by another process; "
                               "stop it or choose another port")
        # the address at every start, not only in the conf written at init: a cluster keeps working when
        # VTLAB_PG_HOST moves it
        argv = [str(self.bin / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.log), "-w", "-t", "60",
                "-o", f"-c listen_addresses={PG_HOST}", "start"]
        self._run_as_server(argv, cpus=cpus)
        # pg_ctl leaves the postmaster running on its own: no parent-death signal reaches it, the ledger does
        ownership.record("PostgreSQL", self.postmaster_pid(), group=False, stop_signal=signal.SIGINT)
        self._create_database()
        return True

    def stop(self) -> None:
        if self.initialised and self.running():
            pid = self.postmaster_pid()
            self._run_as_server([str(self.bin / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w",
                                 "stop"])
            ownership.release(pid)

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    # --- data ------------------------------------------------------------------------------

    def seed(self, customers: int = SEED_CUSTOMERS, orders: int = SEED_ORDERS) -> float:
        """Create the schema and (re)seed; returns the seconds it took."""
        started = time.monotonic()
        self.psql_file(SQL / "schema.sql")
        self.psql_file(SQL / "seed.sql", customers=customers, orders=orders)
        # written out now, before any row (the seed vacuumed and froze its tables): left to the server, the seed's
        # dirty pages (16,086 buffers, 270 MB of WAL here) were written by a timed checkpoint spread over 4.5 minutes
        # of a fresh clone's measured rows
        self.query("CHECKPOINT")
        return time.monotonic() - started

    def seeded(self, customers: int = SEED_CUSTOMERS, orders: int = SEED_ORDERS) -> bool:
        try:
            counts = self.query("SELECT (SELECT count(*) FROM customers) || ',' || (SELECT count(*) FROM orders)")
        except subprocess.CalledProcessError:
            return False
        return counts == f"{customers},{orders}"

    def max_seeded_order_id(self) -> int:
        return int(self.query(f"SELECT max(id) FROM orders WHERE id < {WRITTEN_ID_START}"))

    def max_customer_id(self) -> int:
        return int(self.query("SELECT max(id) FROM customers"))

    def written_orders(self) -> int:
        return int(self.query(f"SELECT count(*) FROM orders WHERE id >= {WRITTEN_ID_START}"))

    def discard_written_orders(self) -> None:
        """Back to the seeded data set, so every row reads the same 1M orders."""
        self.query(f"DELETE FROM orders WHERE id >= {WRITTEN_ID_START}")

    def fresh_database(self, name: str) -> Credentials:
        """An empty database `name` owned by a role of the same name (made once, its generated password kept 0600
        beside the cluster's): dropped and made again on every call, so each row starts from the same nothing."""
        password_file = self.data_dir / f"{name}-password"
        if not password_file.exists():
            password_file.write_text(secrets.token_urlsafe(24) + "\n")
            password_file.chmod(0o600)
        password = password_file.read_text().strip()
        self._admin(f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{name}') THEN "
                    f"CREATE ROLE {name} LOGIN; END IF; END $$")
        self._admin(f"ALTER ROLE {name} PASSWORD '{password}'")  # scram-sha-256: password_encryption
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self._admin(f"CREATE DATABASE {name} OWNER {name}")
        return Credentials(PG_HOST, self.port, name, password, name)

    def _admin(self, sql: str) -> None:
        # on standard input, not the command line: other local users can read a process's arguments
        result = subprocess.run([*self._psql_argv("postgres"), "-v", "ON_ERROR_STOP=1", "-q", "-f", "-"], input=sql,
                                env=self._psql_env(), capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"PostgreSQL refused a statement for the service's database: {result.stderr.strip()}")

    def query(self, sql: str, database: str = DB_NAME) -> str:
        result = subprocess.run([*self._psql_argv(database), "-tAc", sql], env=self._psql_env(),
                                capture_output=True, text=True, check=True)
        return result.stdout.strip()

    def psql_file(self, path: Path, **variables: int) -> None:
        argv = [*self._psql_argv(), "-v", "ON_ERROR_STOP=1", "-q"]
        for name, value in variables.items():
            argv += ["-v", f"{name}={value}"]
        result = subprocess.run([*argv, "-f", str(path)], env=self._psql_env(), capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"psql -f {path.name} failed: {result.stderr.strip()}")

    # --- helpers ---------------------------------------------------------------------------

    def _psql_argv(self, database: str = DB_NAME) -> list[str]:
        return [str(self.psql), "-h", PG_HOST, "-p", str(self.port), "-U", DB_USER, "-d", database, "-X"]

    def _psql_env(self) -> dict[str, str]:
        return {**os.environ, "PGPASSWORD": self.credentials().password, "PGCONNECT_TIMEOUT": "10"}

    def _create_database(self) -> None:
        exists = subprocess.run([*self._psql_argv("postgres"), "-tAc",
                                 f"SELECT 1 FROM pg_database WHERE datname = '{DB_NAME}'"],
                                env=self._psql_env(), capture_output=True, text=True, check=True)
        if exists.stdout.strip() != "1":
            subprocess.run([*self._psql_argv("postgres"), "-qc", f"CREATE DATABASE {DB_NAME}"],
                           env=self._psql_env(), capture_output=True, text=True, check=True)

    def _owns_parent(self) -> bool:
        # A folder made only for this cluster (e.g. /var/tmp/vtlab-*/) is handed over whole.
        return self.data_dir.parent.name.startswith("vtlab-")

    @staticmethod
    def _give_to_server_user(*paths: Path | None) -> None:
        if os.geteuid() != 0:
            return
        account = pwd.getpwnam(SERVER_USER)
        for path in paths:
            if path is not None:
                os.chown(path, account.pw_uid, account.pw_gid)

    @staticmethod
    def _run_as_server(argv: list[str], check: bool = True, cpus: set[int] | None = None
                       ) -> subprocess.CompletedProcess:
        def preexec() -> None:
            if cpus:
                os.sched_setaffinity(0, cpus)

        result = subprocess.run(procs.as_unprivileged(argv, SERVER_USER), capture_output=True, text=True,
                                preexec_fn=preexec, cwd="/")
        if check and result.returncode != 0:
            raise RuntimeError(f"{Path(argv[0]).name} failed ({result.returncode}): "
                               f"{(result.stderr or result.stdout).strip()}")
        return result


def main_instance() -> Postgres:
    """The persistent instance `vtlab run` and `vtlab db` use (127.0.0.1:5544)."""
    from vtlab.core.settings import PG_PORT, pg_data_dir

    return Postgres(pg_data_dir(), PG_PORT)


def write_env_file(credentials: Credentials, path: Path) -> None:
    """DB_URL/DB_USER/DB_PASSWORD for tools outside the harness (`set -a; . .vtlab/db.env`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(credentials.env_file_text())
    path.chmod(0o600)
