"""Websockets: one group per game and one for the lobby.

Consumers hold no game logic. Services publish a change to a group after their commit
(:mod:`game.live`); each game consumer then sends its viewer what changed: after a turn, that
turn's update (the board, one new line of the move log, the actions: htmx out-of-band swaps
whose size does not grow with the game), else the whole table. Each is rendered once per
version and viewer (seat 0, seat 1, a spectator; in one language) in this process, and the same
bytes go to every socket of that viewer (:class:`game.tables.TableCache`). A socket that missed
a version gets the whole table, as does a socket that connects.

A player's turns come over the game's socket while it is open (``static/js/table.js``) and land
through the same service as the table's POST, in the sockets' database thread
(:func:`_in_db_thread`); the updates are rendered afterwards on the event loop from the game
this process keeps, not in the thread that the next turns wait for. A refused turn is answered
to its sender alone, as the table with why.

The game's socket also carries its chat (``chat.sockets``): the two players send lines over it
(htmx's ``ws-send``), and everyone gets the chat as *they* see it. A banned user's sockets are
refused, and close when the ban is given.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import logging
import random
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import reset_queries
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from chat.services import ChatError
from chat.sockets import form_html, log_html, parse_line
from game import pool
from game.live import (
    LIVE_GAMES,
    LOBBY_GROUP,
    Ended,
    Message,
    Moved,
    game_group,
    held_messages,
    send_held,
    user_group,
)
from game.models import Challenge, Game
from game.selectors import (
    challenge_with_players,
    chat_room,
    game_with_players,
    lobby_seeks,
    notations_of,
    stored_state,
    version_of,
)
from game.services import GameError
from game.services.chat import game_chat_post
from game.services.play import game_play_move
from game.table_markup import render_table, render_turn
from game.tables import Table, TableCache, Update, table_for, tables_for
from game.templatetags.challenges import notices_html
from game.templatetags.lobby import seeks_html

logger = logging.getLogger(__name__)

#: The close code of a socket for a game that does not exist.
NOT_FOUND_CODE = 4404
#: The close code of a socket refused or closed because its user is banned.
BANNED_CODE = 4403
#: The close code of a user's own socket opened by no one logged in.
LOGIN_NEEDED_CODE = 4401


#: The sockets' threads: Channels shares one thread among all of a process's sync code, and a
#: crowd's logins, turns and pool arrivals queued there for seconds on ``make serve``.
_THREADS = ThreadPoolExecutor(settings.SOCKET_THREADS, thread_name_prefix="socket-db")


def _in_db_thread(function: Callable[..., Any]) -> Any:
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


def _refused(user: object) -> bool:
    """Whether ``user``'s sockets are refused: a banned (or closed) account, read afresh, as a
    socket's user was read when it opened. A ban makes the account inactive."""
    return bool(getattr(user, "is_authenticated", False)) and (
        get_user_model().objects.filter(pk=user.pk, is_active=False).exists()
    )


def _user_group(user: object) -> str | None:
    """The group that reaches all of a logged-in user's sockets (to close them on a ban)."""
    return user_group(user.pk) if getattr(user, "is_authenticated", False) else None


@dataclass(frozen=True)
class _Arrival:
    """What a socket gets on connecting, read in one go: whether it is refused (a banned user, a
    game that does not exist), or its viewer (seat and language), and the table at the game's
    version with the chat as they see it."""

    refused_code: int | None
    viewer: Hashable = None
    version: int = -1
    html: str = ""


def _viewer(seat: int | None, user: object) -> Hashable:
    """Whom a table is rendered for: a seat, or a spectator (who gets a join form only if logged
    in); in the socket's language (``yourtrumps_site.socket_language``)."""
    authenticated = bool(getattr(user, "is_authenticated", False))
    return (seat if seat is not None else ("watching", authenticated), translation.get_language())


def _whole(table: Table, viewer: Hashable, user: object) -> str:
    """The whole table as ``viewer`` sees it, marked to swap in."""
    with translation.override(viewer[1]):
        return oob(render_table(table, user=user), "table")


