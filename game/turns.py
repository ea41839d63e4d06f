"""The live table's turns in words: who played each turn of the move log, and the last turn as
a sentence for screen readers ("bob beat 9♣ with J♣ and laid 7♦").

Read off the move log and the stored position alone: a turn's mover follows from the first
player (every turn passes the move), and the card a beat answered lies under the cards it put on
the pile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from game import engine


@dataclass(frozen=True)
class Turn:
    """One line of the move log: turn ``number`` (1 for the first), by ``seat`` named ``name``."""

    number: int
    seat: int
    name: str
    notation: str


def turn_at(moves: Sequence[str], ply: int, first: int, names: Sequence[str]) -> Turn:
    """The move log's turn ``ply`` (0 for the first) with its mover; ``first`` is the seat that
    played turn 1."""
    seat = (first + ply) % 2
    return Turn(ply + 1, seat, names[seat], moves[ply])


def _short(card: engine.Card) -> str:
    """A card as players write it: ``9♣``, ``10♥``."""
    rank = "10" if card.rank.letter == "T" else card.rank.letter
    return rank + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[card.suit.letter]


def moved_cards(turn: Turn | None) -> frozenset[engine.Card]:
    """The cards the turn put on the pile (none for a take): the table marks them."""
    if turn is None:
        return frozenset()
    return frozenset(engine.Move.parse(turn.notation).cards)


def spoken(turn: Turn, pile: Sequence[engine.Card]) -> str:
    """The turn in words, for the pile as it stands right after it."""
    move = engine.Move.parse(turn.notation)
    values = {"name": turn.name, "pile": len(pile)}
    if move.card is None:
        return _("%(name)s took from the pile; %(pile)d left on it.") % values
    below = pile[: len(pile) - len(move.cards)]
    values["card"] = _short(move.card)
    if not below:
        return _("%(name)s led %(card)s.") % values
    values["top"] = _short(below[-1])
    if move.second is None:
        return _("%(name)s beat %(top)s with %(card)s, their last card.") % values
    values["second"] = _short(move.second)
    return _("%(name)s beat %(top)s with %(card)s and laid %(second)s.") % values
