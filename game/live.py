"""Live play's plumbing: the groups viewers listen on, what a change says, and its publishing.

A service that changes a game returns a :class:`Progress` (lila's name): the
game as saved, its new state and the typed events of the change. Once the
transaction commits, :func:`publish` tells the game's group the new version
and the events; each consumer then sends its viewer the table at that version
(:mod:`game.tables` renders it once per viewer, whoever many sockets watch).
Nothing here reads or writes the database.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from game.engine import GameState
from game.models import Game, Move

#: The group of everyone looking at the lobby.
LOBBY_GROUP = "lobby"


def game_group(game_id: int) -> str:
    """The group of a game's viewers (players and spectators)."""
    return f"game-{game_id}"


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


# --- Publishing on commit -----------------------------------------------------------------------


def send_after_commit(group: str, message: dict[str, object]) -> None:
    """Tell a channel-layer group once the current transaction commits (at once outside one)."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(group, message)

    transaction.on_commit(send)


def publish(progress: Progress) -> None:
    """Once committed: the game's viewers hear the new version and the events."""
    game = progress.game
    message = {
        "type": "game.changed",
        "version": game.version,
        "events": [{"kind": type(e).__name__, **asdict(e)} for e in progress.events],
    }
    send_after_commit(game_group(game.pk), message)


def publish_lobby() -> None:
    """Once committed: the lobby's viewers re-read the open seeks."""
    send_after_commit(LOBBY_GROUP, {"type": "lobby.changed"})
