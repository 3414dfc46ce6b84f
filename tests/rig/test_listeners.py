"""The process listening on a local port, found from /proc: a user's database on loopback is measured as a tier."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from vtlab.rig import listeners
from vtlab.targets.userservice import loopback_port

# /proc/net/tcp as the kernel writes it: one socket listening on 127.0.0.1:5432 (0x1538), one connected from it
TABLE = """  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000   104        0 41234 1 0000 100 0 0 10 0
   1: 0100007F:1538 0100007F:D0A2 01 00000000:00000000 00:00000000 00000000   104        0 41999 1 0000 20 4 30 10 -1
"""


def test_only_a_listening_socket_on_the_port_is_found():
    assert listeners.listening_inodes(TABLE, 5432) == {41234}
    assert listeners.listening_inodes(TABLE, 5433) == set()


def test_the_process_that_listens_is_found_and_nothing_where_none_does():
    child = subprocess.Popen([sys.executable, "-c", "import socket, time\n"
                              "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
                              "print(s.getsockname()[1], flush=True); time.sleep(60)"],
                             stdout=subprocess.PIPE, text=True)
    try:
        port = int(child.stdout.readline())
        assert listeners.listening_pid(port) == child.pid
    finally:
        child.kill()
        child.wait()
    deadline = time.monotonic() + 5
    while listeners.listening_pid(port) is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert listeners.listening_pid(port) is None
    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        assert listeners.listening_pid(unused.getsockname()[1]) is None


def test_a_database_url_on_loopback_names_its_port_and_a_remote_one_none():
    assert loopback_port("jdbc:postgresql://127.0.0.1:56825/vtlab") == 56825
    assert loopback_port("jdbc:postgresql://localhost/things?sslmode=disable") == 5432  # the default port
    assert loopback_port("jdbc:mysql://[::1]:3307/shop") == 3307
    assert loopback_port("jdbc:postgresql://db.internal:5432/things") is None
    assert loopback_port("jdbc:h2:mem:test") is None
