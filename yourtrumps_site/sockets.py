"""Websocket endpoints of the site itself, beside the game's (``game.routing``)."""

from __future__ import annotations

from channels.generic.websocket import AsyncWebsocketConsumer

#: The close code of a socket opened on a path the site does not serve (like HTTP's 404).
UNKNOWN_PATH_CODE = 4404


class UnknownPathConsumer(AsyncWebsocketConsumer):
    """Refuse a socket on an unknown path: closed at the handshake, with no error logged.

    Without it, Channels' router raises ``ValueError("No route found")``, which the server logs
    as a traceback for every stray or probing connection.
    """

    async def connect(self) -> None:
        await self.close(code=UNKNOWN_PATH_CODE)