def _turn_update(table: Table, viewer: Hashable) -> str:
    """A turn's update as ``viewer`` sees it (:func:`game.table_markup.render_turn`)."""
    with translation.override(viewer[1]):
        return render_turn(table)


def _read(game_id: int) -> Game | None:
    """The game read from the database with its players, which this process then keeps: the
    next turn's updates start from it (:data:`game.live.LIVE_GAMES`)."""
    game = game_with_players(game_id)
    if game is not None:
        LIVE_GAMES.read(game)
    return game


def _kept_if_current(game_id: int) -> Game | None:
    """The game as this process keeps it, if the row is still at its version (two columns read
    instead of the row and its players): the second socket of a game finds it so. Whether its
    chat has started is read too: a chat line does not change the version."""
    kept = LIVE_GAMES.at(game_id, 0)
    if kept is None:
        return None
    row = version_of(game_id)
    if row is None or row[0] != kept.version:
        return None
    game = copy.copy(kept)  # the kept one is shared: its chat_started may be stale
    game.chat_started = row[1]
    return game


@_in_db_thread
def _arrive(game_id: int, user: object) -> _Arrival:
    if _refused(user):
        return _Arrival(BANNED_CODE)
    game = _kept_if_current(game_id) or _read(game_id)
    if game is None:
        return _Arrival(NOT_FOUND_CODE)
    seat = game.seat_of(user)
    viewer = _viewer(seat, user)
    html = _whole(table_for(game, seat), viewer, user) + log_html(chat_room(game), user)
    return _Arrival(None, viewer, game.version, html)


def _fits(game: Game, version: int, turn: Moved | None) -> bool:
    """Whether ``game`` is at ``version`` by ``turn`` alone, so that its viewers need only that
    turn's update: a game in play whose state is one ply past the turn."""
    return (
        turn is not None
        and game.version == version
        and game.status == Game.Status.ACTIVE
        and stored_state(game).ply == turn.ply + 1
    )


def _updates(
    game: Game, version: int, viewers: Mapping[Hashable, object], turn: Moved | None
) -> dict[Hashable, Update]:
    """Each viewer's update at the game's version: ``turn``'s alone when it fits, else the whole
    table (which reads the move log)."""
    seats = [seat if isinstance(seat, int) else None for seat, _language in viewers]
    if turn is not None and _fits(game, version, turn):
        tables = tables_for(game, seats, (turn.notation,))
        rendered = zip(viewers, tables, strict=True)
        return {
            key: Update(version, _turn_update(table, key), version - 1) for key, table in rendered
        }
    tables = tables_for(game, seats, notations_of(game.pk))
    rendered = zip(viewers, tables, strict=True)
    return {key: Update(game.version, _whole(table, key, viewers[key])) for key, table in rendered}


@_in_db_thread
def _read_and_render(
    game_id: int, version: int, viewers: Mapping[Hashable, object], turn: Moved | None
) -> dict[Hashable, Update]:
    game = LIVE_GAMES.at(game_id, version) or _read(game_id)
    if game is None:
        raise Game.DoesNotExist(f"game {game_id} is gone")
    return _updates(game, version, viewers, turn)


async def _render_all(
    game_id: int, version: int, viewers: Mapping[Hashable, object], turn: Moved | None
) -> Mapping[Hashable, Update]:
    """Each viewer's update at ``version`` (:class:`TableCache`): on the event loop when this
    process keeps the game at that version by that turn (it reads nothing), else in the
    database thread, which reads the game (and a whole table's log; a result looks up its
    rematch). The trip to the thread and back was a tenth of a turn's CPU at 500 games."""
    kept = LIVE_GAMES.at(game_id, version)
    if kept is not None and _fits(kept, version, turn):
        return _updates(kept, version, viewers, turn)
    return await _read_and_render(game_id, version, viewers, turn)


@_in_db_thread
def _whole_table(game_id: int, user: object, viewer: Hashable) -> Update | None:
    """The whole table for one socket that missed a version (``None``: the game is gone)."""
    game = _read(game_id)
    if game is None:
        return None
    return Update(game.version, _whole(table_for(game, game.seat_of(user)), viewer, user))


