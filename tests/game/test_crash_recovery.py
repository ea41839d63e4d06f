"""A real server (``manage.py runserver``, Daphne's), killed with SIGKILL while the computer
thinks, then started again: the game goes on, no acknowledged turn is lost, and none of the
killed server's processes lives on.

The servers run as they do for ``make run`` (``TASK_WORKER=embedded``: ``runserver`` starts its
own task workers; here without the autoreloader) on an SQLite file of this test's own; the test
plays through HTTP and reads the file.
"""

import http.cookiejar
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TASKS = "django_tasks_database_dbtaskresult"
PLY = re.compile(r'<div\b[^>]*\bid="table"[^>]*\bdata-ply="(\d+)"')
MOVE = re.compile(r'<(?:input|button)\b[^>]*\bname="move"[^>]*\bvalue="([^"]+)"')


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if Path(f"/proc/{pid}").exists()}


class Site:
    """``runserver`` on a free port over the test's database, and a logged-in browser of sorts."""

    def __init__(self, tmp: Path) -> None:
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.site.sqlite_file_settings",
            "SQLITE_FILE": str(tmp / "db.sqlite3"),
            "TASK_WORKER": "embedded",
            "COMPUTER_PAUSE_MS": "100",
            "DEBUG": "true",
        }
        self.env.pop("DATABASE_URL", None)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.db = tmp / "db.sqlite3"
        self.server: subprocess.Popen[bytes] | None = None
        self.logs: list[Path] = []  # each server's output, shown when the test fails
        self.browser = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def setup(self) -> None:
        script = (
            "import django; django.setup();"
            "from django.core.management import call_command; call_command('migrate', verbosity=0);"
            "from django.contrib.auth import get_user_model;"
            "get_user_model().objects.create_user('anna', password='a-long-pass-42')"
        )
        subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=self.env, check=True)

    def start(self) -> None:
        command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{self.port}"]
        self.logs.append(self.db.with_name(f"server-{len(self.logs) + 1}.log"))
        with self.logs[-1].open("wb") as log:
            self.server = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                self.get("/")
                return
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

    def get(self, path: str) -> str:
        with self.browser.open(self.base + path, timeout=10) as response:
            return response.read().decode()

    def post(self, path: str, data: dict[str, str]) -> str:
        token = next(c.value for c in self.cookies() if c.name == "csrftoken")
        body = urllib.parse.urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(self.base + path, body, headers={"Referer": self.base})
        with self.browser.open(request, timeout=10) as response:
            return response.geturl()

    def cookies(self) -> Iterator[http.cookiejar.Cookie]:
        handler = next(
            h for h in self.browser.handlers if isinstance(h, urllib.request.HTTPCookieProcessor)
        )
        return iter(handler.cookiejar)

    def query(self, sql: str, *args: object) -> list[tuple]:
        with sqlite3.connect(self.db, timeout=20) as connection:
            return connection.execute(sql, args).fetchall()

    def moves(self, game: int) -> list[tuple[int, int, str]]:
        return self.query(
            "SELECT ply, player, notation FROM game_move WHERE game_id = ? ORDER BY ply", game
        )

    def thinking(self) -> bool:
        """The computer's reply is running, in the search process the server starts for it
        (with the resource tracker beside it) when its first search begins."""
        running = self.query(
            f"SELECT 1 FROM {TASKS} WHERE status = 'RUNNING' AND queue_name = 'computer'"
        )
        return bool(running) and len(children_of(self.server.pid)) >= 2

    def kill(self) -> set[int]:
        """SIGKILL the server; returns the processes it had started."""
        assert self.server is not None
        family = children_of(self.server.pid)
        self.server.send_signal(signal.SIGKILL)
        self.server.wait()
        return family

    def stop(self) -> set[int]:
        if self.server is None or self.server.poll() is not None:
            return set()
        family = children_of(self.server.pid)
        self.server.terminate()
        try:
            self.server.wait(10)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        return family


def wait_until(condition, seconds: float, what: str) -> float:
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < seconds, f"{what}: not within {seconds} s"
        time.sleep(0.02)
    return time.monotonic() - start


def gone(pids: set[int]) -> bool:
    return not alive(pids)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    site = Site(tmp_path)
    site.setup()
    yield site
    for log in site.logs:  # printed: pytest shows them with a failure
        print(f"--- {log.name}", log.read_text(errors="replace")[-4000:], sep="\n")
    family = site.stop()
    wait_until(lambda: gone(family), 10, "the last server's workers to stop")


def test_a_server_killed_while_the_computer_thinks_loses_nothing_and_leaves_no_process(site):
    site.start()
    site.get("/accounts/login/")
    site.post("/accounts/login/", {"username": "anna", "password": "a-long-pass-42"})
    table = {"trump": "C", "deck": "36", "level": "perfect"}  # perfect thinks 2.5 s a turn
    url = site.post("/play/computer/", table)
    game = int(re.search(r"/games/(\d+)/", url).group(1))

    acknowledged: list[tuple[int, str]] = []
    deadline = time.monotonic() + 40
    while not site.thinking():  # play until the computer is caught thinking (it may lead)
        assert time.monotonic() < deadline, "the computer never started thinking"
        page = site.get(f"/games/{game}/")
        turns, ply = MOVE.findall(page), PLY.search(page)
        if turns and ply and len(site.moves(game)) == int(ply.group(1)):  # anna's turn
            site.post(f"/games/{game}/move/", {"ply": ply.group(1), "move": turns[0]})
            acknowledged.append((int(ply.group(1)), turns[0]))
        time.sleep(0.02)
    waiting_at = len(site.moves(game))  # the ply the computer is thinking about

    family = site.kill()
    assert len(family) >= 2, f"the server should have its search process, ran {family}"
    wait_until(lambda: gone(family), 5, "the killed server's workers to die with it")
    assert [(p, m) for p, _, m in site.moves(game) if (p, m) in acknowledged] == acknowledged

    site.start()
    # A new worker sees the dead one's task, and the game, at once (recovery on start).
    took = wait_until(lambda: len(site.moves(game)) > waiting_at, 20, "the computer's move")
    print(f"the computer's move came {took:.1f} s after the restart")  # thinking (2.5 s) included
    moves = site.moves(game)
    assert moves[waiting_at][:2] == (waiting_at, 1)
    assert {(p, m) for p, _, m in moves} >= set(acknowledged)
    failed = site.query(f"SELECT traceback FROM {TASKS} WHERE status = 'FAILED'")
    assert any("stopped while running" in row[0] for row in failed)
