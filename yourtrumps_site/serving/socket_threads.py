"""The threads that run the websockets' database work, and the socket stack's login on them.

Channels runs every consumer's sync code (``database_sync_to_async``) on one thread
shared by the whole process: under a crowd, each socket's login, ban check and
table queued behind every other's (1,000 sockets took 36 s to open). Socket work
here runs on a pool of ``LIVE_THREADS`` threads instead; what it does is short
(a few queries), so a few threads keep the database busy without fighting for
the GIL. The games in play (turns and their tables) have a pool of their own:
behind a crowd opening its sockets, turns sent over them waited seconds.

The site's consumers (:class:`SocketConsumer`) also skip the trip to that shared thread that
Channels makes before every message it hands them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.auth import AuthMiddleware, CookieMiddleware, SessionMiddleware
from channels.auth import get_user as channels_get_user
from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import reset_queries

_THREADS = ThreadPoolExecutor(settings.LIVE_THREADS, thread_name_prefix="socket-db")
_PLAY_THREADS = ThreadPoolExecutor(settings.PLAY_THREADS, thread_name_prefix="socket-play")


def in_socket_thread(function: Callable[..., Any]) -> Any:
    """``function`` as a coroutine run in the sockets' threads (closing stale connections around
    it, as ``database_sync_to_async`` does)."""
    return DatabaseSyncToAsync(_as_a_request(function), thread_sensitive=False, executor=_THREADS)


def in_play_thread(function: Callable[..., Any]) -> Any:
    """:func:`in_socket_thread` for the games in play: turns and tables."""
    return DatabaseSyncToAsync(
        _as_a_request(function), thread_sensitive=False, executor=_PLAY_THREADS
    )


def _as_a_request(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, starting as a request does: with ``DEBUG``, Django logs each thread's last
    9,000 queries and forgets them when a request starts, which a socket's work is not. A turn's
    statement carries the game's state, which grows with its turns, so that the socket threads'
    logs grew all through a long run (38 MB in 40 s of 50 games on one process)."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        if settings.DEBUG:
            reset_queries()
        return function(*args, **kwargs)

    return run


class SocketConsumer(AsyncWebsocketConsumer):
    """A websocket consumer whose messages are handled on the event loop alone.

    Channels closes stale database connections before every message a consumer handles, in the
    thread that all of the process's thread-sensitive sync code shares: a trip there for every
    socket that hears of a turn, queued behind all the others. The site's consumers touch the
    database only through :func:`in_socket_thread` and :func:`in_play_thread`, which close stale
    connections around each call in their own threads, so that trip is skipped, and so is the
    one Channels makes again when a socket closes (a crowd leaving queued there too).
    """

    async def dispatch(self, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        for group in self.groups:
            await self.channel_layer.group_discard(group, self.channel_name)
        await self.disconnect(message["code"])
        raise StopConsumer()


_get_user = in_socket_thread(channels_get_user.func)


class PooledAuthMiddleware(AuthMiddleware):
    """Channels' ``AuthMiddleware``, reading the session's user in the sockets' threads."""

    async def resolve_scope(self, scope: dict[str, Any]) -> None:
        scope["user"]._wrapped = await _get_user(scope)


def AuthMiddlewareStack(inner: Any) -> Any:
    return CookieMiddleware(SessionMiddleware(PooledAuthMiddleware(inner)))
