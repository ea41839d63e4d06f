"""What the site's sockets share: the threads their database work runs in, the close codes that
say why a socket was refused, and the user group through which a ban closes a user's sockets."""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import reset_queries

from game.live import user_group

#: The close code of a socket for a game that does not exist.
NOT_FOUND_CODE = 4404
#: The close code of a socket refused or closed because its user is banned.
BANNED_CODE = 4403
#: The close code of a user's own socket opened by no one logged in.
LOGIN_NEEDED_CODE = 4401


#: The sockets' threads: Channels shares one thread among all of a process's sync code, and a
#: crowd's logins, turns and pool arrivals queued there for seconds on ``make serve``.
_THREADS = ThreadPoolExecutor(settings.SOCKET_THREADS, thread_name_prefix="socket-db")


def in_db_thread(function: Callable[..., Any]) -> Any:
    """``function`` as a coroutine run by Channels' ``database_sync_to_async`` in the sockets'
    threads (:data:`_THREADS`), starting as a request does: with ``DEBUG``, Django logs a
    thread's last 9,000 queries and forgets them when a request starts, which a socket's work is
    not. A turn's statement carries the game's state, so that the log of the one thread that runs
    them held 38 MB after 40 s of 50 games."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        reset_queries()
        return function(*args, **kwargs)

    return database_sync_to_async(run, thread_sensitive=False, executor=_THREADS)


def oob(html: str, element_id: str) -> str:
    """``html`` marked as an out-of-band swap of its element ``element_id`` (htmx's websocket
    extension swaps each such element in place)."""
    marker = f'id="{element_id}"'
    return html.replace(marker, f'{marker} hx-swap-oob="outerHTML"', 1)


def banned(user: object) -> bool:
    """Whether ``user``'s sockets are refused: a banned (or closed) account, read afresh, as a
    socket's user was read when it opened. A ban makes the account inactive."""
    return bool(getattr(user, "is_authenticated", False)) and (
        get_user_model().objects.filter(pk=user.pk, is_active=False).exists()
    )


def _user_group(user: object) -> str | None:
    """The group that reaches all of a logged-in user's sockets (to close them on a ban)."""
    return user_group(user.pk) if getattr(user, "is_authenticated", False) else None


refuses_socket = in_db_thread(banned)


class InUserGroup(AsyncWebsocketConsumer):
    """A socket in its user's group (:func:`game.live.user_group`), when someone is logged in:
    a ban closes it. The group's other messages are for the user's other sockets; a consumer
    shows those it is for."""

    user_group: str | None = None

    async def join_user_group(self) -> None:
        self.user_group = _user_group(self.scope.get("user"))
        if self.user_group:
            await self.channel_layer.group_add(self.user_group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if self.user_group:
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def user_banned(self, event: dict[str, Any]) -> None:
        await self.close(code=BANNED_CODE)

    async def seek_joined(self, event: dict[str, Any]) -> None:
        """A seek of this user's was joined: the lobby's socket takes them to the table."""

    async def challenge_changed(self, event: dict[str, Any]) -> None:
        """A challenge to or from this user changed: their own socket shows it (UserConsumer)."""


class LoggedInSocket(InUserGroup):
    """A socket only for someone logged in and not banned, closed with a code that says which."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if not getattr(user, "is_authenticated", False):
            await self.close(code=LOGIN_NEEDED_CODE)
            return
        if await refuses_socket(user):
            await self.close(code=BANNED_CODE)
            return
        await self.join_user_group()
        await self.accept()
        await self.opened(user)

    async def opened(self, user: Any) -> None:
        """The socket is open for ``user``."""
