"""The position: both hands, the pile, both trumps and the player to move.

Positions are immutable values; :meth:`Position.play` returns the position
after a turn. Hands are int bitmasks (see :mod:`.cards`), the pile a tuple of
cards from bottom to top.

>>> pos = Position(
...     trumps=(Suit.S, Suit.H),
...     hands=(CardSet.parse("JC 6S 7D").mask, CardSet.parse("KH").mask),
...     pile=(Card.parse("9C"),),
... )
>>> [str(m) for m in pos.legal_moves()]
['take', '6S-7D', '6S-JC', 'JC-6S', 'JC-7D']
>>> print(pos.play(Move.parse("JC-6S")))
S H | 7D | KH | 9C JC 6S | 1 to move
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from typing import overload

from .cards import (
    ALL_CARDS,
    CARD_COUNT,
    CARD_NAMES,
    CARDS,
    SUIT_MASKS,
    Card,
    CardSet,
    Rank,
    Suit,
    cards_of,
)
from .errors import IllegalMoveError, NotationError
from .moves import BEATS, SINGLES, TAKE, Move
from .rules import DEFAULT_RULES, Rules

#: What repetition compares: both hands, the pile in order, the player to move.
PositionKey = tuple[tuple[int, int], tuple[Card, ...], int]

#: A take picks up the whole pile: more than any pile can hold.
WHOLE_PILE = 2 * len(CARDS)


def _beaters_table(trump: Suit) -> tuple[int, ...]:
    """For each top card, the cards that beat it for a player whose trump is ``trump``."""
    table = []
    for top in CARDS:
        suit_mask = SUIT_MASKS[top.suit]
        higher = suit_mask & ~((2 << top) - 1)
        table.append(higher if top.suit == trump else higher | SUIT_MASKS[trump])
    return tuple(table)


def _take_table(trump: Suit) -> tuple[int, ...]:
    """For each top card, how many cards a player whose trump is ``trump`` takes."""
    return tuple(
        3 if top.suit != trump else WHOLE_PILE if top.rank == Rank.ACE else 5 for top in CARDS
    )


#: ``BEATERS[trump][top]``: bitmask of the cards that beat ``top``.
BEATERS: tuple[tuple[int, ...], ...] = tuple(_beaters_table(s) for s in Suit)
#: ``TAKE_COUNTS[trump][top]``: cards a take picks up (:data:`WHOLE_PILE` for all).
TAKE_COUNTS: tuple[tuple[int, ...], ...] = tuple(_take_table(s) for s in Suit)


class Termination(Enum):
    """Why a game ended by the rules of play."""

    EMPTY_HAND = "empty_hand"
    LAST_CARD = "last_card"
    REPETITION = "repetition"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game: ``winner`` is ``None`` for a draw."""

    termination: Termination
    winner: int | None = None

    @property
    def result(self) -> str:
        return "draw" if self.winner is None else "win"

    def to_json(self) -> dict[str, object]:
        """The RULES.md / conformance form: ``{"result": "win", "winner": 0}``."""
        return {"result": self.result, "winner": self.winner}


