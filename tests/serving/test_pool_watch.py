"""After PostgreSQL restarts, a pool whose server is watched hands out a live connection at once,
where psycopg's pool alone first tries each dead one it kept, a second and then two apart
(``yourtrumps_site.serving.pool_watch``). Over a cluster of the test's own, restarted at will."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from tests.private_services import PrivatePostgres, postgres_missing
from yourtrumps_site.serving.pool_watch import PoolWatch
from yourtrumps_site.settings import database_config

pytestmark = pytest.mark.skipif(postgres_missing() is not None, reason=str(postgres_missing()))

#: What the first connection after a restart may take: a connection made afresh, not the pool's
#: wait between two dead ones (0.9 s at least).
PROMPT = 0.5


@pytest.fixture(scope="module")
def postgres() -> Iterator[PrivatePostgres]:
    with PrivatePostgres() as server:
        yield server


@pytest.fixture
def pool(postgres: PrivatePostgres) -> Iterator[ConnectionPool[Any]]:
    """A pool as Django makes one from the site's settings (``CONN_HEALTH_CHECKS``: each
    connection checked as it is handed out), its connections kept open."""
    config = database_config(postgres.url, base_dir=Path("."))
    assert config["CONN_HEALTH_CHECKS"]
    with ConnectionPool(
        postgres.url, check=ConnectionPool.check_connection, open=True, **config["OPTIONS"]["pool"]
    ) as pool:
        pool.wait()
        yield pool


def _params(postgres: PrivatePostgres) -> dict[str, Any]:
    return {"conninfo": postgres.url, "application_name": "pool watch"}


def _watching(postgres: PrivatePostgres) -> bool:
    with psycopg.connect(postgres.url) as connection:
        row = connection.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pool watch'"
        ).fetchone()
    return bool(row and row[0])


def _restart(postgres: PrivatePostgres) -> None:
    postgres.stop()
    time.sleep(1)
    postgres.start()


def _first_connection_after(postgres: PrivatePostgres, pool: ConnectionPool[Any]) -> float:
    """Restart the server; how long the pool then takes to give a connection that works."""
    _restart(postgres)
    started = time.monotonic()
    with pool.connection() as connection:
        connection.execute("SELECT 1")
    return time.monotonic() - started


def test_psycopgs_pool_alone_tries_its_dead_connections_first(
    postgres: PrivatePostgres, pool: ConnectionPool[Any]
) -> None:
    """Why the watch is there: when this fails, psycopg's pool has learnt better and the watch
    may go."""
    assert _first_connection_after(postgres, pool) > PROMPT


def test_a_watched_pool_gives_a_live_connection_at_once_after_a_restart(
    postgres: PrivatePostgres, pool: ConnectionPool[Any]
) -> None:
    watch = PoolWatch(_params(postgres), lambda: pool)
    watch.start()
    try:
        deadline = time.monotonic() + 10
        while not _watching(postgres):
            assert time.monotonic() < deadline, "the watch did not connect"
            time.sleep(0.05)
        assert _first_connection_after(postgres, pool) < PROMPT
        # And again: the watch connected anew, to see the next restart.
        deadline = time.monotonic() + 10
        while not _watching(postgres):
            assert time.monotonic() < deadline, "the watch did not connect again"
            time.sleep(0.05)
        assert _first_connection_after(postgres, pool) < PROMPT
    finally:
        watch.stop()
