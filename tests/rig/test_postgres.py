"""The embedded PostgreSQL, for real: a throwaway cluster with the project's own lifecycle."""

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from vtlab.rig import postgres, procs


@pytest.fixture(scope="module")
def cluster():
    workdir = Path(tempfile.mkdtemp(prefix="vtlab-", dir="/tmp"))
    workdir.chmod(0o755)
    pg = postgres.Postgres(workdir / "pgdata", procs.free_port())
    try:
        assert pg.start() is True
        yield pg
    finally:
        pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def test_listens_on_loopback_with_password_auth_only(cluster):
    hba = [line.split() for line in (cluster.data_dir / "pg_hba.conf").read_text().splitlines()
           if line.strip() and not line.startswith("#")]
    assert hba and all(line[-1] == "scram-sha-256" for line in hba)
    assert cluster.query("SHOW listen_addresses") == "127.0.0.1"
    assert cluster.query("SHOW password_encryption") == "scram-sha-256"
    wrong = subprocess.run([str(cluster.psql), "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "vtlab",
                            "-d", "vtlab", "-c", "select 1"], env={**os.environ, "PGPASSWORD": "wrong"},
                           capture_output=True, text=True)
    assert wrong.returncode != 0 and "password authentication failed" in wrong.stderr


def test_runs_as_an_unprivileged_user(cluster):
    owner = Path(f"/proc/{cluster.postmaster_pid()}").stat().st_uid
    assert owner != 0


def test_seed_is_idempotent_and_exact(cluster):
    cluster.seed(customers=100, orders=1000)
    assert cluster.seeded(customers=100, orders=1000)
    cluster.seed(customers=100, orders=1000)
    assert cluster.query("SELECT count(*) || ',' || max(id) FROM orders") == "1000,1000"
    assert cluster.query("SELECT count(*) FROM orders o LEFT JOIN customers c ON c.id = o.customer_id "
                         "WHERE c.id IS NULL") == "0"
    assert cluster.query("SELECT count(*) FROM pg_indexes WHERE indexname = 'orders_customer_id_idx'") == "1"
    # the foreign key the seed made once its rows were in, as sql/schema.sql declares it
    assert cluster.query("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = "
                         "'orders_customer_id_fkey'") == "FOREIGN KEY (customer_id) REFERENCES customers(id)"
    with pytest.raises(subprocess.CalledProcessError):
        cluster.query("INSERT INTO orders VALUES (5000, 101, 'NEW', 1, 'EUR', 1, now())")  # customer 101: none
    assert not cluster.seeded()  # the default 1M orders are not there


def test_a_users_service_gets_a_fresh_database_of_its_own_on_every_call(cluster):
    first = cluster.fresh_database("service")
    assert (first.user, first.database) == ("service", "service") and first.password != cluster.credentials().password
    assert (cluster.data_dir / "service-password").stat().st_mode & 0o777 == 0o600

    def as_service(sql: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(cluster.psql), "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "service", "-d",
                               "service", "-tAc", sql], env={**os.environ, "PGPASSWORD": first.password},
                              capture_output=True, text=True)

    assert as_service("CREATE TABLE things (id int); INSERT INTO things VALUES (1)").returncode == 0
    assert cluster.query("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname = 'service'") == "t"
    again = cluster.fresh_database("service")
    assert again == first  # the same role and password, and nothing of the last row's data
    assert as_service("SELECT count(*) FROM pg_tables WHERE tablename = 'things'").stdout.strip() == "0"


def test_start_is_idempotent_and_stop_frees_the_port(cluster):
    assert cluster.start() is False
    assert procs.port_in_use(cluster.port)


def test_stop_leaves_no_server(tmp_path):
    workdir = Path(tempfile.mkdtemp(prefix="vtlab-", dir="/tmp"))
    workdir.chmod(0o755)
    pg = postgres.Postgres(workdir / "pgdata", procs.free_port())
    try:
        pg.start()
        pid = pg.postmaster_pid()
        pg.stop()
        assert not procs.port_in_use(pg.port)
        deadline = time.monotonic() + 10  # init reaps the detached postmaster a moment later
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not Path(f"/proc/{pid}").exists()
    finally:
        pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)
