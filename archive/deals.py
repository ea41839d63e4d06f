"""A game's deal checked in the open: the server's secret against the commitment shown before
play, and the deal dealt again from the three parts (``game.engine.fairness``).

Only for a game that is over (``Game.deal_revealed`` says why).
"""

from __future__ import annotations

from dataclasses import dataclass

from game import engine
from game.engine import fairness
from game.models import Game
from game.selectors import start_position
from game.tables import sorted_hand


@dataclass(frozen=True)
class Hand:
    """A seat's starting hand, as the deal page lists it."""

    name: str
    trump: engine.Suit
    cards: str  # notation, sorted as the table sorts a hand
    part: str
    from_browser: bool


@dataclass(frozen=True)
class DealCheck:
    """What the deal page shows: ``parts`` (the stored ones, or ``asked``'s pasted in) dealt
    again, beside what the game was dealt."""

    game: Game
    parts: fairness.DealParts
    #: Whether the parts are someone's pasted in rather than the game's.
    asked: bool

    @property
    def commitment_matches(self) -> bool:
        return self.parts.commitment == self.game.commitment

    @property
    def start(self) -> engine.Position:
        return self.parts.deal(self.game.trumps, self.game.rules, first=self.game.first_player)

    @property
    def same_as_played(self) -> bool:
        """Whether the parts deal the very hands the game was played from."""
        return self.start == start_position(self.game)

    @property
    def verified(self) -> bool:
        return self.commitment_matches and self.same_as_played

    @property
    def hands(self) -> list[Hand]:
        game, start = self.game, self.start
        parts = (self.parts.part0, self.parts.part1)
        browsers = (game.part0_from_browser, game.part1_from_browser)
        return [
            Hand(
                name=game.seat_name(seat),
                trump=start.trumps[seat],
                cards=" ".join(str(card) for card in sorted_hand(start, seat)),
                part=parts[seat],
                from_browser=browsers[seat] and not self.asked,
            )
            for seat in (0, 1)
        ]


def deal_check(game: Game, asked: tuple[str, str, str] | None = None) -> DealCheck | None:
    """The check of a game over that was dealt fairly, from its own parts or from ``asked``
    (secret, seat 0's part, seat 1's); ``None`` for a game made before deals could be checked.
    Raises :class:`engine.NotationError` when an asked part is not spelled as one."""
    if not game.secret:
        return None
    if asked is None:
        return DealCheck(game, fairness.DealParts(game.secret, game.part0, game.part1), False)
    return DealCheck(game, fairness.DealParts(*asked), True)
