"""Backups of the site's database and their restores (``manage.py backup`` and ``restore``).

SQLite is copied with its online backup API while the site serves; PostgreSQL with ``pg_dump
--format=custom`` and restored with ``pg_restore``, the connection passed to them in libpq's
environment variables (so no password is on a command line or in the output). A backup is written
under a temporary name and renamed when complete: a file with a backup's name is a whole backup.
A restore replaces everything in the database, and needs the site stopped: its servers keep the
games in play in memory, and would go on from those.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model

from game.models import Game

#: Where backups go when no file is named, relative to the current directory.
BACKUP_DIR = Path("backups")
#: A backup file's ending, by the database's vendor.
SUFFIXES = {"sqlite": ".sqlite3", "postgresql": ".dump"}
#: The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"
#: libpq's environment variables for the connection options Django passes on (OPTIONS).
LIBPQ_OPTIONS = {
    "sslmode": "PGSSLMODE",
    "sslrootcert": "PGSSLROOTCERT",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "passfile": "PGPASSFILE",
    "service": "PGSERVICE",
}

Say = Callable[[str], None]


class BackupError(Exception):
    """What stops a backup or a restore; the message is for the operator."""


def vendor_of(database: dict[str, Any]) -> str:
    """``sqlite`` or ``postgresql``, from a database's settings (``DATABASES["default"]``)."""
    engine = database["ENGINE"].rpartition(".")[2]
    vendor = {"sqlite3": "sqlite", "postgresql": "postgresql"}.get(engine)
    if vendor is None:
        raise BackupError(f"Backups cover SQLite and PostgreSQL; this database is {engine}.")
    return vendor


def default_file(database: dict[str, Any]) -> Path:
    """A new backup's file when none is named: ``backups/<vendor>-<UTC time>.<suffix>``."""
    vendor = vendor_of(database)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%SZ")
    return BACKUP_DIR / f"{vendor}-{stamp}{SUFFIXES[vendor]}"


def restore_file(database: dict[str, Any], file: Path | None) -> Path:
    """The backup to restore: ``file``, or the newest of this kind under ``backups/`` (by the
    time in its name). It must exist."""
    if file is None:
        vendor = vendor_of(database)
        found = sorted(BACKUP_DIR.glob(f"{vendor}-*{SUFFIXES[vendor]}"))
        if not found:
            raise BackupError(f"No {vendor} backup in {BACKUP_DIR.resolve()}/: name the file.")
        file = found[-1]
    if not file.is_file():
        raise BackupError(f"No backup file at {file}.")
    return file


def describe(database: dict[str, Any]) -> str:
    """The database as the operator knows it: its file, or its name, user, host and port (never
    its password)."""
    if vendor_of(database) == "sqlite":
        return f"SQLite database {database['NAME']}"
    user = f"{database['USER']}@" if database.get("USER") else ""
    host = database.get("HOST") or "localhost"
    port = f":{database['PORT']}" if database.get("PORT") else ""
    return f"PostgreSQL database {database['NAME']} on {user}{host}{port}"


def backup(database: dict[str, Any], file: Path, say: Say) -> None:
    """Write a consistent copy of ``database`` to ``file``, which must not exist yet."""
    vendor = vendor_of(database)
    if file.exists():
        raise BackupError(f"{file} already exists: a backup never overwrites a file.")
    partial = file.with_name(file.name + ".partial")
    if vendor == "sqlite":
        source = Path(database["NAME"])
        if not source.is_file():
            raise BackupError(f"No SQLite database at {source}.")
    else:
        dump = [_tool("pg_dump"), "--format=custom", f"--file={partial}"]
    say(f"Backing up {describe(database)} to {file}")
    started = time.monotonic()
    file.parent.mkdir(parents=True, exist_ok=True)
    try:
        if vendor == "sqlite":
            _sqlite_backup(source, partial)
        else:
            _run(dump, database)
        partial.replace(file)
    finally:
        partial.unlink(missing_ok=True)
    say(f"Wrote {file} ({_size(file)}) in {time.monotonic() - started:.2f} s.")


