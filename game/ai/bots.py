"""Deterministic opponents in the style of the other public programs for this game.

Each is a pure function of the position: it beats whenever it can (with its
lowest beating card, then lays its lowest other card), takes only when nothing
beats the top card, and leads its lowest card. They differ in what "lowest" means:

- ``lowest-beat`` orders cards by rank, ties by suit (spades, hearts, diamonds,
  clubs): a six of trumps is lower than a king of clubs. This is the strategy of
  the public program the issue played against.
- ``lowest`` orders cards as the engine lists them, by suit and then by rank: the
  first card of a sorted hand that fits, as the simplest programs play.
- ``trumps-last`` orders by rank too, but every card of its own trump suit above
  every other card: trumps are spent only when nothing else will do.

They never think, so they ignore the history and the time; a search meets them
to find out whether it converts won games against a player that never errs at
random and never varies (issue 22: such a player drew three of four against
``hard`` by repetition).

>>> from game.engine import position_from_json
>>> position = position_from_json({"trumps": ["S", "H"], "pile": ["9C"], "to_move": 0,
...     "hands": [["JC", "6S", "7D", "AD"], ["KH"]]})
>>> [str(bot_move(position, name)) for name in BOTS]
['6S-7D', '6S-7D', 'JC-7D']
"""

from __future__ import annotations

from collections.abc import Callable

from game.engine import TAKE, Card, Move, Position, Suit

BOTS = ("lowest-beat", "lowest", "trumps-last")

#: How low a card is for a bot, given the bot's trump suit: the lowest sorts first.
CardOrder = Callable[[Card, Suit], tuple[int, ...]]


def _by_rank(card: Card, trump: Suit) -> tuple[int, ...]:
    return (card.rank, card.suit)


def _by_suit(card: Card, trump: Suit) -> tuple[int, ...]:
    return (card,)


def _trumps_last(card: Card, trump: Suit) -> tuple[int, ...]:
    return (card.suit == trump, card.rank, card.suit)


ORDERS: dict[str, CardOrder] = {
    "lowest-beat": _by_rank,
    "lowest": _by_suit,
    "trumps-last": _trumps_last,
}


def bot_move(position: Position, name: str) -> Move:
    """The turn the bot ``name`` (one of :data:`BOTS`) plays in ``position``."""
    order = ORDERS[name]
    trump = position.trumps[position.to_move]
    lowest_first = sorted(position.hand(position.to_move), key=lambda c: order(c, trump))
    moves = [m for m in position.legal_moves() if m is not TAKE]
    if not moves:
        return TAKE  # nothing beats the top card
    if not position.pile:
        return _single(moves, lowest_first[0])
    beaters = position.beaters()
    beater = next(c for c in lowest_first if c in beaters)
    if len(lowest_first) == 1:
        return _single(moves, beater)  # a beat with the last card: a draw, but a beat
    second = next(c for c in lowest_first if c != beater)
    return next(m for m in moves if m.cards == (beater, second))


def _single(moves: list[Move], card: Card) -> Move:
    return next(m for m in moves if m.cards == (card,))
