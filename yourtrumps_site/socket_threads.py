"""The threads that run the websockets' database work, and the socket stack's login on them.

Channels runs every consumer's sync code (``database_sync_to_async``) on one thread
shared by the whole process: under a crowd, each socket's login, ban check and
table queued behind every other's (1,000 sockets took 36 s to open). Socket work
here runs on a pool of ``LIVE_THREADS`` threads instead; what it does is short
(a few queries), so a few threads keep the database busy without fighting for
the GIL. The games in play (turns and their tables) have a pool of their own:
behind a crowd opening its sockets, turns sent over them waited seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.auth import AuthMiddleware, CookieMiddleware, SessionMiddleware
from channels.auth import get_user as channels_get_user
from channels.db import DatabaseSyncToAsync
from django.conf import settings

_THREADS = ThreadPoolExecutor(settings.LIVE_THREADS, thread_name_prefix="socket-db")
_PLAY_THREADS = ThreadPoolExecutor(
    max(1, settings.LIVE_THREADS // 2), thread_name_prefix="socket-play"
)


def in_socket_thread(function: Callable[..., Any]) -> Any:
    """``function`` as a coroutine run in the sockets' threads (closing stale connections around
    it, as ``database_sync_to_async`` does)."""
    return DatabaseSyncToAsync(function, thread_sensitive=False, executor=_THREADS)


def in_play_thread(function: Callable[..., Any]) -> Any:
    """:func:`in_socket_thread` for the games in play: turns and tables."""
    return DatabaseSyncToAsync(function, thread_sensitive=False, executor=_PLAY_THREADS)


_get_user = in_socket_thread(channels_get_user.func)


class PooledAuthMiddleware(AuthMiddleware):
    """Channels' ``AuthMiddleware``, reading the session's user in the sockets' threads."""

    async def resolve_scope(self, scope: dict[str, Any]) -> None:
        scope["user"]._wrapped = await _get_user(scope)


def AuthMiddlewareStack(inner: Any) -> Any:
    return CookieMiddleware(SessionMiddleware(PooledAuthMiddleware(inner)))
