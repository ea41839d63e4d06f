"""The game state a server keeps beside the log: the same as replaying the log, and storable."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.engine import Game, GameState, IllegalMoveError, NotationError, Suit, Termination, deal

from .helpers import make_position
from .test_game import LOOP, START


@st.composite
def games(draw, max_plies=400):
    """A deal and up to ``max_plies`` random legal turns from it, played as a :class:`Game`."""
    suits = draw(st.permutations(list(Suit)))
    game = Game(deal(draw(st.integers(0, 2**32)), (suits[0], suits[1])))
    rng: random.Random = draw(st.randoms(use_true_random=False))
    while game.ply < max_plies and game.outcome is None:
        legal = game.legal_moves()
        game.play(legal[rng.randrange(len(legal))])
    return game


@settings(max_examples=60, deadline=None)
@given(games())
def test_playing_turn_by_turn_keeps_the_state_that_replaying_the_log_gives(game: Game) -> None:
    state = GameState.start(game.start)
    for move in game.moves:
        state = state.play(move)
    assert state == game.state
    assert state.outcome == game.outcome
    assert list(state.legal_moves()) == list(game.legal_moves())


@settings(max_examples=60, deadline=None)
@given(games())
def test_the_state_round_trips_through_json(game: Game) -> None:
    assert GameState.from_json(game.state.to_json()) == game.state


def test_the_third_arising_of_a_position_draws_and_survives_storing() -> None:
    state = GameState.start(make_position(*START))
    for move in LOOP:
        state = GameState.from_json(state.play(move).to_json())
    assert state.outcome is not None
    assert state.outcome.termination is Termination.REPETITION
    with pytest.raises(IllegalMoveError, match="repetition"):
        state.play("7S")


def test_a_draw_by_the_last_card_survives_storing() -> None:
    state = GameState.start(make_position("AS", "7C 8C", pile="KD", to_move=0))
    drawn = GameState.from_json(state.play("AS").to_json())
    assert drawn.outcome is not None
    assert drawn.outcome.termination is Termination.LAST_CARD


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"position": {}, "ply": 0, "seen": {}},
        {"position": None, "ply": 0, "seen": []},
        {**GameState.start(make_position(*START)).to_json(), "ply": -1},
        {**GameState.start(make_position(*START)).to_json(), "seen": {"zz": 1}},
        {**GameState.start(make_position(*START)).to_json(), "seen": {}},
    ],
)
def test_a_damaged_state_is_refused_with_a_notation_error(data: object) -> None:
    with pytest.raises(NotationError):
        GameState.from_json(data)
