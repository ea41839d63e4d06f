"""The seeded deal: the same seed gives the same deal on every machine.

The shuffle draws from SHA-256 in counter mode rather than :mod:`random`, so
no Python version or platform can change a stored game's cards: a game is
its seed and its move log.

>>> a = deal(42, (Suit.S, Suit.H))
>>> a == deal(42, (Suit.S, Suit.H)), len(a.hand(0)), len(a.hand(1))
(True, 18, 18)
"""

from __future__ import annotations

import hashlib

from .cards import Card, Rank, Suit, cards_of
from .errors import NotationError
from .position import Position
from .rules import DEFAULT_RULES, Rules


class SeededStream:
    """Uniform integers from a seed, the same everywhere (SHA-256 in counter mode)."""

    def __init__(self, seed: int | str) -> None:
        self._seed = str(seed).encode()
        self._counter = 0

    def _next64(self) -> int:
        digest = hashlib.sha256(self._seed + b":" + str(self._counter).encode()).digest()
        self._counter += 1
        return int.from_bytes(digest[:8], "big")

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, without modulo bias."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            value = self._next64()
            if value < limit:
                return value % n

    def shuffle(self, items: list[Card]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def deal(
    seed: int | str,
    trumps: tuple[Suit, Suit],
    rules: Rules = DEFAULT_RULES,
    first: int | None = None,
) -> Position:
    """Shuffle the pack by ``seed``, deal half to each player and pick who starts.

    ``first`` overrides the drawn starting player (a rematch: the loser starts).
    Under ``sixes_to_owner`` with 36 cards, each player then hands the six of
    the opponent's trump suit to the opponent.
    """
    if trumps[0] == trumps[1]:
        raise NotationError("the two players' trump suits must differ")
    if first not in (None, 0, 1):
        raise NotationError(f"first must be 0 or 1, not {first!r}")
    stream = SeededStream(seed)
    cards = list(cards_of(rules.pack))
    stream.shuffle(cards)
    half = len(cards) // 2
    hands = [sum(1 << c for c in cards[:half]), sum(1 << c for c in cards[half:])]
    drawn_first = stream.below(2)
    if rules.sixes_to_owner and rules.deck == 36:
        for player in (0, 1):
            six = 1 << Card.of(Rank.SIX, trumps[1 - player])
            if hands[player] & six:
                hands[player] &= ~six
                hands[1 - player] |= six
    return Position(
        trumps=trumps,
        hands=(hands[0], hands[1]),
        to_move=drawn_first if first is None else first,
        rules=rules,
    ).check()
