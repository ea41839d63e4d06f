"""``manage.py serve``'s supervisor: a child that exits is started again, and every child is
stopped with it."""

import os
import signal
import sys
import threading
import time

from yourtrumps_site.serving.supervisor import Child, supervise


def test_a_child_that_exits_is_started_again_and_all_are_stopped_on_sigterm():
    quitter = Child("quitter", [sys.executable, "-c", "raise SystemExit(3)"])
    sleeper = Child("sleeper", [sys.executable, "-c", "import time; time.sleep(60)"])
    said, warned = [], []

    def stop_once_restarted() -> None:
        deadline = time.monotonic() + 20
        while quitter.restarts < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    threading.Thread(target=stop_once_restarted, daemon=True).start()
    try:
        supervise([quitter, sleeper], dict(os.environ), say=said.append, warn=warned.append)
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    assert quitter.restarts >= 1 and "quitter exited with 3: starting it again" in warned
    assert sleeper.restarts == 0 and sleeper.process is not None
    assert sleeper.process.returncode == -signal.SIGTERM
    assert said == ["Stopping…"]
