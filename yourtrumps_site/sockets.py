"""Websocket endpoints of the site itself, beside the game's (``game.routing``)."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.middleware import BaseMiddleware
from django.db import reset_queries

#: The close code of a socket opened on a path the site does not serve (like HTTP's 404).
UNKNOWN_PATH_CODE = 4404


class UnknownPathConsumer(AsyncWebsocketConsumer):
    """Refuse a socket on an unknown path: closed at the handshake, with no error logged.

    Without it, Channels' router raises ``ValueError("No route found")``, which the server logs
    as a traceback for every stray or probing connection.
    """

    async def connect(self) -> None:
        await self.close(code=UNKNOWN_PATH_CODE)


class ForgetQueries(BaseMiddleware):
    """With ``DEBUG``, Django logs each thread's last 9,000 queries and forgets them when a
    request starts, which a socket's handshake is not: the thread where Channels reads each new
    socket's session and user kept them all (about 10 MB under a crowd). Each socket forgets
    them there first."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> Any:
        await database_sync_to_async(reset_queries)()
        return await super().__call__(scope, receive, send)
