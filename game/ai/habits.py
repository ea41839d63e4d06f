"""An opponent's habit: a fixed rule their turns have kept to, all game long.

The public programs for this game play by a fixed rule (the bots of
:mod:`.bots`: beat whenever possible with the lowest beating card, lay the
lowest other card, lead the lowest card). Searching as if such a player answered
with their best turn, the computer finds no way through their simple play and
settles for draws and lost races (issue 22). A player whose every turn with a
choice so far has been the same rule's is expected to keep to it: the search
then follows that single reply, so it looks twice as deep and aims at the win
that exists against that player, not against the best one.

The expectation is dropped for good at the first turn that breaks the rule, and
it is never formed before :data:`MIN_CHOICES` turns with a choice agree, so a
player who happens to play the lowest card a few times is not mistaken for one.

>>> from game.engine import Game, deal, Suit
>>> game = Game(deal(3, (Suit.SPADES, Suit.HEARTS)))
>>> habit_of(game.positions, 1) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from game.engine import Move, Position

from .bots import BOTS, bot_move

#: The turns with a choice a player must have played by one rule before it is expected of them.
MIN_CHOICES = 3

#: A habit gives the turn a player of that habit plays in a position (``None``: no telling).
Habit = Callable[[Position], Move | None]


def habit_of(positions: Sequence[Position], seat: int) -> Habit | None:
    """The rule every turn of ``seat`` with a choice kept to in ``positions``, if one did.

    ``positions`` is the game so far, in order (each the result of a turn on
    the one before). ``None`` while fewer than :data:`MIN_CHOICES` such turns
    were played, or when no rule explains them all.
    """
    rules = list(BOTS)
    choices = 0
    for before, after in pairwise(positions):
        if before.to_move != seat or len(before.legal_moves()) < 2:
            continue
        choices += 1
        rules = [name for name in rules if before.play_unchecked(bot_move(before, name)) == after]
        if not rules:
            return None
    if choices < MIN_CHOICES:
        return None

    def turn(position: Position) -> Move | None:
        # Rules that agreed so far may part later: where they do, nothing is foreseen.
        foreseen = {bot_move(position, name) for name in rules}
        return foreseen.pop() if len(foreseen) == 1 else None

    return turn
