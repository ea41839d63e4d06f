"""``manage.py backup`` and ``restore`` (yourtrumps_site/backups.py), run as an operator runs them:
a game played part-way is backed up while other games go on being played, restored into a fresh
database, and continued there. On an SQLite file and, with ``DATABASE_URL``, on PostgreSQL."""

import json
import os
import pty
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from yourtrumps_site import backups
from yourtrumps_site.settings import BASE_DIR, database_config

MANAGE = BASE_DIR / "manage.py"
HOLDS = re.compile(r"The database now holds (\d+) games, (\d+) users\.")
POSTGRES_URL = os.environ.get("DATABASE_URL", "")


class SQLiteFiles:
    """Databases as SQLite files in a folder of the test's own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def env(self, name: str) -> dict[str, str]:
        """The environment of a process on the database ``name``."""
        file = str(self.folder / f"{name}.sqlite3")
        return {
            **_plain_env(),
            "DJANGO_SETTINGS_MODULE": "tests.site.sqlite_file_settings",
            "SQLITE_FILE": file,
        }

    def create(self, name: str) -> None:
        """Nothing to make: a migration or a restore creates the file."""


class PostgreSQLDatabases:
    """Scratch databases on the server of ``DATABASE_URL``, dropped at the end (the test never
    touches that URL's own database's data)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.suffix = secrets.token_hex(4)
        self.made: list[str] = []

    def _name(self, name: str) -> str:
        return f"yt_backup_{name}_{self.suffix}"

    def env(self, name: str) -> dict[str, str]:
        url = urlsplit(self.url)._replace(path=f"/{self._name(name)}").geturl()
        return {**_plain_env(), "DATABASE_URL": url}

    def _run(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as server:
            server.execute(sql)

    def create(self, name: str) -> None:
        self._run(f"CREATE DATABASE {self._name(name)}")
        self.made.append(self._name(name))

    def drop_all(self) -> None:
        for made in self.made:
            self._run(f"DROP DATABASE IF EXISTS {made} WITH (FORCE)")


def _plain_env() -> dict[str, str]:
    """This process's environment without its database and channel layer."""
    return {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}


@pytest.fixture(params=["sqlite", "postgresql"])
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    if request.param == "sqlite":
        yield SQLiteFiles(tmp_path)
        return
    if urlsplit(POSTGRES_URL).scheme not in ("postgres", "postgresql"):
        pytest.skip("DATABASE_URL does not name a PostgreSQL server")
    missing = [tool for tool in ("pg_dump", "pg_restore") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not installed (Debian: postgresql-client)")
    scratch = PostgreSQLDatabases(POSTGRES_URL)
    yield scratch
    scratch.drop_all()


def manage(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(MANAGE), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def play(env: dict[str, str], *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "tests.site.backup_play", *args],
        env=env,
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_a_game_backed_up_while_others_are_played_goes_on_from_the_restored_database(
    databases, tmp_path
):
    source, target = databases.env("src"), databases.env("dst")
    databases.create("src")
    started = play(source, "start")
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.site.backup_play", "write", str(stop)],
        env=source,
        cwd=BASE_DIR,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        before = int(writer.stdout.readline())  # the other games are being played
        backed_up = manage(source, "backup", "game.backup", cwd=tmp_path)
    finally:
        stop.touch()
        after = int(writer.stdout.read().split()[-1])
        assert writer.wait() == 0
    assert backed_up.returncode == 0, backed_up.stderr
    assert "Backing up" in backed_up.stdout
    assert re.search(r"Wrote game\.backup \([\d,]+ bytes\) in [\d.]+ s\.", backed_up.stdout)

    databases.create("dst")
    restored = manage(target, "restore", "game.backup", "--yes", cwd=tmp_path)
    assert restored.returncode == 0, restored.stderr
    games, users = map(int, HOLDS.search(restored.stdout).groups())
    assert users == 4 and games >= 2

    went_on = play(target, "next", str(started["game"]))
    assert went_on["moves"][:-1] == started["moves"] and len(went_on["moves"]) == 11
    assert before <= went_on["other_turns"] <= after  # a snapshot taken between the two counts
    assert went_on["states_agree"]  # each game's state is what its move log gives: no torn game


# -- the commands' refusals, on one SQLite backup ------------------------------------------


@pytest.fixture(scope="module")
def sqlite_backup(tmp_path_factory: pytest.TempPathFactory) -> tuple[SQLiteFiles, Path]:
    """A folder holding an SQLite database with the schema, backed up under ``backups/`` (the
    default) by ``manage.py backup``."""
    files = SQLiteFiles(tmp_path_factory.mktemp("backups"))
    manage(files.env("site"), "migrate", "-v0", cwd=files.folder).check_returncode()
    done = manage(files.env("site"), "backup", cwd=files.folder)
    assert done.returncode == 0, done.stderr
    (made,) = (files.folder / "backups").iterdir()
    assert re.fullmatch(r"sqlite-\d{8}-\d{6}Z\.sqlite3", made.name)
    return files, made


def test_restore_refuses_without_yes_when_no_one_can_confirm(sqlite_backup):
    files, _ = sqlite_backup
    refused = manage(files.env("refused"), "restore", cwd=files.folder)
    assert refused.returncode == 1
    assert "Not restoring: pass --yes" in refused.stderr
    assert not (files.folder / "refused.sqlite3").exists()


@pytest.mark.parametrize("answer", ["yes", "no"])
def test_restore_asks_at_a_terminal_and_restores_the_newest_backup_only_on_yes(
    sqlite_backup, answer
):
    files, made = sqlite_backup
    name = f"asked-{answer}"
    terminal, its_end = pty.openpty()
    with subprocess.Popen(
        [sys.executable, str(MANAGE), "restore"],
        env=files.env(name),
        cwd=files.folder,
        stdin=its_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as restore:
        os.close(its_end)
        os.write(terminal, f"{answer}\n".encode())
        out, err = restore.communicate(timeout=60)
    os.close(terminal)
    restored = files.folder / f"{name}.sqlite3"
    if answer == "yes":
        assert restore.returncode == 0, err
        assert f"Restoring backups/{made.name}" in out and HOLDS.search(out)
        assert restored.exists()
    else:
        assert restore.returncode == 1 and "Not restoring: not confirmed." in err
        assert not restored.exists()


def test_restore_names_a_missing_backup_file(tmp_path):
    with pytest.raises(CommandError, match=f"No backup file at {tmp_path}/gone.dump"):
        call_command("restore", str(tmp_path / "gone.dump"), "--yes")


def test_restore_refuses_a_file_that_is_not_an_sqlite_database(tmp_path):
    file = tmp_path / "notes.sqlite3"
    file.write_text("not a database")
    database = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "db.sqlite3")}
    with pytest.raises(backups.BackupError, match="is not an SQLite database"):
        backups.restore(database, file, print)
    assert not (tmp_path / "db.sqlite3").exists()


def test_a_backup_never_overwrites_a_file(sqlite_backup):
    files, made = sqlite_backup
    database = {"ENGINE": "django.db.backends.sqlite3", "NAME": files.env("site")["SQLITE_FILE"]}
    with pytest.raises(backups.BackupError, match="already exists"):
        backups.backup(database, made, print)


POSTGRES = database_config("postgres://site:s3cret@db.example:5433/yourtrumps", base_dir=BASE_DIR)


def test_backup_names_pg_dump_when_it_is_not_installed(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no program on it
    with pytest.raises(backups.BackupError, match="pg_dump is not installed"):
        backups.backup(POSTGRES, tmp_path / "site.dump", print)
    with pytest.raises(backups.BackupError, match="pg_restore is not installed"):
        (tmp_path / "site.dump").write_bytes(b"PGDMP")
        backups.restore(POSTGRES, tmp_path / "site.dump", print)


def test_a_postgresql_database_is_named_without_its_password():
    described = backups.describe(POSTGRES)
    assert described == "PostgreSQL database yourtrumps on site@db.example:5433"
