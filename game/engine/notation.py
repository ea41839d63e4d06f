"""Positions in and out of the RULES.md JSON format.

Kept beside the core, as python-chess keeps FEN beside the board: the
position knows nothing of JSON.

>>> data = {"trumps": ["S", "H"], "hands": [["6S", "AH"], ["KC"]], "pile": ["9C"], "to_move": 0}
>>> position_to_json(position_from_json(data))["hands"]
[['6S', 'AH'], ['KC']]
"""

from __future__ import annotations

from typing import Any

from .cards import CARD_NAMES, Card, Suit, cards_of
from .errors import NotationError
from .position import Position
from .rules import DEFAULT_RULES, Rules

_KEYS = {"rules", "trumps", "hands", "pile", "to_move"}


def position_from_json(data: Any) -> Position:
    """Read and check a position; ``rules`` may be left out for the defaults.

    Card texts may use any accepted spelling; hands may be in any order.
    Raises :class:`NotationError` naming what is wrong.
    """
    if not isinstance(data, dict):
        raise NotationError("a position must be a JSON object")
    unknown = set(data) - _KEYS
    if unknown:
        raise NotationError(f"unknown key {sorted(unknown)[0]!r} in position")
    missing = _KEYS - {"rules"} - set(data)
    if missing:
        raise NotationError(f"position has no {sorted(missing)[0]!r}")
    rules = Rules.from_json(data["rules"]) if "rules" in data else DEFAULT_RULES
    trumps = data["trumps"]
    if not isinstance(trumps, list | tuple) or len(trumps) != 2:
        raise NotationError("trumps must list two suits, player 0's first")
    hands = data["hands"]
    if not isinstance(hands, list | tuple) or len(hands) != 2:
        raise NotationError("hands must list two hands, player 0's first")
    to_move = data["to_move"]
    if to_move not in (0, 1) or isinstance(to_move, bool):
        raise NotationError(f"to_move must be 0 or 1, not {to_move!r}")
    return Position(
        trumps=(Suit.parse(_text(trumps[0])), Suit.parse(_text(trumps[1]))),
        hands=(_hand(hands[0], 0), _hand(hands[1], 1)),
        pile=tuple(Card.parse(_text(c)) for c in _list(data["pile"], "pile")),
        to_move=to_move,
        rules=rules,
    ).check()


def position_to_json(position: Position) -> dict[str, Any]:
    """The RULES.md form; hands written sorted by suit (S H D C), then rank."""
    return {
        "rules": position.rules.to_json(),
        "trumps": [s.letter for s in position.trumps],
        "hands": [[CARD_NAMES[c] for c in cards_of(h)] for h in position.hands],
        "pile": [CARD_NAMES[c] for c in position.pile],
        "to_move": position.to_move,
    }


def _hand(cards: Any, player: int) -> int:
    mask = 0
    for text in _list(cards, f"hand {player}"):
        card = Card.parse(_text(text))
        if mask >> card & 1:
            raise NotationError(f"{card} is written twice in hand {player}")
        mask |= 1 << card
    return mask


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise NotationError(f"{what} must be a list of cards")
    return list(value)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise NotationError(f"{value!r} is not text")
    return value
