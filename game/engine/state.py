"""A game's state: the position now, the turns played, and how often each position has arisen.

That is all the rules need to go on playing a game without its log. A server
keeps it beside the stored move log, so that a turn costs one position, not a
replay of the whole game (the log stays the truth: replaying it gives the same
state, see :attr:`.Game.state`).

>>> from game.engine import Suit, deal
>>> state = GameState.start(deal(7, (Suit.S, Suit.H)))
>>> after = state.play(state.legal_moves()[0])
>>> after.ply, state.ply
(1, 0)
>>> GameState.from_json(after.to_json()) == after
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .cards import CARD_NAMES
from .errors import IllegalMoveError, NotationError
from .moves import Move
from .notation import position_from_json, position_to_json
from .position import LegalMoves, Outcome, Position, PositionKey, Termination

#: A position arising this many times draws the game.
REPETITION_LIMIT = 3


def judge(position: Position, times_seen: int) -> Outcome | None:
    """How a game stands at ``position``, reached for the ``times_seen``-th time."""
    outcome = position.outcome
    if outcome is None and times_seen >= REPETITION_LIMIT:
        return Outcome(Termination.REPETITION)
    return outcome


def legal_at(position: Position, outcome: Outcome | None) -> LegalMoves:
    """The legal turns of a game standing at ``position`` with ``outcome``: none once it is over."""
    if outcome is not None:
        return LegalMoves(0, 0, False)
    return position.legal_moves()


def play_on(position: Position, outcome: Outcome | None, move: Move | str) -> Position:
    """The position after ``move`` in a game standing at ``position`` with ``outcome``; raises
    :class:`IllegalMoveError` saying why not (a game drawn by repetition takes no more turns)."""
    if outcome is not None and outcome.termination is Termination.REPETITION:
        raise IllegalMoveError(f"{move}: the game is over (drawn by repetition)")
    return position.play(move)


@dataclass(frozen=True, slots=True)
class GameState:
    """An immutable value: :meth:`play` returns the state after a turn."""

    position: Position
    #: How many times each position has arisen (the current one included), by
    #: :func:`repetition_key`: text, so that storing and reading a state costs no parsing.
    seen: Mapping[str, int] = field(compare=True)
    ply: int = 0

    @classmethod
    def start(cls, position: Position) -> GameState:
        return cls(position, MappingProxyType({repetition_key(position.key): 1}), 0)

    @property
    def outcome(self) -> Outcome | None:
        return judge(self.position, self.repetitions())

    def legal_moves(self) -> LegalMoves:
        return legal_at(self.position, self.outcome)

    def play(self, move: Move | str) -> GameState:
        """The state after a turn; raises :class:`IllegalMoveError` saying why not."""
        after = play_on(self.position, self.outcome, move)
        seen = dict(self.seen)
        key = repetition_key(after.key)
        seen[key] = seen.get(key, 0) + 1
        return GameState(after, MappingProxyType(seen), self.ply + 1)

    def repetitions(self) -> int:
        """How many times the current position has arisen."""
        return self.seen[repetition_key(self.position.key)]

    @property
    def key(self) -> str:
        """The current position's :func:`repetition_key`."""
        return repetition_key(self.position.key)

    def counted(self, times: int) -> GameState:
        """This state remembering only that its position has arisen ``times`` times: what a
        server stores, whatever the game's length, while each earlier position's key stays
        beside its turn in the log. Its outcome and legal turns are the full state's; its
        :meth:`play` counts the next position once, so the caller counts it again.

        >>> from game.engine import Suit, deal
        >>> state = GameState.start(deal(7, (Suit.S, Suit.H)))
        >>> state.counted(2).repetitions(), len(state.counted(2).seen)
        (2, 1)
        """
        if times < 1:
            raise ValueError(f"a position on the table has arisen at least once, not {times}")
        return GameState(self.position, MappingProxyType({self.key: times}), self.ply)

    # -- JSON, for storing beside the log ----------------------------------------

    def to_json(self) -> dict[str, Any]:
        """``{"position": RULES.md JSON, "ply": n, "seen": {key: count}}``; a draw by the last
        card, which RULES.md's JSON cannot say, adds ``"last_card": true``."""
        data: dict[str, Any] = {
            "position": position_to_json(self.position),
            "ply": self.ply,
            "seen": dict(self.seen),
        }
        if self.position.drawn_by_last_card:
            data["last_card"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> GameState:
        """Read what :meth:`to_json` wrote; raises :class:`NotationError` on anything else."""
        if not isinstance(data, dict) or not isinstance(data.get("seen"), dict):
            raise NotationError("a game state must be an object with position, ply and seen")
        position = position_from_json(data.get("position"))
        if data.get("last_card") is True:
            position = _with_last_card_draw(position)
        ply = data.get("ply")
        if not isinstance(ply, int) or isinstance(ply, bool) or ply < 0:
            raise NotationError(f"ply must be a whole number, not {ply!r}")
        seen = data["seen"]
        for text, count in seen.items():
            if not _KEY.fullmatch(text) or not isinstance(count, int) or count < 1:
                raise NotationError(f"position {text!r} counted {count!r} times is not a count")
        if repetition_key(position.key) not in seen:
            raise NotationError("the current position is not counted in seen")
        return cls(position, MappingProxyType(dict(seen)), ply)


def _with_last_card_draw(position: Position) -> Position:
    return Position(
        position.trumps, position.hands, position.pile, position.to_move, position.rules, True
    )


#: What :func:`repetition_key` writes: hands in hex, the pile's cards, the player to move.
_KEY = re.compile(r"[0-9a-f]+\.[0-9a-f]+\.(?:[6-9TJQKA][SHDC])*\.[01]")


def repetition_key(key: PositionKey) -> str:
    """A position's key as text, ``hand0.hand1.pile.to_move``: hands as hex bitmasks, the pile
    as card names (``5e4e06a4f.a1b1f95a0.TS.0``)."""
    (h0, h1), pile, to_move = key
    return f"{h0:x}.{h1:x}.{''.join(CARD_NAMES[c] for c in pile)}.{to_move}"
