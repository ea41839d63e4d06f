"""A game: a start position and the turns played from it.

Positions carry no history, so draw by repetition is judged here: the game
counts how often each position (both hands, the pile in order, the player to
move) has arisen, and the third time ends it in a draw.

>>> from game.engine import Suit, deal
>>> g = Game(deal(7, (Suit.S, Suit.H)))
>>> g.ply, g.outcome is None
(0, True)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from .moves import Move
from .position import LegalMoves, Outcome, Position, PositionKey
from .state import REPETITION_LIMIT, GameState, judge, legal_at, play_on, repetition_key

__all__ = ["REPETITION_LIMIT", "Game"]


class Game:
    """The history of one game; :meth:`play` appends a turn.

    Unlike :class:`Position`, a game grows: it is a log, as a game record is.
    Every position in it stays an immutable value.
    """

    __slots__ = ("_moves", "_positions", "_seen")

    def __init__(self, start: Position) -> None:
        self._positions: list[Position] = [start]
        self._moves: list[Move] = []
        self._seen: Counter[PositionKey] = Counter([start.key])

    @classmethod
    def replay(cls, start: Position, moves: Iterable[Move | str]) -> Game:
        """The game after playing ``moves`` from ``start``; stops at the first illegal one."""
        game = cls(start)
        for move in moves:
            game.play(move)
        return game

    @property
    def start(self) -> Position:
        return self._positions[0]

    @property
    def position(self) -> Position:
        return self._positions[-1]

    @property
    def positions(self) -> tuple[Position, ...]:
        return tuple(self._positions)

    @property
    def moves(self) -> tuple[Move, ...]:
        return tuple(self._moves)

    @property
    def ply(self) -> int:
        """Turns played so far."""
        return len(self._moves)

    @property
    def position_counts(self) -> Mapping[PositionKey, int]:
        """How often each position key has arisen: what a search needs to judge repetition."""
        return MappingProxyType(self._seen)

    def repetitions(self, position: Position | None = None) -> int:
        """How many times ``position`` (default: the current one) has arisen in this game."""
        return self._seen[(position or self.position).key]

    @property
    def outcome(self) -> Outcome | None:
        return judge(self.position, self._seen[self.position.key])

    @property
    def state(self) -> GameState:
        """What going on from here needs: the position, the ply and the repetition counts."""
        seen = {repetition_key(key): count for key, count in self._seen.items()}
        return GameState(self.position, MappingProxyType(seen), self.ply)

    def legal_moves(self) -> LegalMoves:
        return legal_at(self.position, self.outcome)

    def play(self, move: Move | str) -> Position:
        """Play a turn and return the new position; raises :class:`IllegalMoveError`."""
        after = play_on(self.position, self.outcome, move)
        self._moves.append(Move.parse(move) if isinstance(move, str) else move)
        self._positions.append(after)
        self._seen[after.key] += 1
        return after
