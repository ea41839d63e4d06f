"""Reads whose SQL is built once per process, not by the ORM on every call.

The ORM builds and compiles a query's SQL each time it runs. For the reads of every socket's
arrival (the session, its user, the game, the ban check) that was most of the arrival's thread
time (py-spy on ``manage.py bench_socket`` and on the load test's crowd sitting down), for SQL
that never changes: a :class:`Prepared` read keeps what the ORM built the first time (the SQL,
the converters of its columns, how its rows make model instances) and runs it with each call's
values on Django's own cursor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model, QuerySet
from django.db.models.query import ModelIterable, get_related_populators


@dataclass(frozen=True)
class _Statement:
    """A query as the ORM built it for one database vendor."""

    sql: str
    count: int  # the values it takes
    converters: tuple[tuple[int, tuple[Any, ...]], ...]  # by column: the functions, the column
    model: type[Model] | None  # the model its rows make, if it reads model instances
    columns: slice  # that model's columns in a row
    attnames: tuple[str, ...]  # their fields
    related: tuple[Any, ...]  # what fills the related instances ``select_related`` reads too


class Prepared:
    """A read built by ``build``, a query over placeholder values (``filter(pk=0)``): each call
    gives the real values in the order the query takes them, and gets its rows as the query
    would have returned them: tuples for a ``values_list`` (:meth:`first`, :meth:`all`), model
    instances, with those ``select_related`` names, for a query of a model (:meth:`instance`).

    The values go to the database as given: a placeholder the ORM would have changed (a
    ``startswith`` pattern, a date on SQLite) or written into the SQL itself (a boolean on SQLite,
    ``None``) does not serve; a call with another number of values than the SQL takes is
    refused."""

    def __init__(self, build: Callable[[], QuerySet[Any, Any]]) -> None:
        self._build = build
        self._built: dict[str, _Statement] = {}  # by database vendor

    def first(self, *params: object) -> tuple[Any, ...] | None:
        """The first row, or ``None``."""
        db, statement, rows = self._run(params, one=True)
        return _converted(db, statement, rows[0]) if rows else None

    def all(self, *params: object) -> list[tuple[Any, ...]]:
        """Every row."""
        db, statement, rows = self._run(params, one=False)
        return [_converted(db, statement, row) for row in rows]

    def instance(self, *params: object) -> Any:
        """The model instance of the first row (with those its query selects related), or
        ``None``."""
        db, statement, rows = self._run(params, one=True)
        if not rows:
            return None
        if statement.model is None:
            raise TypeError("this read's query does not read model instances")
        row = _converted(db, statement, rows[0])
        instance = statement.model.from_db(db.alias, statement.attnames, row[statement.columns])
        for populator in statement.related:
            populator.populate(row, instance)
        return instance

    def _run(
        self, params: Sequence[object], *, one: bool
    ) -> tuple[BaseDatabaseWrapper, _Statement, list[Any]]:
        db = connections[DEFAULT_DB_ALIAS]  # this thread's: looked up once, not per value
        statement = self._built.get(db.vendor)
        if statement is None:
            statement = self._built[db.vendor] = self._statement(db)
        if len(params) != statement.count:
            raise ValueError(f"the query takes {statement.count} values, not {len(params)}")
        with db.cursor() as cursor:
            cursor.execute(statement.sql, params)
            if one:
                row = cursor.fetchone()
                return db, statement, [] if row is None else [row]
            return db, statement, cursor.fetchall()

    def _statement(self, db: BaseDatabaseWrapper) -> _Statement:
        queryset = self._build()
        compiler = queryset.query.get_compiler(connection=db)
        sql, placeholders = compiler.as_sql()  # this also works out the columns it selects
        select = compiler.select
        converters = tuple(compiler.get_converters([column for column, *_ in select]).items())
        if queryset._iterable_class is not ModelIterable:
            return _Statement(sql, len(placeholders), converters, None, slice(0), (), ())
        info = compiler.klass_info
        fields = info["select_fields"]
        columns = slice(fields[0], fields[-1] + 1)
        attnames = tuple(column.target.attname for column, *_ in select[columns])
        related = tuple(get_related_populators(info, select, db.alias))
        return _Statement(
            sql, len(placeholders), converters, info["model"], columns, attnames, related
        )


def _converted(
    db: BaseDatabaseWrapper, statement: _Statement, row: Sequence[Any]
) -> tuple[Any, ...]:
    """``row`` with each column's value as the ORM gives it (a date from SQLite's text, a boolean
    from its 0 or 1, a field's own ``from_db_value``)."""
    if not statement.converters:
        return tuple(row)
    values = list(row)
    for position, (functions, column) in statement.converters:
        value = values[position]
        for function in functions:
            value = function(value, column, db)
        values[position] = value
    return tuple(values)
