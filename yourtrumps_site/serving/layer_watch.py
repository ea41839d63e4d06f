"""Sockets that would hear nothing are closed: a heartbeat through the channel layer.

channels-redis's pub/sub layer loses its subscriptions when its connection to Redis cannot be
made again at once: after a Redis restart every socket stays open and hears no turn again, and the
layer's ``on_disconnect`` and ``on_reconnect`` hooks are never called (4.3). So each process sends
a heartbeat to a channel of its own through the layer (:class:`Heartbeat`). When one cannot be
sent or does not come back, the layer is made like new (``flush``, its public reset: the next
subscription is made afresh) and :class:`LayerWatch` closes every socket of the process with
:data:`RESTART_CODE`. The page reconnects as htmx's websocket extension does on 1012, "service
restart" (and 1006, 1011, 1013), after a random pause that doubles with each failed try
(``static/js/sockets.js``). Until a heartbeat comes back, a new socket is refused at its
handshake, so that its page tries again later rather than hang; once one does, a page's new
socket is sent the table as it is then (``game.consumers``), turns made meanwhile included.

The in-memory layer of one process loses nothing and is not watched (``yourtrumps_site.asgi``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

#: The site's "service restart", on which a page reconnects (``static/js/sockets.js``): Daphne
#: lets an application close a socket only with 1000 or 3000-4999, so not with 1012 itself.
RESTART_CODE = 4012

Message = dict[str, Any]
Send = Callable[[Message], Awaitable[None]]


class Heartbeat:
    """This process's heartbeat through the channel layer: a message to a channel of its own,
    which must come back. ``up`` says whether the last one did; ``lost`` is awaited once each
    time they stop coming back."""

    #: Seconds between two heartbeats while they come back: one message through Redis.
    every = 0.5
    #: Seconds a heartbeat may take to come back. A relay takes milliseconds, even at 500 games
    #: (docs/load.md); a false alarm would close every socket of the process.
    wait = 2.0
    #: Seconds between two tries while they do not: a refused connection costs microseconds.
    retry = 0.25

    def __init__(self, lost: Callable[[], Awaitable[None]]) -> None:
        self.up = True
        self._lost = lost
        self._channel: str | None = None

    async def run(self) -> None:
        layer = get_channel_layer()
        while True:
            try:
                await self._beat(layer)
            except Exception as error:  # Redis is gone, or the layer went deaf
                await self._fail(layer, error)
                await asyncio.sleep(self.retry)
            else:
                if not self.up:
                    self.up = True
                    log.warning("The channel layer answers again: sockets are accepted.")
                await asyncio.sleep(self.every)

    async def _beat(self, layer: Any) -> None:
        if self._channel is None:
            self._channel = await layer.new_channel("heartbeat.")
        await layer.send(self._channel, {"type": "heartbeat"})
        await asyncio.wait_for(layer.receive(self._channel), self.wait)

    async def _fail(self, layer: Any, error: Exception) -> None:
        self._channel = None
        try:
            await layer.flush()
        except Exception:
            log.exception("The channel layer could not be made like new")
        if self.up:
            self.up = False
            log.warning(
                "The channel layer stopped answering (%s): this process's sockets are closed, "
                "and new ones refused until it answers again.",
                str(error) or type(error).__name__,
            )
            await self._lost()


class _Socket:
    """One socket's way to the server, which :class:`LayerWatch` may close: after that, what
    its consumer sends is dropped (an accept after the handshake was refused would raise)."""

    __slots__ = ("_send", "closed")

    def __init__(self, send: Send) -> None:
        self._send = send
        self.closed = False

    async def send(self, message: Message) -> None:
        if not self.closed:
            await self._send(message)

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await self._send({"type": "websocket.close", "code": RESTART_CODE})


class LayerWatch:
    """ASGI middleware over the sockets: it keeps this process's open sockets, closes them all
    when the heartbeat stops coming back, and refuses new ones until it does again. The
    heartbeat starts with the first socket, on the server's event loop."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sockets: set[_Socket] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._heartbeat: Heartbeat | None = None
        self._task: asyncio.Task[None] | None = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Send) -> None:
        if not self._beating().up:
            await receive()  # the handshake, refused: the page tries again later
            await send({"type": "websocket.close", "code": RESTART_CODE})
            return
        socket = _Socket(send)
        self.sockets.add(socket)
        try:
            await self.inner(scope, receive, socket.send)
        finally:
            self.sockets.discard(socket)

    def _beating(self) -> Heartbeat:
        """The heartbeat of the running loop, started with its first socket (a server has one
        loop; each test has its own)."""
        loop = asyncio.get_running_loop()
        if self._heartbeat is None or self._loop is not loop:
            self._loop = loop
            self._heartbeat = Heartbeat(self._close_all)
            self._task = loop.create_task(self._heartbeat.run(), name="channel layer heartbeat")
        return self._heartbeat

    async def _close_all(self) -> None:
        for socket in list(self.sockets):
            await socket.close()
