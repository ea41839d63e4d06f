"""The package-level API on RULES.md JSON positions."""

import copy

import pytest

from game import engine
from game.engine import EngineError, IllegalMoveError, NotationError

POSITION = {
    "trumps": ["S", "H"],
    "hands": [["JC", "6S", "7D"], ["KH"]],
    "pile": ["9C"],
    "to_move": 0,
}


def test_legal_moves_lists_notation():
    assert sorted(engine.legal_moves(POSITION)) == ["6S-7D", "6S-JC", "JC-6S", "JC-7D", "take"]


def test_play_returns_the_next_position_as_json_and_leaves_the_input_alone():
    # A deep copy: a shallow one shares the hand lists, so a `play` that emptied a hand passed.
    position = copy.deepcopy(POSITION)
    after = engine.play(position, "jc-6s")
    assert after["pile"] == ["9C", "JC", "6S"]
    assert after["hands"] == [["7D"], ["KH"]]
    assert after["to_move"] == 1
    assert position == POSITION


def test_errors_are_value_errors_split_by_cause():
    with pytest.raises(IllegalMoveError, match="does not beat"):
        engine.play(POSITION, "7D-6S")
    with pytest.raises(NotationError):
        engine.play(POSITION, "JC+6S")
    with pytest.raises(NotationError):
        engine.legal_moves({**POSITION, "to_move": 3})
    assert issubclass(IllegalMoveError, EngineError) and issubclass(NotationError, EngineError)
    assert issubclass(EngineError, ValueError)