@dataclass(frozen=True, slots=True)
class Position:
    """Both hands, the pile (bottom to top), both trumps and the player to move.

    The constructor trusts its arguments (so :meth:`play` stays cheap); use
    :meth:`check`, or build positions with :func:`.notation.position_from_json`
    or :func:`.deal.deal`, which check them.

    ``drawn_by_last_card`` records how a position with an empty hand came
    about: by a beat with one's last card (a draw) rather than by emptying the
    hand with a lead or a second card (a win). The JSON format has no room for
    it, so a position read from JSON with an empty hand counts as a win.
    """

    trumps: tuple[Suit, Suit]
    hands: tuple[int, int]
    pile: tuple[Card, ...] = ()
    to_move: int = 0
    rules: Rules = DEFAULT_RULES
    drawn_by_last_card: bool = False

    # -- what the position shows --------------------------------------------

    def hand(self, player: int) -> CardSet:
        return CardSet(self.hands[player])

    @property
    def top_card(self) -> Card | None:
        return self.pile[-1] if self.pile else None

    @property
    def key(self) -> PositionKey:
        """What repetition compares: both hands, the pile in order, the player to move."""
        return (self.hands, self.pile, self.to_move)

    @property
    def is_over(self) -> bool:
        return not (self.hands[0] and self.hands[1])

    @property
    def outcome(self) -> Outcome | None:
        """How the game stands by this position alone (repetition needs a :class:`.Game`)."""
        h0, h1 = self.hands
        if h0 and h1:
            return None
        if self.drawn_by_last_card:
            return Outcome(Termination.LAST_CARD)
        return Outcome(Termination.EMPTY_HAND, 0 if not h0 else 1)

    def beaters(self) -> CardSet:
        """The cards in the mover's hand that beat the top card (none on an empty pile)."""
        if not self.pile:
            return CardSet()
        return CardSet(self.hands[self.to_move] & BEATERS[self.trumps[self.to_move]][self.pile[-1]])

    def take_count(self) -> int:
        """How many cards a take by the player to move would pick up (0 on an empty pile)."""
        if not self.pile:
            return 0
        return min(len(self.pile), TAKE_COUNTS[self.trumps[self.to_move]][self.pile[-1]])

    # -- legal turns -----------------------------------------------------------

    def legal_moves(self) -> LegalMoves:
        """Every legal turn, as a lazy sequence (see :class:`LegalMoves` for the order)."""
        p = self.to_move
        hand = self.hands[p]
        if not (hand and self.hands[1 - p]):
            return LegalMoves(0, 0, False)
        if not self.pile:
            return LegalMoves(hand, 0, False)
        beaters = hand & BEATERS[self.trumps[p]][self.pile[-1]]
        may_take = not (beaters and self.rules.must_beat)
        return LegalMoves(hand, beaters, may_take)

    def is_legal(self, move: Move) -> bool:
        return self._illegal_reason(move) is None

    def play(self, move: Move | str) -> Position:
        """The position after ``move``; raises :class:`IllegalMoveError` saying why not."""
        if isinstance(move, str):
            move = Move.parse(move)
        reason = self._illegal_reason(move)
        if reason is not None:
            raise IllegalMoveError(f"{move}: {reason}")
        return self.play_unchecked(move)

    def play_unchecked(self, move: Move) -> Position:
        """The position after a turn known to be legal (searches call this in their hot loop)."""
        p = self.to_move
        h0, h1 = self.hands
        if move.card is None:
            pile = self.pile
            count = TAKE_COUNTS[self.trumps[p]][pile[-1]]
            taken = 0
            for c in pile[-count:]:
                taken |= 1 << c
            hands = (h0 | taken, h1) if p == 0 else (h0, h1 | taken)
            return _make(self.trumps, hands, pile[:-count], 1 - p, self.rules, False)
        played = move.mask
        hands = (h0 & ~played, h1) if p == 0 else (h0, h1 & ~played)
        # A lone card on a non-empty pile is a beat with the last card: a draw.
        drawn = move.second is None and self.pile != ()
        return _make(self.trumps, hands, self.pile + move.cards, 1 - p, self.rules, drawn)

    def _illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` is illegal here, in words; ``None`` when it is legal."""
        p = self.to_move
        hand = self.hands[p]
        outcome = self.outcome
        if outcome is not None:
            return f"the game is over ({_describe(outcome)})"
        card, second = move.card, move.second
        if card is None:
            if not self.pile:
                return "the pile is empty, so there is nothing to take: lead a card"
            beaters = self.beaters()
            if beaters and self.rules.must_beat:
                top = self.pile[-1]
                return f"must_beat is on and {beaters} beats {top}, so taking is not allowed"
            return None
        if not hand >> card & 1:
            return f"{card} is not in player {p}'s hand"
        if second == card:
            # Move.parse refuses "QS-QS", but Move(card, card) can be built directly (BEATS holds
            # it); played, it would put one card on the pile twice.
            return "the second card must be another card"
        if second is not None and not hand >> second & 1:
            return f"{second} is not in player {p}'s hand"
        if not self.pile:
            if second is not None:
                return "the pile is empty: lead a single card"
            return None
        top = self.pile[-1]
        trump = self.trumps[p]
        if not BEATERS[trump][top] >> card & 1:
            return f"{card} does not beat {top}: {_what_beats(top, trump)}"
        if second is None and hand.bit_count() > 1:
            return f"a beat needs a second card ({card}-XX); only a player's last card beats alone"
        return None

    # -- checking, printing -------------------------------------------------------

    def check(self) -> Position:
        """Raise :class:`NotationError` unless this is a position the rules can hold."""
        if len(self.trumps) != 2 or self.trumps[0] == self.trumps[1]:
            raise NotationError("the two players' trump suits must differ")
        if self.to_move not in (0, 1):
            raise NotationError(f"to_move must be 0 or 1, not {self.to_move!r}")
        seen = 0
        for cards in (self.hands[0], self.hands[1], sum(1 << c for c in self.pile)):
            if seen & cards:
                raise NotationError(f"{CardSet(seen & cards)} is held twice")
            seen |= cards
        if len(set(self.pile)) != len(self.pile):
            raise NotationError("a card lies on the pile twice")
        if seen & ~self.rules.pack & ALL_CARDS:
            stray = CardSet(seen & ~self.rules.pack)
            raise NotationError(f"{stray} is not in the {self.rules.deck}-card pack")
        if not (self.hands[0] or self.hands[1]):
            raise NotationError("both hands are empty: no game reaches that")
        if self.drawn_by_last_card and self.outcome is None:
            raise NotationError("drawn_by_last_card needs an empty hand")
        return self

    def __str__(self) -> str:
        """One line: trumps | hand 0 | hand 1 | pile bottom to top | player to move."""
        trumps = " ".join(s.letter for s in self.trumps)
        pile = " ".join(CARD_NAMES[c] for c in self.pile) or "-"
        hands = " | ".join(str(self.hand(p)) or "-" for p in (0, 1))
        return f"{trumps} | {hands} | {pile} | {self.to_move} to move"


class _Unfrozen:
    """Position's slots without its frozen ``__setattr__``, to be filled and relabelled."""

    __slots__ = tuple(f.name for f in fields(Position))
    trumps: tuple[Suit, Suit]
    hands: tuple[int, int]
    pile: tuple[Card, ...]
    to_move: int
    rules: Rules
    drawn_by_last_card: bool


def _make(
    trumps: tuple[Suit, Suit],
    hands: tuple[int, int],
    pile: tuple[Card, ...],
    to_move: int,
    rules: Rules,
    drawn: bool,
) -> Position:
    """``Position(...)`` at less than half the cost, for :meth:`Position.play_unchecked`.

    A frozen dataclass's ``__init__`` calls ``object.__setattr__`` per field, which
    dominated a search's ply. Plain attribute stores on a twin with the same
    slots, then assigning ``__class__`` (allowed between identical layouts),
    builds the same immutable value.
    """
    position = _Unfrozen()
    position.trumps = trumps
    position.hands = hands
    position.pile = pile
    position.to_move = to_move
    position.rules = rules
    position.drawn_by_last_card = drawn
    position.__class__ = Position  # type: ignore[assignment]
    return position  # type: ignore[return-value]


def _describe(outcome: Outcome) -> str:
    if outcome.termination is Termination.LAST_CARD:
        return "drawn by a beat with the last card"
    if outcome.termination is Termination.REPETITION:
        return "drawn by repetition"
    return f"player {outcome.winner} has won"


def _what_beats(top: Card, trump: Suit) -> str:
    if top.suit == trump:
        if top.rank == Rank.ACE:
            return f"it is the ace of your trump suit {trump.letter}; nothing beats it"
        return f"it is of your trump suit {trump.letter}; only a higher {trump.letter} beats it"
    return f"play a higher {top.suit.letter} or any card of your trump suit {trump.letter}"


class LegalMoves(Sequence[Move]):
    """The legal turns of a position, generated on demand.

    Order: ``take`` first when legal; then leads, or beats, by card index
    (spades, hearts, diamonds, clubs; low to high), beats ordered by the
    beating card and then the second card. Indexing is O(1), so picking a
    random turn never builds the whole list.
    """

    __slots__ = ("_beaters", "_count", "_hand", "_lone", "_may_take")

    def __init__(self, hand: int, beaters: int, may_take: bool) -> None:
        self._hand = hand
        self._beaters = beaters
        self._may_take = may_take
        size = hand.bit_count()
        #: The cards played alone: any card as a lead, or a last card that beats.
        self._lone = 0
        if not (beaters or may_take):
            self._lone = hand  # a lead, or no turn at all when the hand is empty
            self._count = size
        elif size == 1:
            self._lone = beaters
            self._count = may_take + beaters.bit_count()
        else:
            self._count = may_take + beaters.bit_count() * (size - 1)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Move: ...
    @overload
    def __getitem__(self, index: slice) -> list[Move]: ...
    def __getitem__(self, index: int | slice) -> Move | list[Move]:
        if type(index) is not int or not 0 <= index < self._count:
            return self._getitem_slow(index)
        if self._may_take:
            if not index:
                return TAKE
            index -= 1
        if self._lone:
            return SINGLES[cards_of(self._lone)[index]]
        hand = cards_of(self._hand)
        per_beater = len(hand) - 1
        beater = cards_of(self._beaters)[index // per_beater]
        second = hand[index % per_beater]
        if second >= beater:
            second = hand[index % per_beater + 1]  # skip the beater itself
        return BEATS[beater * CARD_COUNT + second]

    def _getitem_slow(self, index: int | slice) -> Move | list[Move]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if -self._count <= index < 0:
            return self[index + self._count]
        raise IndexError("legal move index out of range")

    def __iter__(self) -> Iterator[Move]:
        if self._may_take:
            yield TAKE
        if self._lone:
            for card in cards_of(self._lone):
                yield SINGLES[card]
        elif self._beaters:
            hand_cards = cards_of(self._hand)
            for beater in cards_of(self._beaters):
                row = beater * CARD_COUNT
                for second in hand_cards:
                    if second != beater:
                        yield BEATS[row + second]

    def __contains__(self, move: object) -> bool:
        return move in list(self)

    def __repr__(self) -> str:
        return f"<LegalMoves {', '.join(str(m) for m in self)}>"
