"""Games played through the services, for tests that need one under way or finished."""

import random

from game.models import Game
from game.options import GameOptions
from game.selectors import history_of
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join

#: With this seed, :func:`play_to_the_end` turns a 24-card S/H deal of seed :data:`DEAL` into a
#: 49-turn game that seat 0 wins: long enough to step through, short enough to analyse.
DEAL = 20261130
TURNS = 6
#: A seek's fields that make it dealt from :data:`DEAL`: a game without a secret, as those made
#: before deals could be checked, is dealt from its stored seed.
LEGACY_DEAL = {"seed": DEAL, "secret": "", "commitment": ""}


def play_turns(
    game: Game, players: tuple[object, object], seed: int = TURNS, turns: int | None = None
) -> Game:
    """Play seeded random turns, beating or leading rather than taking, until the game ends or
    ``turns`` have been played."""
    rng = random.Random(seed)
    played = 0
    while game.status == Game.Status.ACTIVE and played != turns:
        history = history_of(game)
        moves = [m for m in history.legal_moves() if not m.is_take] or list(history.legal_moves())
        game_play_move(
            game_id=game.pk,
            user=players[history.position.to_move],
            notation=str(rng.choice(moves)),
            expected_ply=history.ply,
        )
        game.refresh_from_db()
        played += 1
    return game


def play_to_the_end(game: Game, players: tuple[object, object], seed: int = TURNS) -> Game:
    """Play seeded random turns, beating or leading rather than taking, until the game ends."""
    return play_turns(game, players, seed)


def dealt_game(
    seat0: object,
    seat1: object,
    time_control: tuple[int, int] | None = (3, 2),
    *,
    rated: bool = False,
) -> Game:
    """A 24-card game between two people, dealt from :data:`DEAL`, its first turn to play."""
    seek = game_create_seek(
        user=seat0, trump="S", options=GameOptions(deck=24, time_control=time_control, rated=rated)
    )
    Game.objects.filter(pk=seek.pk).update(**LEGACY_DEAL)
    return game_join(game_id=seek.pk, user=seat1, trump="H")


def finished_game(
    seat0: object, seat1: object, time_control: tuple[int, int] | None = (3, 2)
) -> Game:
    """A timed 24-card game between two people, dealt from :data:`DEAL` and played out."""
    return play_to_the_end(dealt_game(seat0, seat1, time_control), (seat0, seat1))
