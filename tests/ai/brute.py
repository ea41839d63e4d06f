"""An independent, deliberately plain retrograde analysis, to check the AI against.

Value iteration to a fixed point over every reachable position: no queues, no
distances, no shared code with game.ai beyond the engine's rules.
"""

import functools

from game.ai.bench import random_position
from game.engine import Position

__all__ = ["DRAW", "LOSS", "WIN", "keeps", "random_position", "values"]

WIN, DRAW, LOSS = "win", "draw", "loss"


def reachable(root: Position) -> dict[object, tuple[Position, list[object]]]:
    graph: dict[object, tuple[Position, list[object]]] = {}
    stack = [root]
    while stack:
        position = stack.pop()
        if position.key in graph:
            continue
        kids = [position.play(m) for m in position.legal_moves()]
        graph[position.key] = (position, [k.key for k in kids])
        stack.extend(k for k in kids if k.key not in graph)
    return graph


@functools.cache
def values(root: Position) -> dict[object, str]:
    """Every reachable position's value for its player to move."""
    graph = reachable(root)
    value: dict[object, str | None] = {}
    for key, (position, _) in graph.items():
        outcome = position.outcome
        if outcome is None:
            value[key] = None
        elif outcome.winner is None:
            value[key] = DRAW
        else:
            value[key] = WIN if outcome.winner == position.to_move else LOSS
    changed = True
    while changed:
        changed = False
        for key, (position, kids) in graph.items():
            if value[key] is not None or position.outcome is not None:
                continue
            if any(value[k] == LOSS for k in kids):
                value[key] = WIN
                changed = True
            elif all(value[k] == WIN for k in kids):
                value[key] = LOSS
                changed = True
    return {k: v or DRAW for k, v in value.items()}


def keeps(value: str, child: str) -> bool:
    """Whether a turn to a position of value ``child`` (for the opponent) keeps ``value``."""
    return {WIN: child == LOSS, DRAW: child != WIN, LOSS: True}[value]
