"""``manage.py fuzz``: send ten thousand and more malformed inputs to the site, in-process.

Every route of the URLconf, every form and the game's socket messages get the seeded inputs of
:mod:`tools.fuzz` (HTTP through Django's test client, sockets through Channels'
``WebsocketCommunicator`` on the in-memory layer), in a throwaway database created for the run
and dropped after it. The summary counts the answers by status; the exit code is 1 if any input
got a 500, crashed a consumer, or changed stored state although it was refused.

Why in-process rather than against a running server: a 500 comes back with the exception that
caused it, named beside the input's number, so a failure is found and replayed at once from its
seed; stored state is compared after every input, which a server's client could not do without
racing it; and no real database or server is at risk. The real servers' side (Daphne, sockets
over the network, several processes) is what ``manage.py loadtest`` exercises.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.test.utils import override_settings, setup_test_environment, teardown_test_environment

from tools import fuzz


class Command(BaseCommand):
    help = "Send seeded malformed inputs to every endpoint, form and socket message, in-process."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--inputs", type=int, default=10_000, help="how many (default 10000)")
        parser.add_argument("--seed", type=int, default=1, help="the generator's seed")
        parser.add_argument(
            "--socket-share",
            type=float,
            default=0.1,
            help="the share of the inputs that are websockets (default 0.1)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        total: int = options["inputs"]
        sockets = round(total * options["socket_share"])
        started = time.monotonic()
        self.stdout.write(
            f"fuzz: {total - sockets} requests and {sockets} sockets, "
            f"seed {options['seed']}, in a throwaway database"
        )
        with (
            _throwaway_database(),
            override_settings(
                CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}},
                COMPUTER_PAUSE=0,
                ANALYSIS_SECONDS=0.01,
            ),
        ):
            tally = fuzz.run(
                seed=options["seed"],
                http_inputs=total - sockets,
                socket_inputs=sockets,
                progress=self._progress(total - sockets, sockets),
            )
        elapsed = time.monotonic() - started
        self.stdout.write(f"\n{total} inputs in {elapsed:.0f} s; answers by status:")
        for status, count in sorted(tally.statuses.items()):
            self.stdout.write(f"  {status:>14}  {count}")
        if tally.failures:
            for failure in tally.failures:
                self.stderr.write(failure)
            raise CommandError(f"{len(tally.failures)} failures")
        self.stdout.write(
            self.style.SUCCESS("no 500, no crashed consumer, no refused input changed stored state")
        )

    def _progress(self, requests: int, sockets: int) -> Any:
        every = 500

        def report(kind: str, done: int) -> None:
            of = requests if kind == "http" else sockets
            if done % every == 0 or done == of:
                self.stdout.write(f"  {kind}: {done}/{of}")

        return report


class _throwaway_database:
    """A fresh database for the run (a temporary SQLite file, or a new PostgreSQL database
    beside the configured one), with the test environment's settings, dropped afterwards."""

    def __enter__(self) -> None:
        # DEBUG off, as served: with it on, Django answers some inputs with developer aids (a
        # POST to a slash-less URL raises instead of redirecting) that no visitor ever meets.
        setup_test_environment(debug=False)
        # Refusals are expected by the thousand: log only what fails (a 500 still logs).
        for name in ("django.request", "django.security"):
            logging.getLogger(name).setLevel(logging.ERROR)
        test = connection.settings_dict.setdefault("TEST", {})
        if connection.vendor == "sqlite":
            self.folder = tempfile.TemporaryDirectory(prefix="fuzz-")
            test["NAME"] = str(Path(self.folder.name) / "fuzz.sqlite3")
        else:
            test["NAME"] = f"test_fuzz_{os.getpid()}"
        self.old_name = connection.creation.create_test_db(
            verbosity=0, autoclobber=True, serialize=False
        )

    def __exit__(self, *exc: object) -> None:
        connection.creation.destroy_test_db(self.old_name, verbosity=0)
        teardown_test_environment()
        if connection.vendor == "sqlite":
            self.folder.cleanup()
