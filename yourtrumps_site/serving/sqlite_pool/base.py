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

Writers of this process also queue on a lock of their own before ``BEGIN
IMMEDIATE``. SQLite's busy handler makes a waiting writer sleep and retry (up to
100 ms at a time), so under a crowd a writer could miss every release and reach
its timeout: with 500 games on one Daphne, 20 s waits failed as ``database is
locked``. Blocked on a lock, a waiting writer is woken the moment the writer
before it commits.

With ``DEBUG`` on (``make run``), Django keeps every query's SQL with its
parameters written in, and SQLite's backend asks SQLite to quote them: a second
statement for every query, a fifth of a socket's arrival under a crowd. The
common parameters (integers, text, bytes, ``None``) are quoted here as
SQLite's ``QUOTE()`` would, any other kind still by SQLite.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any

from django.db.backends.sqlite3 import base, operations

#: Open connections kept per database file: beyond this, closed ones really close.
POOL_SIZE = 32

_lock = threading.Lock()
_idle: dict[tuple[str, int], list[sqlite3.Connection]] = {}
_writers: dict[str, threading.Lock] = {}


def _key(database: str) -> tuple[str, int] | None:
    try:
        return database, os.stat(database).st_ino
    except OSError:  # not created yet, or not a file
        return None


def _writer_lock(database: str) -> threading.Lock:
    with _lock:
        return _writers.setdefault(database, threading.Lock())


def _quoted(value: object) -> str | None:
    """``value`` as SQLite's ``QUOTE()`` writes it, or ``None`` for a kind left to SQLite."""
    if value is None:
        return "NULL"
    kind = type(value)
    if kind is int or kind is bool:
        return str(int(value))  # type: ignore[call-overload]
    if kind is str and "\x00" not in value:  # type: ignore[operator]
        return "'" + value.replace("'", "''") + "'"  # type: ignore[attr-defined]
    if kind is bytes:
        return "X'" + value.hex().upper() + "'"  # type: ignore[attr-defined]
    return None


class DatabaseOperations(operations.DatabaseOperations):
    def _quote_params_for_last_executed_query(self, params: Any) -> Any:
        quoted = tuple(_quoted(value) for value in params)
        if None in quoted:
            return super()._quote_params_for_last_executed_query(params)
        return quoted


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    _writing: threading.Lock | None = None
    #: The pool's key for the open connection, from when it was handed out: its close needs no
    #: second look at the file (a look gives up the GIL, and waits to get it back under a crowd).
    _pool_key: tuple[str, int] | None = None

    def _start_transaction_under_autocommit(self) -> None:
        writer = _writer_lock(str(self.settings_dict["NAME"]))
        if not writer.acquire(timeout=float(self.settings_dict["OPTIONS"].get("timeout", 5))):
            raise base.Database.OperationalError("database is locked (waited for this process)")
        self._writing = writer
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._done_writing()
            raise

    def _done_writing(self) -> None:
        if self._writing is not None:
            self._writing, writer = None, self._writing
            writer.release()

    def _commit(self) -> None:
        try:
            super()._commit()
        finally:
            self._done_writing()

    def _rollback(self) -> None:
        try:
            super()._rollback()
        finally:
            self._done_writing()

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        key = None if self.is_in_memory_db() else _key(str(conn_params["database"]))
        self._pool_key = key
        if key is not None:
            with _lock:
                idle = _idle.get(key)
                if idle:
                    return idle.pop()
        return super().get_new_connection(conn_params)

    def _close(self) -> None:
        try:
            self._keep_or_close()
        finally:
            self._done_writing()

    def _keep_or_close(self) -> None:
        connection = self.connection
        key, self._pool_key = self._pool_key, None
        if key is None and not self.is_in_memory_db():  # the file is this connection's own
            key = _key(str(self.settings_dict["NAME"]))
        if connection is not None and key is not None:
            if connection.in_transaction:
                connection.rollback()
            with _lock:
                idle = _idle.setdefault(key, [])
                if len(idle) < POOL_SIZE:
                    idle.append(connection)
                    return
        super()._close()
