"""The table's socket (``ws/games/<id>/``): the players and spectators of one game.

Services publish a change to the game's group after their commit (:mod:`game.live`); each socket
then sends its viewer what changed: after a turn, that turn's update (htmx out-of-band swaps
whose size does not grow with the game), else the whole table, rendered once per version and
viewer in this process (:class:`game.tables.TableCache`). A socket that missed a version gets
the whole table, as does a socket that connects.

A player's turns come over the socket while it is open (``static/js/table.js``) and land through
the same service as the table's POST, in the sockets' threads; the updates are rendered
afterwards on the event loop, from the game this process keeps. A refused turn is answered to
its sender alone. The socket also carries the game's chat (``chat.sockets``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from chat.services import ChatError
from chat.sockets import form_html, log_html, parse_line
from game.consumers.sockets import (
    BANNED_CODE,
    NOT_FOUND_CODE,
    InUserGroup,
    banned,
    in_db_thread,
    oob,
)
from game.live import LIVE_GAMES, Ended, Message, Moved, game_group, held_messages, send_held
from game.models import Game
from game.selectors import chat_room, game_with_players, notations_of, stored_state, version_of
from game.services import GameError
from game.services.chat import game_chat_post
from game.services.play import game_play_move
from game.table_markup import render_table, render_turn
from game.tables import Table, TableCache, Update, table_for, tables_for


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


@in_db_thread
def _arrive(game_id: int, user: object) -> _Arrival:
    if banned(user):
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


@in_db_thread
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


@in_db_thread
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


@in_db_thread
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


@in_db_thread
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


@in_db_thread
def _chat_log(game_id: int, user: object) -> str:
    """The game's chat as ``user`` sees it, ready to swap in (nothing for a game gone)."""
    game = game_with_players(game_id)
    return "" if game is None else log_html(chat_room(game), user)


class GameConsumer(InUserGroup):
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
