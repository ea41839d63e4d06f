"""Websockets: one group per game and one for the lobby.

Consumers hold no game logic: services announce a change to a group after
their commit; each consumer renders the fresh partial for *its* viewer (a
player sees their own buttons, a spectator none) and sends it as an
out-of-band swap for htmx's websocket extension.

The game's socket also carries its chat (``moderation.chat``): the two players send lines over it
(htmx's ``ws-send``), and everyone gets the chat as *they* see it. A banned user's sockets are
refused, and close when the ban is given.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from game.forms import JoinForm
from game.models import Game
from game.selectors import open_seeks, table_for
from game.services import LOBBY_GROUP, game_group
from moderation import chat


class GameConsumer(AsyncWebsocketConsumer):
    """Players and spectators of one game; anyone may watch, so no login is needed."""

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["pk"])
        if await chat.refuses_socket(self.scope.get("user")):
            await self.close(code=chat.BANNED_CODE)
            return
        if not await database_sync_to_async(Game.objects.filter(pk=self.game_id).exists)():
            await self.close(code=4404)
            return
        self.group = game_group(self.game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.user_group = chat.socket_user_group(self.scope.get("user"))
        if self.user_group:
            await self.channel_layer.group_add(self.user_group, self.channel_name)
        await self.accept()
        # A reconnect may have missed changes: start from the table (and the chat, where the
        # game has one) as the server has them, in one message.
        chat_log = await chat.render_log(self.game_id, self.scope.get("user"))
        await self.send(text_data=await self._render() + chat_log)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if getattr(self, "user_group", None):
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """A chat line from a player; the answer (their form, emptied or with why it was
        refused) goes to them alone, the line to everyone through ``chat_changed``."""
        await self.send(
            text_data=await chat.receive(self.game_id, self.scope.get("user"), text_data)
        )

    async def game_changed(self, event: dict[str, Any]) -> None:
        await self.send(text_data=await self._render())

    async def chat_changed(self, event: dict[str, Any]) -> None:
        await self._send_chat()

    async def _send_chat(self) -> None:
        html = await chat.render_log(self.game_id, self.scope.get("user"))
        if html:
            await self.send(text_data=html)

    async def user_banned(self, event: dict[str, Any]) -> None:
        await self.close(code=chat.BANNED_CODE)

    @database_sync_to_async
    def _render(self) -> str:
        game = Game.objects.select_related("seat0", "seat1").get(pk=self.game_id)
        table = table_for(game, self.scope.get("user"))
        context = {"table": table, "user": self.scope.get("user"), "join_form": JoinForm()}
        html = render_to_string("game/_table.html", context)
        return html.replace('id="table"', 'id="table" hx-swap-oob="outerHTML"', 1)


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
