"""Django's SQLite backend with a pool of open connections, for the embedded set-up.

Under Daphne every request runs in a thread of its own, and Django opens a new
database connection in each thread and closes it at the end of the request
(SQLite has no pool in Django). Opening one registers some thirty SQL functions
and runs the WAL pragmas; closing the last one checkpoints the WAL. Measured
under the load test (50 games, one Daphne), that churn was 19% of the
server's CPU. Here a closed connection goes back to a pool and the next thread
takes it: SQLite connections may change threads (Django opens them with
``check_same_thread=False`` and only ever lets one thread use one at a time).

A pooled connection is rolled back before it is kept, and the pool is keyed by
the database file's path and inode, so a test database made again at the same
path never receives a connection to the old one.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any

from django.db.backends.sqlite3 import base

#: Open connections kept per database file: beyond this, closed ones really close.
POOL_SIZE = 32

_lock = threading.Lock()
_idle: dict[tuple[str, int], list[sqlite3.Connection]] = {}


def _key(database: str) -> tuple[str, int] | None:
    try:
        return database, os.stat(database).st_ino
    except OSError:  # not created yet, or not a file
        return None


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        key = None if self.is_in_memory_db() else _key(str(conn_params["database"]))
        if key is not None:
            with _lock:
                idle = _idle.get(key)
                if idle:
                    return idle.pop()
        return super().get_new_connection(conn_params)

    def _close(self) -> None:
        connection = self.connection
        key = None if self.is_in_memory_db() else _key(str(self.settings_dict["NAME"]))
        if connection is not None and key is not None:
            if connection.in_transaction:
                connection.rollback()
            with _lock:
                idle = _idle.setdefault(key, [])
                if len(idle) < POOL_SIZE:
                    idle.append(connection)
                    return
        super()._close()
