"""A database that died during a row is started again for the next, once PostgreSQL's own status has caught up
with its death (a killed postmaster's pid outlives it until its parent reaps it)."""


from vtlab.measure import tiers


class Server:
    """A PostgreSQL whose status says running for `stale` more calls after its death."""

    def __init__(self, stale: int):
        self.stale, self.started = stale, 0

    def running(self) -> bool:
        self.stale -= 1
        return self.stale >= 0

    def start(self, cpus=None) -> bool:
        self.started += 1
        return True

    def postmaster_pid(self) -> int:
        return 4242


def rig(server: Server) -> tiers.Rig:
    made = tiers.Rig.__new__(tiers.Rig)
    made.pg, made.stub, made.toxiproxy, made.core_map = server, None, None, {"pg": None}
    return made


def test_a_dead_database_is_started_again_once_its_status_says_so(monkeypatch):
    monkeypatch.setattr(tiers.time, "sleep", lambda seconds: None)
    late = Server(stale=3)  # the status still said "running" three times after the kill
    rig(late).revive(tiers.DATABASE, keep=False)
    assert late.started == 1


def test_a_database_whose_status_never_clears_is_left_be(monkeypatch):
    monkeypatch.setattr(tiers, "DEAD_SERVER_WAIT_S", 0.05)
    alive = Server(stale=10**9)
    rig(alive).revive(tiers.DATABASE, keep=False)
    assert alive.started == 0  # the next row shows whether it serves
