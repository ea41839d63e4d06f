"""A process supervisor for ``manage.py serve``: a child that dies is started again, and every
child dies with the supervisor, even on ``kill -9`` (the kernel's parent-death signal)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

from yourtrumps_site.serving.parent_death import signal_on_parent_death


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the supervisor dies, however it dies."""
    signal_on_parent_death(signal.SIGTERM)


@dataclass
class Child:
    """One supervised process: what it is, how to start it, and the process running now."""

    name: str
    argv: list[str]
    fds: tuple[int, ...] = ()
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    restarts: int = 0

    def start(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            self.argv, pass_fds=self.fds, env=env, preexec_fn=_die_with_parent
        )
        self.started = time.monotonic()


def supervise(
    children: list[Child],
    env: dict[str, str],
    say: Callable[[str], object],
    warn: Callable[[str], object],
) -> None:
    """Start ``children`` with ``env`` and start each again when it exits, until SIGINT or
    SIGTERM; then stop them all (SIGTERM, then SIGKILL after 10 s)."""
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    for child in children:
        child.start(env)
    try:
        while not stopping:
            time.sleep(0.5)
            for child in children:
                assert child.process is not None
                code = child.process.poll()
                if code is None or stopping:
                    continue
                # A child that keeps dying at once is waited for a little, not spun.
                if time.monotonic() - child.started < 5:
                    time.sleep(min(5.0, 0.5 * 2**child.restarts))
                child.restarts += 1
                warn(f"{child.name} exited with {code}: starting it again")
                child.start(env)
    finally:
        say("Stopping…")
        for child in children:
            if child.process and child.process.poll() is None:
                child.process.terminate()
        deadline = time.monotonic() + 10
        for child in children:
            if child.process is None:
                continue
            try:
                child.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
