"""The embedded SQLite backend hands a closed connection to the next thread, never a stale one."""

import sqlite3
import threading
from pathlib import Path

import pytest
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st

from yourtrumps_site.serving.sqlite_pool.base import DatabaseWrapper

pytestmark = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the pool serves the embedded SQLite set-up only"
)


@pytest.fixture(autouse=True)
def _own_databases(django_db_blocker: pytest.FixtureRequest) -> object:
    """These tests open databases of their own, not the test database."""
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        yield


def wrapper(path: Path) -> DatabaseWrapper:
    return DatabaseWrapper({**connection.settings_dict, "NAME": str(path)}, alias="pooled")


def in_thread(path: Path) -> tuple[sqlite3.Connection, list[tuple[int]]]:
    """Connect in a new thread, as each request does, read, and close."""
    result = {}

    def work() -> None:
        db = wrapper(path)
        with db.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pile")
            result["rows"] = cursor.fetchall()
        result["raw"] = db.connection
        db.close()

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return result["raw"], result["rows"]


def test_the_next_thread_gets_the_closed_connection_rolled_back(tmp_path: Path) -> None:
    path = tmp_path / "pooled.sqlite3"
    sqlite3.connect(path).execute("CREATE TABLE pile (card TEXT)").connection.close()
    first, _ = in_thread(path)
    db = wrapper(path)
    db.connect()
    assert db.connection is first  # reused, though opened in another thread
    db.connection.execute("BEGIN")
    db.connection.execute("INSERT INTO pile VALUES ('QS')")
    db.close()  # mid-transaction: the insert must not survive in the pooled connection
    again, rows = in_thread(path)
    assert again is first and rows == [(0,)]


def test_a_database_made_again_at_the_same_path_gets_a_new_connection(tmp_path: Path) -> None:
    path = tmp_path / "pooled.sqlite3"
    sqlite3.connect(path).execute("CREATE TABLE pile (card TEXT)").connection.close()
    old, _ = in_thread(path)
    path.unlink()
    made_again = sqlite3.connect(path)
    made_again.execute("CREATE TABLE pile (card TEXT)")
    made_again.execute("INSERT INTO pile VALUES ('6D')")
    made_again.commit()
    new, rows = in_thread(path)
    assert new is not old and rows == [(1,)]


def test_writers_of_one_process_take_turns_and_always_hand_the_turn_on(tmp_path: Path) -> None:
    """Eight threads each add one to a count in a transaction, and every other one gives up
    half-way (a rollback) or closes mid-transaction: each hands the writer's turn on, so every
    commit lands and nobody waits out the timeout."""
    path = tmp_path / "pooled.sqlite3"
    setup = sqlite3.connect(path)
    setup.execute("CREATE TABLE pile (size INTEGER)")
    setup.execute("INSERT INTO pile VALUES (0)")
    setup.commit()
    setup.close()
    failures = []

    def add_one(number: int) -> None:
        db = wrapper(path)
        db.settings_dict["OPTIONS"] = {**db.settings_dict["OPTIONS"], "timeout": 1}
        try:
            db.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)
            with db.cursor() as cursor:
                (size,) = cursor.execute("SELECT size FROM pile").fetchone()
                threading.Event().wait(0.01)  # hold the write lock a while
                cursor.execute("UPDATE pile SET size = %s", [size + 1])
            if number % 3 == 1:
                db.rollback()
            elif number % 3 == 2:
                db.close()  # mid-transaction: rolled back
                return
            else:
                db.commit()
            db.set_autocommit(True)
        except Exception as error:
            failures.append(error)
        finally:
            db.close()

    threads = [threading.Thread(target=add_one, args=(n,)) for n in range(9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert sqlite3.connect(path).execute("SELECT size FROM pile").fetchone() == (3,)


@given(
    st.lists(
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(min_value=-(2**63), max_value=2**63 - 1),
            st.text(),
            st.binary(),
            st.floats(allow_nan=False),
            st.datetimes().map(str),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_the_sql_kept_in_debug_quotes_parameters_as_sqlite_does(values: list[object]) -> None:
    ops = DatabaseWrapper(connection.settings_dict, alias="quoting").ops
    raw = sqlite3.connect(":memory:")
    expected = raw.execute("SELECT " + ", ".join(["QUOTE(?)"] * len(values)), values).fetchone()
    ops.connection.connection = raw
    assert ops._quote_params_for_last_executed_query(values) == expected
