"""One person (:class:`Player`): a cookie jar and a CSRF token, the requests a browser sends
(sign-up or login, the table's reload, its POSTs: ``--via post``), and the sockets it keeps
open (the game's, which turns are sent over with ``--via socket``; its own, ``/ws/me/``),
reconnecting as htmx's extension does."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
from multidict import CIMultiDictProxy

from tools.loadtest.config import LoadTestError
from tools.loadtest.figures import POST_PARTS, megabytes, server_timing
from tools.loadtest.host import process_cpu_seconds, resident_kb_of
from tools.loadtest.shared import Run
from tools.loadtest.table import ERROR_NOTICE, TableView, csrf_token, html_text, read_table

T = TypeVar("T")


@dataclass
class _Socket:
    """A socket a player keeps open (its game's, its own), reconnecting when the server closes
    it, until ``closing``."""

    ws: aiohttp.ClientWebSocketResponse | None = None
    reader: asyncio.Task[None] | None = None
    closing: bool = False

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            await asyncio.gather(self.reader, return_exceptions=True)
            self.reader = None


class Player:
    """One person: a cookie jar, a CSRF token, at most one open game socket, and (with
    ``Config.own_sockets``) the socket of their own that every page opens."""

    def __init__(self, run: Run, name: str, session: aiohttp.ClientSession, url: str) -> None:
        self.run = run
        self.name = name
        self.http = session
        self.url = url  # the server this player talks to (one of the run's addresses)
        self.csrf = ""
        self.game_id = 0
        self.table: TableView | None = None  # the newest table from any source
        self.socket_version = -1  # the version of the last table the socket delivered
        self.socket_ply = -1  # the highest ply a socket table showed, and when it came
        self.socket_ply_received = 0.0
        self.changed = asyncio.Event()
        self._awaited: tuple[int, asyncio.Future[float]] | None = None
        self.refusal: str | None = None  # why the server refused this player's last turn
        self._table = _Socket()
        self._own = _Socket()

    # HTTP ------------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        kind: str,
        *,
        htmx: bool = True,
        via: aiohttp.ClientSession | None = None,
        **kwargs: Any,
    ) -> tuple[int, str, CIMultiDictProxy[str]]:
        """One request (redirects not followed; through the player's session, or ``via``
        another): its status, text and headers; or, when it fails on the way, the error counted
        under ``kind`` and :class:`Failed` raised."""
        headers = {"HX-Request": "true"} if htmx else {}
        ws = self._table.ws
        if htmx and method == "POST" and ws is not None and not ws.closed:
            # As the table's script does: with the socket open, it brings the mover's table.
            headers["X-Table-Live"] = "1"
        try:
            async with (via or self.http).request(
                method, self.url + path, headers=headers, allow_redirects=False, **kwargs
            ) as answer:
                text = await answer.text()
                return answer.status, text, answer.headers
        except TimeoutError:
            self.run.stats.error(f"timeout: {kind}")
        except aiohttp.ClientError as error:
            self.run.stats.error(f"{type(error).__name__}: {kind}")
        raise Failed(kind)

    async def post(
        self,
        path: str,
        kind: str,
        data: dict[str, str],
        htmx: bool = True,
        via: aiohttp.ClientSession | None = None,
    ) -> tuple[int, str, CIMultiDictProxy[str]]:
        """A form's POST, with the CSRF token its page carries."""
        return await self.request(
            "POST", path, kind, htmx=htmx, via=via, data={"csrfmiddlewaretoken": self.csrf, **data}
        )

    async def resign(self) -> None:
        """Resign the game, as the table's button does."""
        status, html, _ = await self.post(f"/games/{self.game_id}/resign/", "POST resign", {})
        if status not in (200, 204):
            self.run.stats.error(f"HTTP {status}: POST resign")
            raise Failed("resign")
        self.see(read_table(html, self.run.clock()))

    async def post_turn(self, notation: str, ply: int) -> tuple[TableView | None, dict[str, float]]:
        """Play a turn as the table's POST does: the answer's table, if it carries one (a server
        whose socket brings the mover's table answers without), and the parts of its time the
        server's ``Server-Timing`` gave (:data:`POST_PARTS`, none if it gave not all of them)."""
        status, html, headers = await self.post(
            f"/games/{self.game_id}/move/", "POST move", {"ply": str(ply), "move": notation}
        )
        if status not in (200, 204):
            self.run.stats.error(f"HTTP {status}: POST move")
            raise Failed("move")
        answer = self.see(read_table(html, self.run.clock()))
        notice = ERROR_NOTICE.search(html)
        if notice or (answer is not None and answer.ply != ply + 1):
            refused = html_text(notice.group(1)) if notice else "the answer shows another ply"
            self.run.stats.error(f"refused: {refused}")
            raise Failed("move")
        in_server = server_timing(headers.get("Server-Timing", ""))
        if not all(name in in_server for name in POST_PARTS):
            return answer, {}
        return answer, {name: in_server[name] for name in POST_PARTS}

    async def send_turn(self, notation: str, ply: int, deadline: float) -> TableView:
        """Play a turn over the game's socket, as the table does while it is open, and wait for
        the socket to bring this player's table at the next ply (or say why it was refused)."""
        ws = self._table.ws
        if ws is None or ws.closed:
            self.run.stats.error("socket closed: turn not sent")
            raise Failed("move")
        self.refusal = None
        try:
            await ws.send_str(json.dumps({"move": notation, "ply": ply}))
        except (aiohttp.ClientError, ConnectionError) as error:
            self.run.stats.error(f"socket failed: {type(error).__name__}: turn")
            raise Failed("move") from None
        if await self.socket_shows(ply + 1, deadline) is None:
            self.run.stats.error("timeout: the mover's socket never showed the turn")
            raise Failed("move")
        if self.refusal is not None:
            self.run.stats.error(f"refused: {self.refusal}")
            raise Failed("move")
        assert self.table is not None
        return self.table

    async def log_in(self, password: str, address: str | None = None) -> None:
        """Sign up over HTTP (from ``address``, when given, with this player's cookies), or log
        in if the name is taken; then read a CSRF token."""
        if address is None:
            await self._sign_up(password, self.http)
        else:
            bound = aiohttp.TCPConnector(local_addr=(address, 0), family=socket.AF_INET)
            async with aiohttp.ClientSession(
                connector=bound, cookie_jar=self.http.cookie_jar, timeout=self.http.timeout
            ) as via:
                await self._sign_up(password, via)
        await self.read_csrf()

    async def _sign_up(self, password: str, via: aiohttp.ClientSession) -> None:
        _, page, _ = await self.request(
            "GET", "/accounts/signup/", "GET sign-up", htmx=False, via=via
        )
        self.csrf = csrf_token(page)
        status, page, headers = await self.post(
            "/accounts/signup/",
            "POST sign-up",
            {"username": self.name, "password1": password, "password2": password, "email": ""},
            htmx=False,
            via=via,
        )
        if status == 429:
            raise LoadTestError(
                f"the server refused {self.name}'s sign-up: too many from one address (429, "
                f"again in {headers.get('Retry-After')} s); raise its LIMIT_SIGNUPS for the run, "
                "or use --players db"
            )
        if status != 302:
            _, page, _ = await self.request(
                "GET", "/accounts/login/", "GET login", htmx=False, via=via
            )
            self.csrf = csrf_token(page)
            status, page, _ = await self.post(
                "/accounts/login/",
                "POST login",
                {"username": self.name, "password": password},
                htmx=False,
                via=via,
            )
            if status != 302:
                raise LoadTestError(f"{self.name} could neither sign up nor log in ({status})")

    async def read_csrf(self) -> None:
        """The lobby's form token, as a page the player has open would carry."""
        status, page, _ = await self.request("GET", "/play/", "GET lobby", htmx=False)
        if status != 200:
            raise LoadTestError(f"{self.name}: the lobby answered {status}")
        self.csrf = csrf_token(page)

    async def refresh(self) -> TableView | None:
        """Reload the table partial, as a person pressing reload would."""
        status, html, _ = await self.request("GET", f"/games/{self.game_id}/", "GET table")
        if status != 200:
            self.run.stats.error(f"HTTP {status}: GET table")
            return None
        return self.see(read_table(html, self.run.clock()))

    def see(self, table: TableView | None) -> TableView | None:
        """Keep ``table`` if it is newer than the one the player has."""
        if table is not None and (self.table is None or table.version >= self.table.version):
            self.table = table
            self.changed.set()
        return table

    # The socket ------------------------------------------------------------------------------

    async def open_socket(self, game_id: int, *, initial: bool = False) -> None:
        """Open the game's socket and wait for the table it sends on connect; ``initial``: one
        of the sockets opened as the run starts, whose opening is timed as a whole."""
        await self.close_socket()
        self.game_id, self.table = game_id, None
        self.socket_version, self.socket_ply = -1, -1
        self._table = _Socket()
        started = self.run.clock()
        first: asyncio.Future[float] = asyncio.get_running_loop().create_future()

        def on_text(text: str) -> None:
            self._on_message(text, first)

        path = f"/ws/games/{game_id}/"
        arrived = await self._open(self._table, path, on_text, first, "socket's first table")
        stats = self.run.stats
        stats.connect.append(arrived - started)
        stats.sockets_opened += 1
        if initial:
            stats.first_socket_started = min(stats.first_socket_started, started)
            stats.last_first_table = max(stats.last_first_table, arrived)
            stats.first_tables += 1
            if stats.first_tables == 2 * self.run.config.games:
                pids = self.run.config.pids
                stats.server_cpu_seated = {p: process_cpu_seconds(p) for p in pids}
                stats.resident_kb_seated = resident_kb_of(pids)
                if pids:
                    self.run.say(
                        f"  all {stats.first_tables} sockets open; resident memory (MB): "
                        + ", ".join(
                            f"pid {p} {megabytes(kb)}" for p, kb in stats.resident_kb_seated.items()
                        )
                    )

    async def open_own_socket(self) -> None:
        """Open the player's own socket and wait for the notices it sends on connect."""
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def heard(_: str) -> None:
            if not first.done():
                first.set_result(None)

        self._own = _Socket()
        await self._open(self._own, "/ws/me/", heard, first, "own socket's first message")
        self.run.stats.own_sockets_opened += 1

    async def _open(
        self,
        socket: _Socket,
        path: str,
        on_text: Callable[[str], None],
        first: asyncio.Future[T],
        awaited: str,
    ) -> T:
        """Follow ``socket`` at ``path`` and wait for ``first``, which ``on_text`` sets from
        what the server sends on connect (``awaited``, in the error of a wait that times out)."""
        socket.reader = asyncio.create_task(self._follow(socket, path, on_text))
        try:
            return await asyncio.wait_for(asyncio.shield(first), self.run.config.http_timeout)
        except TimeoutError:
            self.run.stats.error(f"timeout: {awaited}")
            raise Failed(awaited) from None

    async def _follow(self, socket: _Socket, path: str, on_text: Callable[[str], None]) -> None:
        """Read ``socket`` at ``path`` until it is closed; a close the player did not ask for is
        an error, and the socket reconnects as htmx's extension does: after a random delay that
        doubles with each failure in a row, up to 64 s ("full jitter"), so that a server that is
        slow to accept is not also flooded with reconnections."""
        run = self.run
        url = "ws" + self.url.removeprefix("http") + path
        failures = 0
        while not socket.closing:
            try:
                async with self.http.ws_connect(
                    url, headers={"Origin": self.url}, autoping=True, max_msg_size=0
                ) as ws:
                    socket.ws = ws
                    failures = 0
                    async for message in ws:
                        if message.type == aiohttp.WSMsgType.TEXT:
                            on_text(message.data)
                    problem = f"socket closed by the server: code {ws.close_code}"
            except aiohttp.WSServerHandshakeError as error:
                problem = f"socket refused: HTTP {error.status}"
            except (aiohttp.ClientError, TimeoutError) as error:
                problem = f"socket failed: {type(error).__name__} {error}"[:120]
            socket.ws = None
            if socket.closing:
                return
            run.stats.error(problem)
            failures += 1
            await run.sleep(run.rng.uniform(0, min(64.0, 2.0**failures)))

    def _on_message(self, text: str, first: asyncio.Future[float]) -> None:
        now = self.run.clock()
        table = read_table(text, now)
        if table is None:
            return  # a chat line
        if not first.done():
            first.set_result(now)
        if table.version > self.socket_version:
            self.socket_version = table.version
        if table.ply > self.socket_ply:
            self.socket_ply, self.socket_ply_received = table.ply, now
        self.see(table)
        refusal = table.error()
        if refusal is not None:
            self.refusal = refusal
        if self._awaited is not None and (table.ply >= self._awaited[0] or refusal is not None):
            future = self._awaited[1]
            if not future.done():
                future.set_result(now)
            self._awaited = None

    async def socket_shows(self, ply: int, deadline: float) -> float | None:
        """When the socket delivered a table at ``ply`` or later, or ``None`` by ``deadline``."""
        if self.socket_ply >= ply:  # it came before the mover's POST had its answer
            return self.socket_ply_received
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._awaited = (ply, future)
        try:
            return await asyncio.wait_for(future, max(0.0, deadline - self.run.clock()))
        except TimeoutError:
            return None
        finally:
            self._awaited = None

    async def close_socket(self) -> None:
        await self._table.close()

    async def close_sockets(self) -> None:
        """Close the game's socket and the player's own."""
        await asyncio.gather(self._table.close(), self._own.close())


class Failed(Exception):
    """A step failed; its error is counted already."""
