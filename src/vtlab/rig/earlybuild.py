"""k6's build begun by the launcher (./vtlab) while it makes .venv/ and installs vtlab's own Python packages, on a
first run.

Making the venv and pip's install keep one core busy for ~18 s and k6's build is the longest step before a new
machine's first row: begun beside them, the build has the other core. Only the standard library is imported here
(vtlab.rig.build is made of it): the packages are still being installed.

The launcher starts this in the background and then becomes the vtlab command (exec), so this process is that
command's child: it stops with it, however the command ends (the kernel's parent-death signal), and stops its build
with it (procs.stop_all). The command's own build_k6 waits for this one (build.K6_LOCK) and finds k6 built. A missing Go
or a failed build ends this silently (the launcher drops its stderr): the command tries again and says what is wrong.
"""

from __future__ import annotations

import sys
import threading

from vtlab.rig import build, procs


def main(parent: int) -> int:
    procs.install_signal_handlers()  # SIGTERM, and Ctrl-C at the terminal: the Go build stopped with this
    procs.stop_with_parent(parent)
    # The build in a thread, as tools() runs it: a signal's handler in the thread that waits on Go would find Go's
    # process locked by that wait, and wait out its grace and more (~15 s here, 2026-12-07) before it could stop it.
    building = threading.Thread(target=build.build_k6, name="vtlab-early-k6")
    building.start()
    building.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