_TABLES = TableCache(_render_all)


def _turn_of(event: Mapping[str, Any]) -> Moved | None:
    """The turn a change was, when it was one and nothing else (no end): its viewers then need
    only that turn's update."""
    kinds = {e["kind"] for e in event["events"]}
    if Ended.__name__ in kinds:
        return None
    for e in event["events"]:
        if e["kind"] == Moved.__name__:
            return Moved(e["ply"], e["seat"], e["notation"])
    return None


#: The longest turn frame read: ``{"move": "10H-10S", "ply": 12345}`` with room to spare.
MAX_TURN_FRAME = 256


@dataclass(frozen=True)
class _Turn:
    """A turn a table sent over its socket: the notation and the ply the page showed
    (``None`` when the frame had none that can be read)."""

    notation: str
    ply: int | None


def _turn_in(text_data: str | None) -> _Turn | None:
    """The turn a frame carries, or ``None`` when it is not one (a chat line, say)."""
    if not isinstance(text_data, str) or len(text_data) > MAX_TURN_FRAME:
        return None
    try:
        data = json.loads(text_data)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("move"), str):
        return None
    ply = data.get("ply")
    return _Turn(data["move"], ply if type(ply) is int else None)


@_in_db_thread
def _play(game_id: int, user: object, turn: _Turn, messages: list[Message]) -> str | None:
    """Play ``turn``; what it publishes is kept in ``messages``, for the caller to send from the
    event loop, where each socket of the game then renders its update (not this thread, which
    the next turns wait for). A refused turn is answered with the table as its sender sees it,
    saying why."""
    with held_messages(messages):
        try:
            if turn.ply is None:
                raise GameError(_("The turn came without its ply: reload the page."))
            game_play_move(
                game_id=game_id, user=user, notation=turn.notation, expected_ply=turn.ply
            )
        except GameError as error:
            game = game_with_players(game_id)
            if game is None:
                return None
            html = render_table(table_for(game, game.seat_of(user)), user=user, error=str(error))
            return oob(html, "table")
    return None


@_in_db_thread
def _chat_line(game_id: int, user: object, text_data: str | None) -> str:
    """Post the line a socket sent (htmx's ``ws-send``: the form's fields as JSON); answer with
    the sender's chat form, which says why when the line was refused. Any frame at all gets an
    answer, never an exception: a game gone since the socket opened gets none."""
    text, error = parse_line(text_data)
    if text is not None:
        try:
            game_chat_post(game_id=game_id, user=user, text=text)
        except ChatError as refused:
            error = str(refused)
        except Game.DoesNotExist:
            return ""
        else:
            text = ""
    game = game_with_players(game_id)
    return "" if game is None else form_html(chat_room(game), user, error, text or "")


@_in_db_thread
def _chat_log(game_id: int, user: object) -> str:
    """The game's chat as ``user`` sees it, ready to swap in (nothing for a game gone)."""
    game = game_with_players(game_id)
    return "" if game is None else log_html(chat_room(game), user)


_refuses_socket = _in_db_thread(_refused)


class _InUserGroup(AsyncWebsocketConsumer):
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