def restore(database: dict[str, Any], file: Path, say: Say) -> None:
    """Replace everything in ``database`` with the backup in ``file`` (from :func:`restore_file`),
    the site stopped."""
    vendor = vendor_of(database)
    if vendor == "sqlite":
        _sqlite_check(file)
    else:
        # One transaction: a restore that fails part-way leaves the database as it was.
        options = ["--clean", "--if-exists", "--no-owner", "--single-transaction"]
        load = [_tool("pg_restore"), *options, f"--dbname={database['NAME']}", str(file)]
    say(f"Restoring {file} ({_size(file)}) into {describe(database)}")
    started = time.monotonic()
    if vendor == "sqlite":
        _sqlite_restore(file, Path(database["NAME"]))
    else:
        _run(load, database)
    say(f"Restored in {time.monotonic() - started:.2f} s.")


def counts() -> str:
    """What the database holds, read through the site's own models."""
    return f"{Game.objects.count()} games, {get_user_model().objects.count()} users"


# --- SQLite ---------------------------------------------------------------------------------


def _sqlite_backup(source: Path, file: Path) -> None:
    with _sqlite(source, "rw") as live, _sqlite(file, "rwc") as copy:
        # In one step (pages=-1), inside one read transaction: WAL lets writers go on meanwhile,
        # and the copy is the database as of that transaction. Smaller steps would each end the
        # read, and the backup starts over whenever another connection writes between two.
        live.backup(copy, pages=-1)
        # One self-contained file, with no write-ahead log beside it.
        copy.execute("PRAGMA journal_mode=DELETE")


def _sqlite_check(file: Path) -> None:
    """Refuse a file that is not a whole SQLite database."""
    with file.open("rb") as head:
        if head.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise BackupError(f"{file} is not an SQLite database.")
    with _sqlite(file, "ro") as copy:
        if (check := copy.execute("PRAGMA quick_check").fetchone()[0]) != "ok":
            raise BackupError(f"{file} is damaged: {check}")


def _sqlite_restore(file: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with _sqlite(file, "ro") as copy, _sqlite(target, "rwc") as live:
        # Through the API too, in one transaction of the target's connection: any write-ahead
        # log the stopped site left is read and replaced along with the file, never mixed in.
        copy.backup(live, pages=-1)
        live.execute("PRAGMA journal_mode=WAL")  # the site's mode (settings.SQLITE_OPTIONS)


@contextmanager
def _sqlite(path: Path, mode: str) -> Iterator[sqlite3.Connection]:
    """A connection to ``path`` opened read-only (``ro``), read-write (``rw``) or created if
    missing (``rwc``), waiting up to 20 s for a lock as the site does."""
    uri = f"{path.resolve().as_uri()}?mode={mode}"
    with closing(sqlite3.connect(uri, uri=True, timeout=20)) as connection:
        yield connection


# --- PostgreSQL -----------------------------------------------------------------------------


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(
            f"{name} is not installed: install PostgreSQL's client programs of the server's "
            "version or newer (on Debian, postgresql-client)."
        )
    return path


def _libpq_env(database: dict[str, Any]) -> dict[str, str]:
    """The connection in libpq's environment variables, over this process's environment."""
    settings = {
        "PGHOST": database.get("HOST"),
        "PGPORT": database.get("PORT"),
        "PGUSER": database.get("USER"),
        "PGPASSWORD": database.get("PASSWORD"),
        "PGDATABASE": database.get("NAME"),
    }
    options = database.get("OPTIONS", {})
    settings.update({env: options.get(option) for option, env in LIBPQ_OPTIONS.items()})
    return {**os.environ, **{name: str(value) for name, value in settings.items() if value}}


def _run(command: list[str], database: dict[str, Any]) -> None:
    done = subprocess.run(command, env=_libpq_env(database), capture_output=True, text=True)
    if done.returncode != 0:
        name = Path(command[0]).name
        raise BackupError(f"{name} failed (exit {done.returncode}):\n{done.stderr.strip()}")


def _size(path: Path) -> str:
    return f"{path.stat().st_size:,} bytes"
