"""Live play's plumbing: the groups viewers listen on, what a change says, and its publishing.

A service that changes a game returns a :class:`Progress` (lila's name): the
game as saved, its new state and the typed events of the change. Once the
transaction commits, :func:`publish` tells the game's group the new version
and the events; each consumer then sends its viewer the table at that version
(:mod:`game.tables` renders it once per viewer, whoever many sockets watch).
This process also keeps each game as it last saved, heard or read it (:class:`LiveGames`): the
message carries the row's changed columns, so that a process that kept the version before
(every process whose sockets watch the game) renders the new tables without reading the game,
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

from game.engine import GameState, IllegalMoveError
from game.models import Game, Move
from game.selectors import set_state, stored_state

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


@dataclass(frozen=True)
class Snapshot:
    """A game at one version, as saved or read here: the row with its players loaded, and its
    turns' notations in order."""

    game: Game
    notations: tuple[str, ...]


class LiveGames:
    """The latest :class:`Snapshot` of each game this process saved or read (lila keeps its
    rounds in memory the same way; here the database stays the truth and this only saves
    reading it back).

    A service's commit records the game it saved (:func:`publish`), its notations extended by
    the turn it stored; a reader records what it read. A snapshot is only ever replaced by a
    newer version, so threads committing out of order cannot step back. Only games in play are
    kept: one that ends is forgotten (a finished game's tables are read and rendered once, and
    a snapshot holds every position its state has seen: 0.3 MB after 1,500 plies, so that
    4,096 finished games could hold a gigabyte). Of those, the most recently touched ``size``.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._games: OrderedDict[int, Snapshot] = OrderedDict()
        self._lock = threading.Lock()

    def at(self, game_id: int, version: int) -> Snapshot | None:
        """The game at ``version`` or newer, if this process has it."""
        with self._lock:
            snapshot = self._games.get(game_id)
        return snapshot if snapshot is not None and snapshot.game.version >= version else None

    def latest(self, game_id: int) -> Game | None:
        """A copy of the game as last committed or read here, if kept, for a writer to change:
        its save must then find the row still at that version."""
        with self._lock:
            snapshot = self._games.get(game_id)
        return copy.copy(snapshot.game) if snapshot is not None else None

    def saved(self, game: Game, move: Move | None) -> None:
        """``game`` was committed here at its version, with ``move`` the turn stored, if any. Its
        players are those of the game kept before (a service reads the row alone); a game
        seen for the first time, or with a new player, is left for a reader to read whole."""
        turn = (move.ply, move.notation) if move is not None else None
        self._advance(copy.copy(game), turn)  # a copy: the caller may go on changing its own

    def heard(self, game_id: int, message: Mapping[str, Any]) -> None:
        """Any process committed the change ``message`` tells (:func:`publish`'s): when this one
        keeps the version before, it keeps the new one as well, worked out with no read. The
        row's changed columns come with the message; a new state is the kept one with the turn
        played, as the service played it. Anything else (turns missed, a deal) is left for a
        reader, and so is a kept game the turn does not fit (its state and turns disagree, or
        the turn is not legal on it): that one is dropped, logged, never trusted."""
        version = message["version"]
        with self._lock:
            before = self._games.get(game_id)
        if before is None or before.game.version != version - 1:
            self._drop_before(game_id, version)  # turns missed; kept already: nothing to do
            return
        game = copy.copy(before.game)
        for attname, value in message["row"].items():
            setattr(game, attname, _COLUMNS[attname].to_python(value))
        game.version = version
        turn = None
        if message["new_state"]:
            moved = [e for e in message["events"] if e["kind"] == Moved.__name__]
            if len(moved) != 1 or moved[0]["ply"] != len(before.notations):  # a deal, say
                self._drop_before(game_id, version)
                return
            turn = (moved[0]["ply"], moved[0]["notation"])
            try:
                state = stored_state(before.game)
                if state.ply != len(before.notations):
                    raise IllegalMoveError(f"the state is at ply {state.ply}")
                set_state(game, state.play(turn[1]))
            except IllegalMoveError as error:
                log.warning(
                    "game %s at version %s does not take turn %s %r heard for version %s (%s): "
                    "dropped, to be read again",
                    game_id,
                    before.game.version,
                    turn[0],
                    turn[1],
                    version,
                    error,
                )
                self._drop_before(game_id, version)
                return
        self._advance(game, turn)

    def read(self, game: Game, notations: tuple[str, ...]) -> None:
        """A reader read ``game`` and its turns' ``notations`` (its players loaded). Its two
        reads may straddle a turn's commit (the turns then count one more than the state): such
        a read is not kept."""
        if game.state is not None and stored_state(game).ply != len(notations):
            return
        with self._lock:
            self._keep(Snapshot(copy.copy(game), notations))

    def clear(self) -> None:
        with self._lock:
            self._games.clear()

    def _advance(self, game: Game, turn: tuple[int, str] | None) -> None:
        """Keep ``game``, committed at its version with ``turn`` (its ply and notation) the turn
        stored, if it follows the version kept with the same players."""
        with self._lock:
            before = self._games.get(game.pk)
            players = (game.seat0_id, game.seat1_id)
            if before is None or (before.game.seat0_id, before.game.seat1_id) != players:
                self._games.pop(game.pk, None)
                return
            game.seat0, game.seat1 = before.game.seat0, before.game.seat1
            notations = before.notations
            follows = before.game.version == game.version - 1
            if turn is not None and follows and turn[0] == len(notations):
                notations = (*notations, turn[1])
            elif not follows or turn is not None:  # turns missed: a reader reads them
                if before.game.version < game.version:
                    self._games.pop(game.pk, None)
                return
            self._keep(Snapshot(game, notations))

    def _drop_before(self, game_id: int, version: int) -> None:
        with self._lock:
            before = self._games.get(game_id)
            if before is not None and before.game.version < version:
                del self._games[game_id]

    def _keep(self, snapshot: Snapshot) -> None:
        game_id = snapshot.game.pk
        before = self._games.get(game_id)
        if before is not None and before.game.version > snapshot.game.version:
            return
        if snapshot.game.status != Game.Status.ACTIVE:  # over (or a seek's row)
            self._games.pop(game_id, None)
            return
        self._games[game_id] = snapshot
        self._games.move_to_end(game_id)
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
    changed = [_COLUMNS[name] for name in progress.columns if name not in ("state", "version")]
    message = {
        "type": "game.changed",
        "version": game.version,
        "events": [{"kind": type(e).__name__, **asdict(e)} for e in progress.events],
        # For the processes that keep the version before (LiveGames.heard): what changed.
        "row": {column.attname: _wire(getattr(game, column.attname)) for column in changed},
        "new_state": "state" in progress.columns,
    }
    transaction.on_commit(lambda: LIVE_GAMES.saved(game, progress.move))
    send_after_commit(game_group(game.pk), message)


def publish_joined(game: Game) -> None:
    """Once committed: the creator's sockets hear that their seek was joined, so that a lobby
    left open takes them to the table (``game.consumers.LobbyConsumer.seek_joined``)."""
    message = {"type": "seek.joined", "game": game.pk, "url": game.get_absolute_url()}
    send_after_commit(user_group(game.seat0_id), message)


def publish_lobby() -> None:
    """Once committed: the lobby's viewers re-read the open seeks (each change with an id of its
    own, by which a process's lobby sockets share one read: ``game.consumers.LobbySeeks``)."""
    send_after_commit(LOBBY_GROUP, {"type": "lobby.changed", "change": uuid.uuid4().hex})
