"""The computer opponent: search over the rules engine, nothing else.

Public API (DESIGN.md), on RULES.md JSON positions:

- :func:`choose_move` — the turn a level plays;
- :func:`analyse` — the value of a position and its best turns, exact when proven.

Both are CPU work: call them off the event loop (a thread or process pool).

>>> position = {"trumps": ["S", "H"], "hands": [["AS", "7C"], ["KH", "9H"]],
...             "pile": ["KD"], "to_move": 0}
>>> choose_move(position, "perfect")
'AS-7C'
>>> analyse(position, seconds=1)["value"]
'win'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from game.engine import Position, position_from_json

from .players import LEVELS, choose, deepest
from .review import as_dict
from .search import Key

__all__ = ["LEVELS", "analyse", "choose_move"]


def _history(position: Position, earlier: list[Position]) -> Counter[Key]:
    counts: Counter[Key] = Counter(p.key for p in earlier)
    counts[position.key] += 1
    return counts


def choose_move(
    position: dict[str, Any],
    level: str,
    seconds: float | None = None,
    *,
    history: Iterable[dict[str, Any]] = (),
) -> str:
    """The turn ``level`` (one of :data:`LEVELS`) plays, in RULES.md notation.

    ``seconds`` overrides the level's thinking time; ``history`` lists the
    game's earlier positions in order, so that the computer sees repetitions coming
    (and reads the opponent's habit, see habits.py).
    """
    start = position_from_json(position)
    earlier = [position_from_json(p) for p in history]
    return str(choose(start, level, seconds, _history(start, earlier), past=earlier).move)


def analyse(
    position: dict[str, Any], seconds: float, *, history: Iterable[dict[str, Any]] = ()
) -> dict[str, Any]:
    """The value of ``position`` for the player to move, and its best turns.

    ``value`` is ``"win"``, ``"draw"`` or ``"loss"`` when ``exact`` (proven by
    the solver or by the search), else the search's score in (-1, 1).
    ``best`` lists turns that keep the value (exact) or score best (not exact).
    """
    start = position_from_json(position)
    earlier = [position_from_json(p) for p in history]
    return as_dict(deepest(start, _history(start, earlier), seconds))
