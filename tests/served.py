"""The site as ``make serve`` runs it, for tests: ``manage.py serve`` on the services given, its
log kept, every process it started stopped with it (its children die with it)."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.private_services import free_ports

ROOT = Path(__file__).resolve().parents[1]


def database_url(settings_dict: Mapping[str, Any]) -> str:
    """The URL of a database Django is connected to (the test database, say), for a server
    process to use."""
    user, password, host = (
        urllib.parse.quote(str(settings_dict[key] or "")) for key in ("USER", "PASSWORD", "HOST")
    )
    port, name = settings_dict["PORT"] or 5432, settings_dict["NAME"]
    return f"postgres://{user}:{password}@{host}:{port}/{name}"


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    # Before the server listens, a connection to a port in the ephemeral range can meet itself
    # (TCP's simultaneous open) and read back its own request: not an answer either.
    except (OSError, http.client.HTTPException):
        return False


@dataclass
class Served:
    """``manage.py serve`` running: its shared address and each Daphne process's own."""

    process: subprocess.Popen[bytes]
    url: str
    own_urls: list[str]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextmanager
def served(
    *, database_url: str, redis_url: str, processes: int = 2, **env: str
) -> Iterator[Served]:
    """``manage.py serve`` with ``processes`` Daphne processes on a free port, on these services;
    its output (Daphne's access log among it) in a file. Stopped on leaving, its log shown then."""
    port = free_ports(processes + 1)
    environment = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "PYTHONUNBUFFERED": "1",
        **env,
    }
    environment.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # the browser tests' own, not the site's
    with tempfile.NamedTemporaryFile(prefix="served-", suffix=".log") as log_file:
        process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "serve",
                "--port",
                str(port),
                "--processes",
                str(processes),
            ],
            cwd=ROOT,
            env=environment,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
        site = Served(
            process,
            f"http://127.0.0.1:{port}",
            [f"http://127.0.0.1:{port + n}" for n in range(1, processes + 1)],
            Path(log_file.name),
        )
        try:
            deadline = time.monotonic() + 60
            while not all(answers(url + "/") for url in site.own_urls):
                assert process.poll() is None, "the served processes did not start\n" + site.log()
                assert time.monotonic() < deadline, "the served processes did not answer in 60 s"
                time.sleep(0.2)
            yield site
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            print(site.log()[-6000:])  # shown by pytest when the test failed
