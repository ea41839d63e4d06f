"""Turns and their notation (RULES.md, "Notation").

A turn is one of: ``take``; one card (``7H``: a lead on an empty pile, or a
beat with one's last card on a non-empty pile, which draws); or a beating card
and a second card (``QS-9D``). Which one-card turn is meant depends on the
pile, so it is the position that judges it, not the notation.

Every possible turn is built once at import and shared, so generating legal
turns allocates nothing.

>>> Move.parse("qs-9d"), str(Move.parse("10h")), Move.parse("Take") is TAKE
(Move.parse('QS-9D'), 'TH', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import CARD_COUNT, CARD_NAMES, CARDS, Card
from .errors import NotationError


@dataclass(frozen=True, slots=True)
class Move:
    """A turn: ``card`` is the led or beating card, ``second`` the card played on it.

    Both are ``None`` for a take. Use :meth:`parse`, :data:`TAKE`,
    :func:`single` and :func:`beat` rather than the constructor to get the
    shared instances.
    """

    card: Card | None = None
    second: Card | None = None
    #: The cards this turn puts on the pile, in order, and as a bitmask (derived).
    cards: tuple[Card, ...] = field(init=False, repr=False, compare=False)
    mask: int = field(init=False, repr=False, compare=False)
    #: A small int naming the turn, unique among turns (derived): ``beater * 36 + second``,
    #: ``card * 36 + card`` for a single card, 1296 for a take. Tables index by it.
    code: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cards = tuple(c for c in (self.card, self.second) if c is not None)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "mask", sum(1 << c for c in cards))
        code = TAKE_CODE if not cards else cards[0] * CARD_COUNT + cards[-1]
        object.__setattr__(self, "code", code)

    def __hash__(self) -> int:
        # The derived code, not a hash of the fields: searches hash turns in their hot loop.
        return self.code

    @property
    def is_take(self) -> bool:
        return self.card is None

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a turn in RULES.md notation; cards in any accepted spelling."""
        raw = text.strip()
        if raw.lower() == "take":
            return TAKE
        first, dash, second = raw.partition("-")
        try:
            if not dash:
                return single(Card.parse(first))
            return beat(Card.parse(first), Card.parse(second))
        except NotationError as error:
            hint = "write take, 7H or QS-9D"
            raise NotationError(f"{text!r} is not a turn ({error}); {hint}") from None

    def __str__(self) -> str:
        if self.card is None:
            return "take"
        if self.second is None:
            return CARD_NAMES[self.card]
        return f"{CARD_NAMES[self.card]}-{CARD_NAMES[self.second]}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


TAKE_CODE = CARD_COUNT * CARD_COUNT
TAKE = Move()
SINGLES: tuple[Move, ...] = tuple(Move(card) for card in CARDS)
#: ``BEATS[beater * 36 + second]``; the diagonal (a card on itself) is never legal.
BEATS: tuple[Move, ...] = tuple(Move(b, s) for b in CARDS for s in CARDS)


def single(card: int) -> Move:
    """The one-card turn with ``card``: a lead, or a last-card beat."""
    return SINGLES[card]


def beat(beater: int, second: int) -> Move:
    """The turn that beats with ``beater`` and plays ``second`` on top."""
    if beater == second:
        text = f"{CARD_NAMES[beater]}-{CARD_NAMES[second]}"
        raise NotationError(f"{text}: the second card must be another card")
    return BEATS[beater * CARD_COUNT + second]
