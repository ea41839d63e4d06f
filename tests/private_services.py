"""Redis and PostgreSQL of a test's own, to restart at will: never the machine's, which others use.

:class:`PrivateRedis` runs ``redis-server`` on a free loopback port with nothing saved to disk;
:class:`PrivatePostgres` makes a throwaway cluster with Debian's ``initdb`` and runs it with
``pg_ctl`` (as the ``postgres`` user when the tests run as root, as in CI). Each is a context
manager that stops what it started; :func:`redis_missing` and :func:`postgres_missing` say why
a test cannot have one (for ``pytest.mark.skipif``).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Self

REDIS_SERVER = shutil.which("redis-server")
#: Debian's PostgreSQL programs, the newest release installed.
PG_BIN = next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)), None)
RUNUSER = shutil.which("runuser")


def free_ports(count: int = 1) -> int:
    """The first of ``count`` consecutive ports free on loopback now."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = probe.getsockname()[1]
        if first + count > 65535:
            continue
        held: list[socket.socket] = []
        try:
            for port in range(first, first + count):
                sock = socket.socket()
                held.append(sock)
                sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            for sock in held:
                sock.close()
        return first
    raise AssertionError("no free ports")


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def redis_missing() -> str | None:
    if REDIS_SERVER is None:
        return "redis-server is missing (apt-get install redis-server)"
    return None


class PrivateRedis:
    """``redis-server`` on a free port of its own, nothing kept on disk."""

    def __init__(self) -> None:
        self.port = free_ports()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert REDIS_SERVER is not None
        self._process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        self._wait_for(answering=True)

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(10)
            self._process = None

    def _wait_for(self, *, answering: bool) -> None:
        deadline = time.monotonic() + 10
        while _answers(self.port) is not answering:
            assert time.monotonic() < deadline, f"redis-server on {self.port} did not start"
            time.sleep(0.02)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _as_postgres() -> list[str]:
    """The prefix that runs a PostgreSQL program: as ``postgres`` when we are root (it refuses
    to run as root), else as ourselves."""
    return [RUNUSER, "-u", "postgres", "--"] if os.geteuid() == 0 and RUNUSER else []


def postgres_missing() -> str | None:
    if PG_BIN is None:
        return "PostgreSQL's programs are missing: apt-get install postgresql"
    if os.geteuid() == 0:
        if RUNUSER is None:
            return "runuser is missing: as root, PostgreSQL must run as the postgres user"
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "there is no postgres user to run PostgreSQL as (we are root)"
    return None


class PrivatePostgres:
    """A throwaway PostgreSQL cluster on a free port, trusting local connections, unsafe but fast
    (no fsync); the database ``site`` is made in it."""

    def __init__(self) -> None:
        self.port = free_ports()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/site"
        self._dir = Path(tempfile.mkdtemp(prefix="private-postgres-"))
        self._data = self._dir / "data"

    def _run(self, *argv: str, check: bool = True) -> None:
        assert PG_BIN is not None
        subprocess.run(
            [*_as_postgres(), f"{PG_BIN}/{argv[0]}", *argv[1:]],
            check=check,
            capture_output=True,
            cwd=self._dir,
        )

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self._dir} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run("pg_ctl", "-D", str(self._data), "-o", options, "-l", str(self._dir / "log"),
                  "-w", "start")  # fmt: skip

    def stop(self, *, check: bool = True) -> None:
        self._run("pg_ctl", "-D", str(self._data), "-m", "fast", "-w", "stop", check=check)

    def __enter__(self) -> Self:
        if _as_postgres():
            shutil.chown(self._dir, "postgres")
        self._run("initdb", "-D", str(self._data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "site")
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.stop(check=False)  # stopped already, if the test failed while it was down
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)
