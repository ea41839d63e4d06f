"""After a PostgreSQL restart, the pool hands out no dead connection: a watch on the server.

Django's pool (psycopg's, ``OPTIONS["pool"]``) checks each connection as it hands it out
(``CONN_HEALTH_CHECKS``). After a restart every connection it keeps is dead, and having found one
dead it waits 1 s before it tries the next, then 2 s (psycopg_pool's backoff, which no setting
changes): the first turn on each process after a restart waited about 3 s for its two kept
connections to fail their checks.

:class:`PoolWatch` keeps one connection of its own open and idle, in a thread. The server closing
it (a restart, a crash) wakes the thread at once, which drains the pool (``ConnectionPool.drain``:
the connections kept are closed, those in use are closed when given back, and new ones are made
in the background), so that the first request after the restart connects afresh. The thread then
connects again every half second until the server answers. (The pool tries those new connections a
second, then 2, 4, ... s apart while the server is away: a process that held all its
``DB_POOL_SIZE`` connections when it went waits for the next try after the restart; one with room
connects at once.)

Costs: one more connection to PostgreSQL per process, and a thread that wakes twice a second to
see whether it is to stop; nothing per query.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import psycopg
from django.db import connections
from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)


class PoolWatch(threading.Thread):
    """Drains the pool that ``pool`` gives whenever the server at ``params`` (``psycopg.connect``'s
    arguments) closes this thread's own connection to it."""

    #: Seconds between two tries to connect while the server does not answer, and between two
    #: looks at whether the watch is to stop.
    every = 0.5

    def __init__(
        self, params: dict[str, Any], pool: Callable[[], ConnectionPool[Any] | None]
    ) -> None:
        super().__init__(name="pool watch", daemon=True)
        self._params = {**params, "autocommit": True}
        self._pool = pool
        self._stopped = threading.Event()

    def run(self) -> None:
        answering = True
        while not self._stopped.is_set():
            try:
                watched = psycopg.connect(**self._params)
            except psycopg.Error:
                answering = False
                self._stopped.wait(self.every)
                continue
            if not answering:
                log.warning("PostgreSQL answers again.")
                answering = True
            with watched:
                if not self._until_closed(watched):
                    return
            pool = self._pool()
            if pool is not None:
                pool.drain()

    def _until_closed(self, watched: psycopg.Connection[Any]) -> bool:
        """Wait until the server closes ``watched`` (true) or the watch stops (false)."""
        try:
            while not self._stopped.is_set():
                for _ in watched.notifies(timeout=self.every):  # none is listened for
                    pass
        except psycopg.Error as error:
            log.warning(
                "PostgreSQL closed a connection (%s): the pool's connections are made anew.",
                str(error).partition("\n")[0] or type(error).__name__,
            )
            return True
        return False

    def stop(self) -> None:
        self._stopped.set()
        self.join()


def watch_pool(alias: str = "default") -> PoolWatch | None:
    """Start watching the server of the database ``alias`` if its connections come from a pool."""
    connection = connections[alias]
    # From the settings: the pool itself is made with the first connection, from the settings
    # then (the test database's, in a test run).
    if connection.vendor != "postgresql" or not connection.settings_dict["OPTIONS"].get("pool"):
        return None
    # The server is read once; the pool each time, as Django may replace it (``close_pool``).
    watch = PoolWatch(connection.get_connection_params(), lambda: connections[alias].pool)
    watch.start()
    return watch
