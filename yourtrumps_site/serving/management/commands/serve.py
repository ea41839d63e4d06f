"""``manage.py serve``: the scaled set-up on one address, several Daphne processes and task workers.

Why no reverse proxy: this command opens the listening socket itself, once per
Daphne process, each with ``SO_REUSEPORT`` on the same address, and hands each
process its own (``daphne --fd``). The kernel then spreads new connections over
the processes by their addresses, with no extra hop, no extra package to
install and nothing to configure. Each process also listens on an address of
its own (``--port`` + 1, + 2, ...), so that a load test can put the two players
of a game on different processes on purpose.

The processes share PostgreSQL (``DATABASE_URL``) and Redis (``REDIS_URL``):
with the in-memory channel layer a move would reach only the sockets of the
process that took it, so several processes need Redis. The task workers
(``manage.py db_worker``, one per queue) run the computer's replies and the
analyses; the web processes start none of their own (``TASK_WORKER=external``).

This command supervises them all (:mod:`yourtrumps_site.serving.supervisor`).
"""

from __future__ import annotations

import os
import socket
import sys
from argparse import ArgumentParser
from typing import Any

from channels.layers import InMemoryChannelLayer
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string

from yourtrumps_site.serving.listen import BACKLOG, listening_socket
from yourtrumps_site.serving.supervisor import Child, supervise
from yourtrumps_site.serving.workers import QUEUES

#: Seconds a socket's handshake may wait for its consumer to accept it (Daphne's default is 5).
WEBSOCKET_CONNECT_TIMEOUT = 30


class Command(BaseCommand):
    help = (
        "Serve the site with several Daphne processes on one address, plus task workers. Run "
        "`migrate` and `collectstatic --noinput` first: with DEBUG=false every page answers 500 "
        "until the static files are collected (make serve runs both)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--processes", type=int, default=os.cpu_count() or 2, help="Daphne processes"
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="task workers per queue (computer, analysis, clock)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        processes, workers = options["processes"], options["workers"]
        if processes < 1 or workers < 0:
            raise CommandError("--processes must be at least 1 and --workers at least 0")
        layer = import_string(settings.CHANNEL_LAYERS["default"]["BACKEND"])
        if processes > 1 and issubclass(layer, InMemoryChannelLayer):
            raise CommandError(
                "Several processes need a shared channel layer: set REDIS_URL "
                "(redis://127.0.0.1:6379/0), or serve with --processes 1."
            )
        host, port = options["host"], options["port"]
        # The sockets stay open here too: a Daphne started again gets its own back, and
        # connections that arrive meanwhile wait in its queue rather than being refused.
        sockets = [listening_socket(host, port) for _ in range(processes)]
        children = [self._daphne(n, sock, host, port) for n, sock in enumerate(sockets, 1)]
        children += [
            Child(
                f"worker {queue} {n}",
                self._manage("db_worker", "--no-reload", "--queue-name", queue),
            )
            for queue in QUEUES
            for n in range(1, workers + 1)
        ]
        own = ", ".join(f"http://{host}:{port + n}/" for n in range(1, processes + 1))
        self.stdout.write(
            f"Serving http://{host}:{port}/ with {processes} Daphne processes (each also on "
            f"{own}) and {workers * len(QUEUES)} task workers; Ctrl-C stops them all."
        )
        env = {**os.environ, "TASK_WORKER": "external"}
        supervise(children, env, say=self.stdout.write, warn=self.stderr.write)

    def _daphne(self, number: int, sock: socket.socket, host: str, port: int) -> Child:
        argv = [
            sys.executable, "-m", "daphne", "--fd", str(sock.fileno()),
            "-e", f"tcp:port={port + number}:interface={host}:backlog={BACKLOG}",
            # Daphne resets a socket its application has not accepted within 5 s: under a crowd
            # opening its sockets at once, each reset comes back as a reconnection, and the
            # load that caused it grows. A slow accept is better than a storm.
            "--websocket_connect_timeout", str(WEBSOCKET_CONNECT_TIMEOUT),
            "--proxy-headers", "yourtrumps_site.asgi:application",
        ]  # fmt: skip
        return Child(f"daphne {number}", argv, fds=(sock.fileno(),))

    def _manage(self, *command: str) -> list[str]:
        return [sys.executable, str(settings.BASE_DIR / "manage.py"), *command]
