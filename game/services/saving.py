"""How a service writes a game: on its row read locked, or on the game as this process kept it,
the save conditional on the version it started from (:class:`Stale` when the row moved on), and
published once committed. A game that ends is rated in the same write."""

from __future__ import annotations

from datetime import datetime
from functools import partial

from django.db import connection, transaction

from accounts import services as accounts
from game import background, engine
from game.live import ComputerToMove, Event, Progress, events_of, publish
from game.models import Game, Move
from game.selectors import set_state


class Stale(Exception):
    """The game was saved meanwhile: the version a change started from is not the row's."""


def locked(game_id: int) -> Game:
    """The game's row, locked for this transaction."""
    return Game.objects.select_for_update().get(pk=game_id)


def save(
    game: Game,
    fields: list[str],
    state: engine.GameState | None = None,
    move: Move | None = None,
) -> Progress:
    """Save the changed ``fields`` under a new version where the row is still at the version
    read, with ``move`` (a turn's row in the log) when a turn landed, and publish it once
    committed; a computer to move next is asked to reply. A save that finds the row moved on
    writes nothing and raises :class:`Stale`.

    Written in the caller's transaction if it is in one, else in one of its own: a turn checked
    on the kept game is checked before, with no transaction open, as on SQLite beginning one
    takes the write lock that every other writer waits for."""
    game.version += 1
    if state is not None:
        set_state(game, state)
        fields = [*fields, "state"]
    columns = tuple(dict.fromkeys([*fields, "version"]))
    changes = {name: getattr(game, name) for name in columns}
    with transaction.atomic(savepoint=False):  # a stale save leaves a caller's as it was
        row = Game.objects.filter(pk=game.pk, version=game.version - 1)
        saved = row.update(**changes) == 1
        if saved and move is not None:  # a turn that lost the race stops before its ply's move
            move.save(force_insert=True)
    if not saved:
        raise Stale(game.pk)
    progress = Progress(game, state, events_of(game, state, move), move, columns)
    publish(progress)
    ask_for_computer_reply(game, progress.events)
    return progress


def ask_for_computer_reply(game: Game, events: tuple[Event, ...]) -> None:
    """If ``events`` leave the computer to move, ask a worker for its reply once the commit lands
    (:mod:`game.tasks`). Should the process die first, the workers' recovery asks."""
    for event in events:
        if isinstance(event, ComputerToMove):
            ask = partial(background.ask, background.REPLY, game.pk, event.ply)
            transaction.on_commit(ask, robust=True)  # a failure is logged; recovery asks again


END_FIELDS = ["status", "reason", "winner", "finished_at", "draw_offer"]
CLOCK_FIELDS = ["clock0_ms", "clock1_ms"]


def finish(game: Game, now: datetime, reason: str, winner: int | None) -> None:
    game.status = Game.Status.FINISHED
    game.reason = reason
    game.winner = winner
    game.finished_at = now
    game.draw_offer = None
    if game.rated:
        _rate(game, now)


def _rate(game: Game, now: datetime) -> None:
    """Rate a rated game that ends ``now``, in the transaction that ends it and on its row
    locked at the version the end was decided on; a turn checked on the game as kept, with no
    transaction open (``game_play_move``), ends it again on the row read locked."""
    if not connection.in_atomic_block or _locked_version(game.pk) != game.version:
        raise Stale(game.pk)
    accounts.ratings_record_game(
        game_id=game.pk,
        speed=game.speed,
        players=(game.seat0_id, game.seat1_id),
        score=0.5 if game.winner is None else 1.0 - game.winner,
        now=now,
    )


def _locked_version(game_id: int) -> int:
    """The version of the game's row, locked for this transaction."""
    return Game.objects.select_for_update().values_list("version", flat=True).get(pk=game_id)
