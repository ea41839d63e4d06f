"""Websockets: one group per game and one for the lobby.

Consumers hold no game logic. Services publish a change to a group after
their commit (:mod:`game.live`); each game consumer then sends its viewer the
table at the new version, as an out-of-band swap for htmx's websocket
extension. The table is rendered once per version and viewer (seat 0, seat 1,
a spectator) in this process, and the same bytes go to every socket of that
viewer (:class:`game.tables.TableCache`); the rendering reads the database in a
pool of threads of its own, so sockets never queue behind one shared thread.

The game's socket also carries its chat (``moderation.chat``): the two players send lines over it
(htmx's ``ws-send``), and everyone gets the chat as *they* see it. A banned user's sockets are
refused, and close when the ban is given.
"""

from __future__ import annotations

from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.db import DatabaseSyncToAsync, database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string

from game.live import LOBBY_GROUP, game_group
from game.models import Game
from game.selectors import open_seeks
from game.tables import TableCache, render_table, table_for
from moderation import chat

#: The threads that read and render tables for this process's sockets (``LIVE_THREADS``).
_RENDER_THREADS = ThreadPoolExecutor(settings.LIVE_THREADS, thread_name_prefix="table")
_TABLES = TableCache()

#: The close code of a socket for a game that does not exist.
NOT_FOUND_CODE = 4404


def _in_render_thread(function: Any) -> Any:
    return DatabaseSyncToAsync(function, thread_sensitive=False, executor=_RENDER_THREADS)


@_in_render_thread
def _seat_in(game_id: int, user: object) -> tuple[bool, int | None]:
    """Whether the game exists, and the seat ``user`` holds in it."""
    game = Game.objects.filter(pk=game_id).only("seat0_id", "seat1_id", "ai_level").first()
    return game is not None, game.seat_of(user) if game is not None else None


@_in_render_thread
def _render(game_id: int, seat: int | None, user: object) -> tuple[int, str]:
    """The table as the holder of ``seat`` sees it now, ready to swap in; with its version."""
    game = Game.objects.select_related("seat0", "seat1").get(pk=game_id)
    html = render_table(table_for(game, seat), user=user)
    return game.version, html.replace('id="table"', 'id="table" hx-swap-oob="outerHTML"', 1)


class GameConsumer(AsyncWebsocketConsumer):
    """Players and spectators of one game; anyone may watch, so no login is needed."""

    version = -1  # the version of the table this socket has sent

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["pk"])
        user = self.scope.get("user")
        if await chat.refuses_socket(user):
            await self.close(code=chat.BANNED_CODE)
            return
        exists, self.seat = await _seat_in(self.game_id, user)
        if not exists:
            await self.close(code=NOT_FOUND_CODE)
            return
        # Spectators see the same table, but for a join form that only the logged-in get.
        authenticated = bool(getattr(user, "is_authenticated", False))
        self.viewer: Hashable = self.seat if self.seat is not None else ("watching", authenticated)
        self.group = game_group(self.game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        _TABLES.watch(self.game_id)
        self.user_group = chat.socket_user_group(user)
        if self.user_group:
            await self.channel_layer.group_add(self.user_group, self.channel_name)
        await self.accept()
        # A reconnect may have missed changes: start from the table (and the chat, where the
        # game has one) as the server has them, in one message.
        html = await self._table(0, fresh=True)
        chat_log = await chat.render_log(self.game_id, user)
        await self.send(text_data=(html or "") + chat_log)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            _TABLES.unwatch(self.game_id)
        if getattr(self, "user_group", None):
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """A chat line from a player; the answer (their form, emptied or with why it was
        refused) goes to them alone, the line to everyone through ``chat_changed``."""
        await self.send(
            text_data=await chat.receive(self.game_id, self.scope.get("user"), text_data)
        )

    async def game_changed(self, event: dict[str, Any]) -> None:
        """The game is at ``event["version"]``: send the table, unless this socket has it."""
        html = await self._table(event["version"])
        if html is not None:
            await self.send(text_data=html)

    async def _table(self, version: int, *, fresh: bool = False) -> str | None:
        """The table at ``version`` or newer, or ``None`` when this socket sent it already."""
        if version <= self.version:
            return None

        def render() -> Any:
            return _render(self.game_id, self.seat, self.scope.get("user"))

        shown, html = await _TABLES.get(self.game_id, self.viewer, version, render, fresh=fresh)
        if shown <= self.version:
            return None
        self.version = shown
        return html

    async def chat_changed(self, event: dict[str, Any]) -> None:
        await self._send_chat()

    async def _send_chat(self) -> None:
        html = await chat.render_log(self.game_id, self.scope.get("user"))
        if html:
            await self.send(text_data=html)

    async def user_banned(self, event: dict[str, Any]) -> None:
        await self.close(code=chat.BANNED_CODE)


class LobbyConsumer(AsyncWebsocketConsumer):
    """The lobby's open seeks, pushed whenever one opens, closes or is taken."""

    async def connect(self) -> None:
        if await chat.refuses_socket(self.scope.get("user")):
            await self.close(code=chat.BANNED_CODE)
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        self.user_group = chat.socket_user_group(self.scope.get("user"))
        if self.user_group:
            await self.channel_layer.group_add(self.user_group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        if getattr(self, "user_group", None):
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def user_banned(self, event: dict[str, Any]) -> None:
        await self.close(code=chat.BANNED_CODE)

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self.send(text_data=await self._render())

    @database_sync_to_async
    def _render(self) -> str:
        html = render_to_string(
            "game/_seeks.html", {"seeks": list(open_seeks()), "user": self.scope.get("user")}
        )
        return html.replace('id="seeks"', 'id="seeks" hx-swap-oob="outerHTML"', 1)
