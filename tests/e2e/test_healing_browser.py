"""Services that restart heal without a reload, on ``make serve``'s set-up: two Daphne processes
sharing one port (``manage.py serve``), PostgreSQL and Redis, and two players' pages in Chromium,
whose reconnecting is the page's own script.

- Redis restarted in the middle of a game (down 1 s): both tables show the turns played
  meanwhile within 5 s of Redis answering again.
- PostgreSQL restarted (down 2.5 s): the first turn on each process after it reaches the tables
  as fast as any.
- A Daphne process killed: its page reconnects through the shared port and follows the game.

Redis, and the PostgreSQL that restarts, are the test's own, never the machine's.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.e2e.helpers import sign_up, wait_for_ply
from tests.private_services import PrivatePostgres, PrivateRedis, postgres_missing, redis_missing
from tests.served import ROOT, Served, database_url, served
from tools.loadtest.table import read_table

needs_redis = pytest.mark.skipif(redis_missing() is not None, reason=str(redis_missing()))
needs_postgres = pytest.mark.skipif(postgres_missing() is not None, reason=str(postgres_missing()))
needs_database = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL"),
    reason="DATABASE_URL is not set: make serve's processes need PostgreSQL",
)

#: What each page counts of its sockets, from its first script on: opened, and closed with which
#: code (as htmx's websocket extension saw it).
COUNT_SOCKETS = """
window.sockets = {opened: 0, closed: []};
addEventListener("htmx:wsOpen", () => { sockets.opened += 1; });
addEventListener("htmx:wsClose", (event) => { sockets.closed.push(event.detail.event.code); });
"""
#: htmx reconnects on "service restart" (the site's 4012, shown to it as such) and on an
#: abnormal closure (a process gone, a handshake refused).
SERVICE_RESTART, ABNORMAL = 1012, 1006


@pytest.fixture
def redis() -> Iterator[PrivateRedis]:
    with PrivateRedis() as redis:
        yield redis


@pytest.fixture
def player(browser: Browser) -> Iterator[Callable[[Served, str], Table]]:
    """Seats a new player (a browser context of their own), closed after the test."""
    tables: list[Table] = []

    def seat(site: Served, name: str) -> Table:
        tables.append(Table(browser, site, name))
        return tables[-1]

    yield seat
    for table in tables:
        table.page.context.close()


def the_test_database() -> str:
    """The test database's URL, for the served processes to share it with the test."""
    from django.db import connection

    return database_url(connection.settings_dict)


