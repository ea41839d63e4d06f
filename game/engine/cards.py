"""Suits, ranks, cards and sets of cards.

A card is a small int, ``suit * 9 + rank``, so a set of cards is an int
bitmask: bit ``c`` is set when card ``c`` is in the set. The rules engine
works on those ints in its hot loops; :class:`Card` and :class:`CardSet` are
thin views over them for everyone else.

>>> Card.parse("10s"), str(Card.parse("♥a"))
(Card.parse('TS'), 'AH')
>>> str(CardSet.parse("AH 6S TD"))
'6S AH TD'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum

from .errors import NotationError


class Suit(IntEnum):
    """The four suits, in the order hands are written: spades, hearts, diamonds, clubs."""

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def letter(self) -> str:
        return SUIT_LETTERS[self]

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit letter (any case) or symbol.

        >>> Suit.parse("h"), Suit.parse("♣")
        (<Suit.H: 1>, <Suit.C: 3>)
        """
        suit = _SUIT_BY_TEXT.get(text.strip().upper())
        if suit is None:
            raise NotationError(f"{text!r} is not a suit: use S, H, D, C or ♠ ♥ ♦ ♣")
        return suit


class Rank(IntEnum):
    """The ranks from low to high; ``T`` is the ten."""

    SIX = 0
    SEVEN = 1
    EIGHT = 2
    NINE = 3
    TEN = 4
    JACK = 5
    QUEEN = 6
    KING = 7
    ACE = 8

    @property
    def letter(self) -> str:
        return RANK_LETTERS[self]


RANK_LETTERS = "6789TJQKA"
SUIT_LETTERS = "SHDC"
_SUIT_BY_TEXT = {**{s.name: s for s in Suit}, **{s.symbol: s for s in Suit}}
_RANK_BY_TEXT = {**{letter: Rank(i) for i, letter in enumerate(RANK_LETTERS)}, "10": Rank.TEN}

RANKS_PER_SUIT = 9
# Looked up, not called: an enum's call is ten times a tuple's index, on every card drawn.
_SUITS: tuple[Suit, ...] = tuple(Suit)
_RANKS: tuple[Rank, ...] = tuple(Rank)
CARD_COUNT = 36
SUIT_MASKS: tuple[int, ...] = tuple(0x1FF << (RANKS_PER_SUIT * s) for s in Suit)
ALL_CARDS = (1 << CARD_COUNT) - 1


class Card(int):
    """One card: an int from 0 to 35, written rank then suit (``TS``).

    Being an int, a card indexes tables and shifts into bitmasks directly;
    the instances in :data:`CARDS` are shared, so ``Card(i)`` is rarely needed.
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not 0 <= index < CARD_COUNT:
            raise NotationError(f"{index} is not a card index (0 to {CARD_COUNT - 1})")
        return super().__new__(cls, index)

    @classmethod
    def of(cls, rank: Rank, suit: Suit) -> Card:
        return CARDS[suit * RANKS_PER_SUIT + rank]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``TS``, ``10S``, ``ts``, ``T♠`` or ``♠T`` (rank and suit in either order).

        >>> Card.parse("10♦")
        Card.parse('TD')
        """
        raw = text.strip().upper()
        card = _CARD_BY_TEXT.get(raw)
        if card is None:
            raise NotationError(f"{text!r} is not a card: write rank then suit, like TS or 7H")
        return card

    @property
    def suit(self) -> Suit:
        return _SUITS[self // RANKS_PER_SUIT]

    @property
    def rank(self) -> Rank:
        return _RANKS[self % RANKS_PER_SUIT]

    @property
    def mask(self) -> int:
        return 1 << self

    def __bool__(self) -> bool:
        # Every card is something, the six of spades (index 0) included: ``if card:`` must
        # not read it as missing.
        return True

    def __str__(self) -> str:
        return CARD_NAMES[self]

    def __repr__(self) -> str:
        return f"Card.parse({CARD_NAMES[self]!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


CARD_NAMES: tuple[str, ...] = tuple(r + s for s in SUIT_LETTERS for r in RANK_LETTERS)
CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(CARD_COUNT))


def _card_spellings() -> dict[str, Card]:
    spellings: dict[str, Card] = {}
    for rank_text, rank in _RANK_BY_TEXT.items():
        for suit_text, suit in _SUIT_BY_TEXT.items():
            card = CARDS[suit * RANKS_PER_SUIT + rank]
            spellings[rank_text + suit_text] = card
            spellings[suit_text + rank_text] = card
    return spellings


_CARD_BY_TEXT = _card_spellings()

# For each 12-bit third of a mask, the cards it holds, already offset: turning
# a mask into cards costs three lookups, not 36 bit tests (12 bits measured
# faster than 9 or 18: fewer concatenations, tables still small).
_CHUNK = 12
_CHUNK_CARDS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(
        tuple(CARDS[k * _CHUNK + i] for i in range(_CHUNK) if bits >> i & 1)
        for bits in range(1 << _CHUNK)
    )
    for k in range(CARD_COUNT // _CHUNK)
)
_LOW, _MIDDLE, _HIGH = _CHUNK_CARDS


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask, in index order (spades first, low ranks first)."""
    return _LOW[mask & 0xFFF] + _MIDDLE[mask >> 12 & 0xFFF] + _HIGH[mask >> 24]


class CardSet:
    """An immutable set of cards over an int bitmask (like python-chess's ``SquareSet``).

    >>> hand = CardSet.parse("JC 6S 7D")
    >>> len(hand), Card.parse("6S") in hand, [str(c) for c in hand]
    (3, True, ['6S', '7D', 'JC'])
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cards: int | Iterable[int] = 0) -> None:
        if isinstance(cards, int):
            mask = cards
        else:
            mask = 0
            for card in cards:
                mask |= 1 << card
        if mask & ~ALL_CARDS or mask < 0:
            raise NotationError(f"{mask:#x} is not a set of cards")
        object.__setattr__(self, "mask", mask)

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> CardSet:
        """Read cards separated by spaces or commas, or an iterable of card texts."""
        parts = text.replace(",", " ").split() if isinstance(text, str) else text
        mask = 0
        for part in parts:
            card = Card.parse(part)
            if mask >> card & 1:
                raise NotationError(f"{card} is written twice")
            mask |= 1 << card
        return cls(mask)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return bool(self.mask)

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < CARD_COUNT and bool(self.mask >> card & 1)

    def __iter__(self) -> Iterator[Card]:
        return iter(cards_of(self.mask))

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __str__(self) -> str:
        return " ".join(CARD_NAMES[c] for c in cards_of(self.mask))

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"
