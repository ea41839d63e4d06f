"""Reads whose SQL is built once per process, not by the ORM on every call.

The ORM builds and compiles a query's SQL each time it runs. For the two reads of every socket's
arrival (the game's version, the ban check) that was two fifths of the arrival's thread time
(py-spy on ``manage.py bench_socket``), for SQL that never changes: a :class:`Prepared` read
keeps the SQL the ORM built the first time and runs it with each call's values on Django's own
cursor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connection
from django.db.models import QuerySet


class Prepared:
    """A read built by ``build``, a query over placeholder values (``filter(pk=0)``): each call
    gives the real values in the order the query takes them, and gets the first row, as the
    query's ``values_list`` would return it (the database's own types: SQLite says 0 or 1 for a
    boolean)."""

    def __init__(self, build: Callable[[], QuerySet[Any, Any]]) -> None:
        self._build = build
        self._built: dict[str, tuple[str, int]] = {}  # by database vendor: the SQL, its values

    def first(self, *params: object) -> tuple[Any, ...] | None:
        built = self._built.get(connection.vendor)
        if built is None:
            sql, placeholders = self._build().query.sql_with_params()
            built = self._built[connection.vendor] = (sql, len(placeholders))
        sql, count = built
        if len(params) != count:
            raise ValueError(f"the query takes {count} values, not {len(params)}")
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()
