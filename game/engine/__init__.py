"""The rules of Your Trumps (RULES.md) as a pure Python package.

No Django, no I/O: cards as small ints, hands as bitmasks, immutable
positions. Two ways in:

- objects: :class:`Position`, :class:`Move`, :class:`Game`, :func:`deal`;
- the JSON format of RULES.md: :func:`legal_moves` and :func:`play`.

>>> position = {"trumps": ["S", "H"], "hands": [["JC", "6S", "7D"], ["KH"]],
...             "pile": ["9C"], "to_move": 0}
>>> legal_moves(position)
['take', '6S-7D', '6S-JC', 'JC-6S', 'JC-7D']
>>> play(position, "take")["hands"][0]
['6S', '7D', '9C', 'JC']
"""

from typing import Any

from .cards import CARDS, Card, CardSet, Rank, Suit
from .deal import deal
from .errors import EngineError, IllegalMoveError, NotationError
from .game import Game
from .moves import TAKE, Move
from .notation import position_from_json, position_to_json
from .position import LegalMoves, Outcome, Position, PositionKey, Termination
from .rules import Rules
from .state import GameState


def legal_moves(position: dict[str, Any]) -> list[str]:
    """Every legal turn of a RULES.md JSON position, in notation (see :class:`LegalMoves`)."""
    return [str(move) for move in position_from_json(position).legal_moves()]


def play(position: dict[str, Any], move: str) -> dict[str, Any]:
    """The RULES.md JSON position after ``move``; raises :class:`EngineError` subclasses."""
    return position_to_json(position_from_json(position).play(Move.parse(move)))


__all__ = [
    "CARDS",
    "TAKE",
    "Card",
    "CardSet",
    "EngineError",
    "Game",
    "GameState",
    "IllegalMoveError",
    "LegalMoves",
    "Move",
    "NotationError",
    "Outcome",
    "Position",
    "PositionKey",
    "Rank",
    "Rules",
    "Suit",
    "Termination",
    "deal",
    "legal_moves",
    "play",
    "position_from_json",
    "position_to_json",
]
