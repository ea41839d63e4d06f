"""The lobby's two sockets: its open seeks (``ws/lobby/``), pushed whenever one opens, closes or
is taken, and quick pairing (``ws/pool/``), a player's way into the pool (:mod:`game.pool`)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections import OrderedDict
from typing import Any

from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from game import pool
from game.consumers.sockets import (
    BANNED_CODE,
    InUserGroup,
    LoggedInSocket,
    in_db_thread,
    oob,
    refuses_socket,
)
from game.live import LOBBY_GROUP
from game.models import Game
from game.selectors import lobby_seeks
from game.services import GameError
from game.templatetags.lobby import seeks_html

logger = logging.getLogger(__name__)


_read_seeks = in_db_thread(lobby_seeks)


class LobbySeeks:
    """The open seeks, read once per lobby change by this process's lobby sockets together: a
    change is announced to every lobby socket, and each read them on its own (two queries per
    socket per seek opened or taken). Each change carries an id of its own (``publish_lobby``)
    and is sent once committed; the sockets hearing it share one read, started when the first
    of them hears it, and each writes its list (a player's own seeks say so) from it. The reads
    of the last ``keep`` changes are kept while late sockets may still ask."""

    def __init__(self, keep: int = 16) -> None:
        self.keep = keep
        self._reads: OrderedDict[str, asyncio.Future[tuple[list[Game], int]]] = OrderedDict()

    async def read(self, change: str | None) -> tuple[list[Game], int]:
        if change is None:
            return await _read_seeks()
        read = self._reads.get(change)
        if read is None:
            read = self._reads[change] = asyncio.ensure_future(_read_seeks())
            while len(self._reads) > self.keep:
                self._reads.popitem(last=False)
        return await asyncio.shield(read)


_LOBBY_SEEKS = LobbySeeks()


class LobbyConsumer(InUserGroup):
    """The lobby's open seeks, pushed whenever one opens, closes or is taken."""

    async def connect(self) -> None:
        if await refuses_socket(self.scope.get("user")):
            await self.close(code=BANNED_CODE)
            return
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.join_user_group()
        await self.accept()
        # A reconnect (after a Redis restart, say) may have missed changes: start from the seeks
        # as they stand.
        await self.lobby_changed({})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        await super().disconnect(code)

    async def seek_joined(self, event: dict[str, Any]) -> None:
        """Someone joined this user's seek: the page goes to the table (``static/js/lobby.js``),
        or shows the way there."""
        html = render_to_string("game/_seek_joined.html", {"url": event["url"]})
        await self.send(text_data=oob(html, "seek-joined"))

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        seeks, more = await _LOBBY_SEEKS.read(event.get("change"))
        await self.send(text_data=await self._render(seeks, more))

    @in_db_thread
    def _render(self, seeks: list[Game], more: int) -> str:
        return oob(seeks_html(seeks, more, self.scope.get("user")), "seeks")


#: The longest frame a pool socket reads: ``{"clock": "10+5", "rated": false}`` with room.
MAX_POOL_FRAME = 128


def _pool_entry(text_data: str | None) -> tuple[tuple[int, int], bool] | None:
    """The time control and rated flag a pool socket's frame asks for, or ``None`` when it
    cannot be read (a time control not offered is the service's to refuse)."""
    if not isinstance(text_data, str) or len(text_data) > MAX_POOL_FRAME:
        return None
    try:
        data = json.loads(text_data)
        minutes, _plus, increment = data["clock"].partition("+")
        return (int(minutes), int(increment)), data.get("rated", True) is not False
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def _looking(waiting: pool.Waiting) -> str:
    """What the page says while its player waits in the pool, with the ratings they accept."""
    if waiting.range is None:
        return _("Looking for an opponent of any rating…")
    low, high = waiting.rating - waiting.range, waiting.rating + waiting.range
    return _("Looking for an opponent rated %(low)s to %(high)s…") % {"low": low, "high": high}


class PoolConsumer(LoggedInSocket):
    """A lobby's quick pairing (``game.pool``, ``static/js/pool.js``): the page sends the time
    control, and hears JSON back: ``status`` while waiting (again each second, as the range of
    ratings widens), ``url`` once paired, ``error`` when refused or when another page of the
    player entered the pool (the socket then closes). Closing the socket leaves the pool.

    Channels' own consumer, its database work in the sockets' threads."""

    asker: asyncio.Task[None] | None = None

    async def disconnect(self, code: int) -> None:
        if self.asker is not None:
            self.asker.cancel()
        if self.user_group:  # it was open: its entry, if any, leaves the pool
            await super().disconnect(code)
            await in_db_thread(pool.pool_leave)(channel_name=self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The page's choice of time control: enter the pool (once per socket)."""
        if self.asker is not None:
            return
        asked = _pool_entry(text_data)
        if asked is None:
            await self._refuse(_("Choose a time control."))
            return
        time_control, rated = asked
        try:
            result = await in_db_thread(pool.pool_enter)(
                user=self.scope["user"],
                channel_name=self.channel_name,
                time_control=time_control,
                rated=rated,
            )
        except GameError as error:
            await self._refuse(str(error))
            return
        if isinstance(result, pool.Waiting):  # once paired, pool_paired says where to go
            await self.send(text_data=json.dumps({"status": _looking(result)}))
        self.asker = asyncio.ensure_future(self._ask_every_second())

    async def _ask_every_second(self) -> None:
        """Ask to be paired again about each second, with the range widened by the wait, until
        the entry is gone (paired, or replaced by another page's: each says so in its message).
        The pause is random, half a second to one: two sockets that arrived together and asked
        at the same moment would each hold its own entry and skip the other's, again and again."""
        ask = in_db_thread(pool.pool_ask)
        while True:
            await asyncio.sleep(random.uniform(0.5, 1.0) * pool.ASK_EVERY.total_seconds())
            try:
                result = await ask(channel_name=self.channel_name)
            except Exception:  # a failed ask (the database restarting) is tried again
                logger.exception("pool socket %s could not ask for a pairing", self.channel_name)
                continue
            if not isinstance(result, pool.Waiting):
                return
            await self.send(text_data=json.dumps({"status": _looking(result)}))

    async def _refuse(self, why: str) -> None:
        await self.send(text_data=json.dumps({"error": why}))
        await self.close()

    async def pool_paired(self, event: dict[str, Any]) -> None:
        """Paired: the page goes to the new table."""
        if self.asker is not None:
            self.asker.cancel()
        await self.send(text_data=json.dumps({"url": event["url"]}))

    async def pool_left(self, event: dict[str, Any]) -> None:
        """Another page of this player entered the pool in this one's place."""
        await self._refuse(_("You are looking for an opponent on another page."))
