"""Live play's plumbing: the groups viewers listen on, what a change says, and its publishing.

A service that changes a game returns a :class:`Progress` (lila's name): the
game as saved, its new state and the typed events of the change. Once the
transaction commits, :func:`publish` tells the game's group the new version
and the events; each consumer then sends its viewer what changed at that version (a turn's
update, or the whole table: :mod:`game.tables` renders it once per viewer, however many sockets
watch).
This process also keeps each game in play as it last saved, heard or read it (:class:`LiveGames`):
the message carries the row's changed columns, so that a process that kept the version before
(every process whose sockets watch the game) renders the update without reading the game,
whichever process played the turn. Nothing here reads or writes the database.
"""

from __future__ import annotations

import copy
import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import date, datetime
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import Field

from game.engine import GameState
from game.models import Game, Move

log = logging.getLogger(__name__)

#: The group of everyone looking at the lobby.
LOBBY_GROUP = "lobby"


def game_group(game_id: int) -> str:
    """The group of a game's viewers (players and spectators)."""
    return f"game-{game_id}"


def user_group(user_id: int) -> str:
    """The group of one user's open sockets (their own socket on every page, the lobby's and the
    tables'): told when their seek is joined or a challenge to or from them changes, closed when
    they are banned."""
    return f"user-{user_id}"


# --- What a change says -------------------------------------------------------------------------


@dataclass(frozen=True)
class Moved:
    """A turn landed: ``seat`` played ``notation`` as turn ``ply`` (0 for the first)."""

    ply: int
    seat: int
    notation: str


@dataclass(frozen=True)
class Ended:
    """The game is over: how, and the winning seat (``None``: a draw or no result)."""

    status: str
    reason: str
    winner: int | None


@dataclass(frozen=True)
class DrawOffered:
    seat: int


@dataclass(frozen=True)
class ComputerToMove:
    """The computer is to play turn ``ply``: once committed, its reply is asked for."""

    ply: int


Event = Moved | Ended | DrawOffered | ComputerToMove


@dataclass(frozen=True)
class Progress:
    """What a service did to a game: the game as saved (with its new ``version``), the events
    and, when a turn landed, the new state and the move stored."""

    game: Game
    state: GameState | None
    events: tuple[Event, ...] = ()
    move: Move | None = None
    #: The columns the save wrote (``state`` and ``version`` among them).
    columns: tuple[str, ...] = ()


def events_of(game: Game, state: GameState | None, move: Move | None) -> tuple[Event, ...]:
    """The events a save of ``game`` says: the turn played, the end, a draw offer, and whether
    the computer is now to move."""
    events: list[Event] = []
    if move is not None:
        events.append(Moved(move.ply, move.player, move.notation))
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        events.append(Ended(game.status, game.reason, game.winner))
    elif game.draw_offer is not None:
        events.append(DrawOffered(game.draw_offer))
    if (
        game.status == Game.Status.ACTIVE
        and game.against_computer
        and state is not None
        and state.position.to_move == 1
    ):
        events.append(ComputerToMove(state.ply))
    return tuple(events)


# --- The games in play, as this process knows them --------------------------------------------


