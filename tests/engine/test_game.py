"""A game's history: repetition, replay."""

import pytest

from game.engine import Game, IllegalMoveError, Termination

from .helpers import make_position

# Found by random play from this position: leads, beats and takes that go round in a loop.
START = ("6S 7S 6H", "7H 7D 7C")
LOOP = [
    "6S",
    "take",
    "7S",
    "7H-6S",
    "take",
    "7D",
    "6S-7H",
    "take",
    "7S",
    "7H-6S",
    "take",
    "7D",
    "6S-7H",
    "take",
]


def test_the_third_arising_of_a_position_draws_by_repetition():
    game = Game(make_position(*START))
    for move in LOOP[:-1]:
        game.play(move)
        assert game.outcome is None
    game.play(LOOP[-1])
    assert game.repetitions() == 3
    assert game.outcome is not None
    assert game.outcome.termination is Termination.REPETITION
    assert (game.outcome.result, game.outcome.winner) == ("draw", None)
    assert len(game.legal_moves()) == 0
    with pytest.raises(IllegalMoveError, match="repetition"):
        game.play("7S")


def test_the_position_alone_knows_nothing_of_repetition():
    game = Game.replay(make_position(*START), LOOP)
    assert game.position.outcome is None
    assert len(game.position.legal_moves()) > 0


def test_replay_records_every_position_and_turn():
    start = make_position(*START)
    game = Game.replay(start, LOOP[:4])
    assert game.ply == 4 and game.start == start
    assert [str(m) for m in game.moves] == LOOP[:4]
    assert len(game.positions) == 5
    positions = game.positions
    for before, move, after in zip(positions, game.moves, positions[1:], strict=False):
        assert before.play(move) == after


def test_an_illegal_turn_leaves_the_game_unchanged():
    game = Game(make_position(*START))
    with pytest.raises(IllegalMoveError):
        game.play("take")
    assert game.ply == 0 and game.repetitions() == 1
