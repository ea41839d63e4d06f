"""The move lock under real concurrent transactions: one ply lands once, however many submit it,
whether the turns are checked on the row read locked or on the game kept in memory (lock-free,
its save a compare-and-set on the version).

Fifty threads, each with its own database connection, submit the same turn for the same ply at the
same moment (the double clicks, retries and second tabs issue 19 measured). Exactly one lands; the
others are told the game moved on (``GameError``, a message to the player, never a 500).

It runs on whichever database the settings name: on PostgreSQL (``DATABASE_URL``) it guards the
row lock of ``game_play_move`` (``select_for_update``; without it the losers reach the unique
``game + ply`` constraint and fail with ``IntegrityError``); on SQLite, where ``select_for_update``
does nothing, it guards the immediate transactions and busy timeout of the settings (without them
the losers fail with ``database is locked``).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from game import engine
from game.live import LIVE_GAMES
from game.models import Game, Move
from game.services import GameError, saving
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join
from tests.threads import at_once

pytestmark = pytest.mark.django_db(transaction=True)

SUBMISSIONS = 50


def started_game() -> Game:
    users = get_user_model().objects
    alice = users.create_user("alice", password="pw-alice-123")
    bob = users.create_user("bob", password="pw-bob-123")
    seek = game_create_seek(user=alice, trump="S")
    game_join(game_id=seek.pk, user=bob, trump="H")
    return Game.objects.select_related("seat0", "seat1").get(pk=seek.pk)


def submit_all_at_once(game: Game, count: int) -> list[object]:
    """``count`` threads submit the first turn for ply 0 together; what each one got back."""
    start = engine.deal(game.seed, game.trumps, game.rules)
    mover = (game.seat0, game.seat1)[start.to_move]
    turn = str(start.legal_moves()[0])

    def submit() -> str:
        try:
            game_play_move(game_id=game.pk, user=mover, notation=turn, expected_ply=0)
        except GameError:
            return "refused"
        return "landed"

    return at_once([submit] * count)  # anything else raised is what a user would see as a 500


@pytest.mark.parametrize("kept", [False, True], ids=["read-locked", "kept-in-memory"])
def test_fifty_simultaneous_submissions_of_one_ply_land_exactly_once(kept, monkeypatch) -> None:
    game = started_game()
    LIVE_GAMES.clear()
    if kept:  # as a socket's arrival keeps it: each turn is checked on it first, with no read
        LIVE_GAMES.read(game)
    locked = []
    read_locked = saving.locked

    def counted(game_id: int) -> Game:
        locked.append(game_id)
        return read_locked(game_id)

    monkeypatch.setattr("game.services.play.locked", counted)

    outcomes = submit_all_at_once(game, SUBMISSIONS)

    unexpected = [o for o in outcomes if o not in ("landed", "refused")]
    assert unexpected == [], f"on {connection.vendor}: {unexpected[:3]}"
    assert outcomes.count("landed") == 1
    assert outcomes.count("refused") == SUBMISSIONS - 1
    assert Move.objects.filter(game=game).count() == 1  # one row in the move log, for ply 0
    assert Move.objects.get(game=game).ply == 0
    # Kept, the winner's compare-and-set lands with no lock; the others find the row moved on
    # and are refused on the row read locked.
    assert len(locked) == (SUBMISSIONS - 1 if kept else SUBMISSIONS)