class LiveGames:
    """The row of each game in play as this process last committed, heard or read it, with its
    players: a turn's check and its viewers' updates then read nothing (lila keeps its rounds in
    memory the same way; here the database stays the truth): two reads a turn fewer.

    A game is only ever replaced by its next version (one that skips a version is dropped, for
    a reader to read), so threads committing out of order cannot step back. A game that ends is
    forgotten; of those in play, the most recently touched ``size`` are kept.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._games: OrderedDict[int, Game] = OrderedDict()
        self._lock = threading.Lock()

    def at(self, game_id: int, version: int) -> Game | None:
        """The game at ``version`` or newer, if this process has it (shared: not to change)."""
        with self._lock:
            game = self._games.get(game_id)
        return game if game is not None and game.version >= version else None

    def latest(self, game_id: int) -> Game | None:
        """A copy of the game as last kept, for a writer to change: its save must then find the
        row still at that version."""
        with self._lock:
            game = self._games.get(game_id)
        return copy.copy(game) if game is not None else None

    def saved(self, game: Game) -> None:
        """``game`` was committed here at its version. Its players are those kept before (a
        service reads the row alone); a game not kept is left for a reader to read whole."""
        self._advance(copy.copy(game))  # a copy: the caller may go on changing its own

    def heard(self, game_id: int, message: Mapping[str, Any]) -> None:
        """Any process committed the change ``message`` tells (:func:`publish`'s): the row's
        changed columns come with it, so the version after the one kept needs no read."""
        with self._lock:
            before = self._games.get(game_id)
        if before is None or before.version != message["version"] - 1:
            self._drop_before(game_id, message["version"])
            return
        game = copy.copy(before)
        for attname, value in message["row"].items():
            setattr(game, attname, _COLUMNS[attname].to_python(value))
        game.version = message["version"]
        self._advance(game)

    def read(self, game: Game) -> None:
        """A reader read ``game`` with its players."""
        with self._lock:
            self._keep(copy.copy(game))

    def clear(self) -> None:
        with self._lock:
            self._games.clear()

    def _advance(self, game: Game) -> None:
        """Keep ``game`` if it is the next version of the one kept, with the same players."""
        with self._lock:
            before = self._games.get(game.pk)
            if before is None or before.version != game.version - 1:
                if before is not None and before.version < game.version:
                    del self._games[game.pk]  # versions missed: a reader reads it
                return
            if (before.seat0_id, before.seat1_id) != (game.seat0_id, game.seat1_id):
                del self._games[game.pk]
                return
            game.seat0, game.seat1 = before.seat0, before.seat1
            self._keep(game)

    def _drop_before(self, game_id: int, version: int) -> None:
        with self._lock:
            before = self._games.get(game_id)
            if before is not None and before.version < version:
                del self._games[game_id]

    def _keep(self, game: Game) -> None:
        before = self._games.get(game.pk)
        if before is not None and before.version > game.version:
            return
        if game.status != Game.Status.ACTIVE:  # over (or a seek's row)
            self._games.pop(game.pk, None)
            return
        self._games[game.pk] = game
        self._games.move_to_end(game.pk)
        while len(self._games) > self.size:
            self._games.popitem(last=False)


#: This process's games in play.
LIVE_GAMES = LiveGames()


# --- Publishing on commit -----------------------------------------------------------------------


#: A group and what to tell it.
Message = tuple[str, dict[str, object]]

_held = threading.local()


@contextmanager
def held_messages(messages: list[Message]) -> Iterator[None]:
    """Keep the messages this thread publishes meanwhile in ``messages``, for the caller to send
    from the event loop (:func:`send_held`). A socket's turn and an HTTP request run in a thread:
    sending from there would hold the thread while it crossed to the busy loop and back for each
    message, and a socket's turn would reach the sockets before the tables the thread renders
    next (``game.consumers``). The list is the caller's, so that what was published is sent even
    when the work after it fails."""
    _held.messages = messages
    try:
        yield
    finally:
        _held.messages = None


async def send_held(messages: list[Message]) -> None:
    """Send, in order, the messages a thread kept under :func:`held_messages`. One the layer
    cannot send (Redis is down) is logged and left: the change is stored and answered, and the
    sockets that missed it are closed to reconnect and read it (the serving package's
    ``layer_watch``)."""
    layer = get_channel_layer()
    if layer is not None:
        for group, message in messages:
            try:
                await layer.group_send(group, message)
            except Exception as error:
                log.warning("%s was not told of a change: %s", group, error)


def send_after_commit(group: str, message: dict[str, object]) -> None:
    """Tell a channel-layer group once the current transaction commits (at once outside one),
    or keep the message where :func:`held_messages` asks. A message the layer cannot send is
    logged, and the work that committed goes on (``robust``)."""

    def send() -> None:
        held = getattr(_held, "messages", None)
        if held is not None:
            held.append((group, message))
            return
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(group, message)

    transaction.on_commit(send, robust=True)


def tell_after_commit(channel_name: str, message: dict[str, object]) -> None:
    """Tell one socket, by its channel's name, once the current transaction commits (a pool's
    socket: ``game.pool``). A message the layer cannot send is logged (``robust``)."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.send)(channel_name, message)

    transaction.on_commit(send, robust=True)


#: The game's columns, by name and by attribute name (``seat1`` and ``seat1_id`` alike).
_COLUMNS: dict[str, Field[Any, Any]] = {
    key: column for column in Game._meta.concrete_fields for key in {column.name, column.attname}
}


def _wire(value: object) -> object:
    """A column's value as a channel layer carries it (msgpack has no dates)."""
    return value.isoformat() if isinstance(value, datetime | date) else value


def publish(progress: Progress) -> None:
    """Once committed: this process keeps the game as saved, and its viewers hear the new
    version and the events."""
    game = progress.game
    changed = [_COLUMNS[name] for name in progress.columns if name != "version"]
    message = {
        "type": "game.changed",
        "version": game.version,
        "events": [{"kind": type(e).__name__, **asdict(e)} for e in progress.events],
        # For the processes that keep the version before (LiveGames.heard): what changed, the
        # state (a few hundred bytes, whatever the game's length) among it.
        "row": {column.attname: _wire(getattr(game, column.attname)) for column in changed},
    }
    transaction.on_commit(lambda: LIVE_GAMES.saved(game))
    send_after_commit(game_group(game.pk), message)


def publish_joined(game: Game) -> None:
    """Once committed: the creator's sockets hear that their seek was joined, so that a lobby
    left open takes them to the table (``game.consumers.lobby.LobbyConsumer.seek_joined``)."""
    message = {"type": "seek.joined", "game": game.pk, "url": game.get_absolute_url()}
    send_after_commit(user_group(game.seat0_id), message)


def publish_lobby() -> None:
    """Once committed: the lobby's viewers re-read the open seeks (each change with an id of its
    own, by which a process's lobby sockets share one read: ``game.consumers.lobby.LobbySeeks``)."""
    send_after_commit(LOBBY_GROUP, {"type": "lobby.changed", "change": uuid.uuid4().hex})