class Table:
    """A player's page at the game's table, on the shared address."""

    def __init__(self, browser: Browser, site: Served, name: str) -> None:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(COUNT_SOCKETS)
        self.page = context.new_page()
        sign_up(self.page, site.url, name)

    def open(self, url: str) -> None:
        self.page.goto(url)
        self.wait_for_sockets(1)
        self.loaded_at = self.page.evaluate("performance.timeOrigin")

    def wait_for_sockets(self, opened: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while self.page.evaluate("sockets.opened") < opened:
            assert time.monotonic() < deadline, f"socket {opened} did not open in {timeout:g} s"
            self.page.wait_for_timeout(50)

    def closed(self) -> list[int]:
        return list(self.page.evaluate("sockets.closed"))

    def reloaded(self) -> bool:
        return bool(self.page.evaluate("performance.timeOrigin") != self.loaded_at)

    def post(self, url: str, data: dict[str, str]) -> str:
        """POST a form as this player (as a page whose socket is closed does); the URL it ends
        at."""
        token = next(c["value"] for c in self.page.context.cookies() if c["name"] == "csrftoken")
        response = self.page.request.post(url, form=data, headers={"X-CSRFToken": token})
        assert response.ok, f"POST {url}: {response.status}"
        return response.url


def sit_down(tables: list[Table], site: Served) -> str:
    """A game between the two players, each at its table on the shared address (the first one
    opened first); its URL."""
    tables[0].page.goto(site.url + "/")  # from the lobby, which would follow the seek when joined
    seek = tables[0].post(f"{site.url}/play/seek/", {"trump": "S", "deck": "36", "clock": ""})
    found = re.search(r"/games/\d+/$", seek)
    assert found, seek
    game = site.url + found.group(0)
    tables[1].post(game + "join/", {"trump": "H"})
    for table in tables:
        table.open(game)
    return game


def play_a_turn(tables: list[Table], game: str, through: str) -> int:
    """The player to move plays the first turn their table offers, read from and POSTed to the
    process at ``through``; the ply the game is at then."""
    here = through + "/" + game.split("/", 3)[3]
    for table in tables:
        shown = read_table(table.page.request.get(here).text(), 0.0)
        assert shown is not None and shown.status == "active", "the game is not in play"
        if shown.moves():
            table.post(here + "move/", {"ply": str(shown.ply), "move": shown.moves()[0]})
            return shown.ply + 1
    raise AssertionError("nobody is to move")


def relayed(tables: list[Table], game: str, through: str) -> float:
    """Seconds from a turn POSTed to the process at ``through`` until both tables show it."""
    started = time.monotonic()
    ply = play_a_turn(tables, game, through)
    for table in tables:
        wait_for_ply(table.page, ply)
    return time.monotonic() - started


@needs_redis
@needs_database
@pytest.mark.django_db(transaction=True)  # the served processes share the test database
def test_a_redis_restart_mid_game_heals_both_tables_without_a_reload(
    player: Callable[[Served, str], Table], redis: PrivateRedis, artifacts_dir: Path
) -> None:
    with served(database_url=the_test_database(), redis_url=redis.url) as site:
        tables = [player(site, name) for name in ("ruth", "ravi")]
        game = sit_down(tables, site)
        relayed(tables, game, site.url)

        redis.stop()
        down = time.monotonic()
        played = play_a_turn(tables, game, site.url)  # stored and answered; told to nobody
        time.sleep(max(0.0, 1 - (time.monotonic() - down)))
        redis.start()
        answering = time.monotonic()
        played = play_a_turn(tables, game, site.url)  # as Redis comes back

        for table in tables:
            wait_for_ply(table.page, played, timeout=max(0.0, answering + 5 - time.monotonic()))
        healed = time.monotonic() - answering
        tables[0].page.screenshot(path=artifacts_dir / "table-healed.png", full_page=True)
        print(f"both tables at ply {played} {healed:.2f} s after Redis answered again")
        for table in tables:
            assert SERVICE_RESTART in table.closed(), "closed by the server, to reconnect"
            assert not table.reloaded()
        assert healed < 5


@needs_redis
@needs_postgres
def test_the_first_turns_after_a_postgresql_restart_relay_as_fast_as_any(
    player: Callable[[Served, str], Table], redis: PrivateRedis
) -> None:
    with PrivatePostgres() as postgres:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": postgres.url},
            check=True,
            capture_output=True,
        )
        with served(database_url=postgres.url, redis_url=redis.url) as site:
            tables = [player(site, name) for name in ("pia", "pat")]
            game = sit_down(tables, site)
            # Each process's pool holds connections, which the restart will kill.
            before = [relayed(tables, game, through) for through in site.own_urls * 2]

            postgres.stop()
            time.sleep(2.5)
            postgres.start()
            after = [relayed(tables, game, through) for through in site.own_urls]

            print(f"relays before the restart {before}, the first after it {after}")
            # A connection made afresh takes milliseconds; the pool's wait between two dead
            # ones, 0.9 s at least.
            assert max(after) < 0.8


def _daphne_serving(site: Served, client_port: int) -> int:
    """The Daphne process that holds the connection from ``client_port`` to the shared port."""
    port = int(site.url.rsplit(":", 1)[1])
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, remote, state, inode_here = (line.split()[i] for i in (1, 2, 3, 9))
        ports = (int(local.split(":")[1], 16), int(remote.split(":")[1], 16))
        if ports == (port, client_port) and state == "01":  # established
            inode = inode_here
    assert inode, f"no connection from port {client_port}"
    for pid in _children(site.process.pid):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                if os.readlink(fd) == f"socket:[{inode}]":
                    return pid
            except FileNotFoundError:  # closed meanwhile
                continue
    raise AssertionError(f"no process of the site holds the connection from {client_port}")


def _children(pid: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _argv(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")


def _own_url(pid: int) -> str:
    """The address of its own at which the Daphne process ``pid`` answers."""
    found = re.search(r"tcp:port=(\d+)", _argv(pid))
    assert found, _argv(pid)
    return f"http://127.0.0.1:{found.group(1)}"


@needs_redis
@needs_database
@pytest.mark.django_db(transaction=True)  # the served processes share the test database
def test_a_page_whose_daphne_dies_reconnects_and_follows_the_game(
    player: Callable[[Served, str], Table], redis: PrivateRedis
) -> None:
    with served(database_url=the_test_database(), redis_url=redis.url) as site:
        tables = [player(site, name) for name in ("dora", "dev")]
        game = sit_down(tables, site)
        relayed(tables, game, site.url)
        # The first table's socket, opened first: its client's port, from Daphne's access log.
        socket_path = "/ws" + game[len(site.url) :]
        opened = re.findall(rf':(\d+) - - \[[^]]*\] "WSCONNECT {socket_path}"', site.log())
        victim = _daphne_serving(site, int(opened[0]))
        daphnes = [pid for pid in _children(site.process.pid) if "daphne" in _argv(pid)]
        survivor = next(pid for pid in daphnes if pid != victim)

        os.kill(victim, signal.SIGKILL)
        killed = time.monotonic()
        played = play_a_turn(tables, game, _own_url(survivor))
        wait_for_ply(tables[0].page, played, timeout=15)
        followed = time.monotonic() - killed
        print(f"the page followed the game {followed:.2f} s after its process was killed")
        assert ABNORMAL in tables[0].closed()
        assert not tables[0].reloaded()
        assert followed < 10