class _LoggedInSocket(_InUserGroup):
    """A socket only for someone logged in and not banned, closed with a code that says which."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if not getattr(user, "is_authenticated", False):
            await self.close(code=LOGIN_NEEDED_CODE)
            return
        if await _refuses_socket(user):
            await self.close(code=BANNED_CODE)
            return
        await self.join_user_group()
        await self.accept()
        await self.opened(user)

    async def opened(self, user: Any) -> None:
        """The socket is open for ``user``."""


class GameConsumer(_InUserGroup):
    """Players and spectators of one game; anyone may watch, so no login is needed."""

    version = -1  # the version of the table this socket has sent

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["pk"])
        user = self.scope.get("user")
        # In the group before the game is read, so that no change after that read is missed.
        self.group = game_group(self.game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        arrival = await _arrive(self.game_id, user)
        if arrival.refused_code is not None:
            await self.close(code=arrival.refused_code)
            return
        self.viewer = arrival.viewer
        _TABLES.watch(self.game_id, self.viewer, user)
        await self.join_user_group()
        await self.accept()
        # A reconnect may have missed changes: start from the table (and the chat, where the
        # game has one) as the server has them, in one message.
        self.version = arrival.version
        await self.send(text_data=arrival.html)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if hasattr(self, "viewer"):
            _TABLES.unwatch(self.game_id, self.viewer)
        await super().disconnect(code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """A turn or a chat line from a player. A turn that lands reaches everyone through
        ``game_changed``; a refused one is answered to its sender alone. A chat line's answer
        (their form, emptied or with why it was refused) goes to them alone, the line to
        everyone through ``chat_changed``."""
        user = self.scope.get("user")
        turn = _turn_in(text_data)
        if turn is not None:
            messages: list[Message] = []
            try:
                refused = await _play(self.game_id, user, turn, messages)
            finally:  # a turn that landed is announced, whatever befell the rest
                await send_held(messages)
            if refused:
                await self.send(text_data=refused)
            return
        await self.send(text_data=await _chat_line(self.game_id, user, text_data))

    async def game_changed(self, event: dict[str, Any]) -> None:
        """The game is at ``event["version"]``: send what changed, unless this socket has it."""
        LIVE_GAMES.heard(self.game_id, event)  # so that its updates need not read the game
        version = event["version"]
        if version <= self.version:
            return
        update = await _TABLES.get(self.game_id, self.viewer, version, _turn_of(event))
        if update.version <= self.version:
            return
        if update.base is not None and update.base != self.version:  # it missed a version
            update = await _whole_table(self.game_id, self.scope.get("user"), self.viewer)
            if update is None:
                return
        self.version = update.version
        await self.send(text_data=update.html)

    async def chat_changed(self, event: dict[str, Any]) -> None:
        await self._send_chat()

    async def _send_chat(self) -> None:
        html = await _chat_log(self.game_id, self.scope.get("user"))
        if html:
            await self.send(text_data=html)


_read_seeks = _in_db_thread(lobby_seeks)


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


class LobbyConsumer(_InUserGroup):
    """The lobby's open seeks, pushed whenever one opens, closes or is taken."""

    async def connect(self) -> None:
        if await _refuses_socket(self.scope.get("user")):
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

    @_in_db_thread
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


class PoolConsumer(_LoggedInSocket):
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
            await _in_db_thread(pool.pool_leave)(channel_name=self.channel_name)

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
            result = await _in_db_thread(pool.pool_enter)(
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
        ask = _in_db_thread(pool.pool_ask)
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


def _notices(user: Any, challenge_id: int | None) -> str:
    """``#challenges`` for ``user``'s socket, ready to swap in: when ``challenge_id`` is one of
    theirs that was just answered (accepted, declined, expired), that answer with it."""
    changed = challenge_with_players(challenge_id) if challenge_id is not None else None
    answered = (Challenge.Status.ACCEPTED, Challenge.Status.DECLINED, Challenge.Status.EXPIRED)
    answer = (
        changed
        if changed is not None and changed.challenger_id == user.pk and changed.status in answered
        else None
    )
    html = notices_html(user, answer=answer)
    return f'<div id="challenges" hx-swap-oob="innerHTML">{html}</div>'


class UserConsumer(_LoggedInSocket):
    """A logged-in user's own socket, open on every page of theirs (``base.html``): in their
    user group, it shows the challenges to them as they arrive and the answers to theirs. Its
    work is a read and a render per change, in the sockets' threads."""

    async def opened(self, user: Any) -> None:
        # A reconnect may have missed changes: start from the challenges as they stand.
        await self.send(text_data=await _in_db_thread(_notices)(user, None))

    async def challenge_changed(self, event: dict[str, Any]) -> None:
        user = self.scope["user"]
        html = await _in_db_thread(_notices)(user, event["challenge"])
        await self.send(text_data=html)
