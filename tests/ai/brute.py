"""An independent, deliberately plain retrograde analysis, to check the AI against.

Value iteration to a fixed point over every reachable position: no queues, no
distances, no shared code with game.ai beyond the engine's rules.
"""

import functools
import random

from game.engine import Position, Rules, Suit
from game.engine.cards import cards_of

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


def random_position(rng: random.Random, cards: int) -> Position:
    """A small position: ``cards`` cards of a random pack between two hands and a pile."""
    rules = Rules(deck=rng.choice([36, 32, 24]), must_beat=rng.random() < 0.4)
    trumps = rng.sample(list(Suit), 2)
    chosen = rng.sample(cards_of(rules.pack), cards)
    pile_size = rng.randrange(0, cards - 1)
    rest = chosen[pile_size:]
    split = rng.randrange(1, len(rest))
    return Position(
        trumps=(trumps[0], trumps[1]),
        hands=(sum(1 << c for c in rest[:split]), sum(1 << c for c in rest[split:])),
        pile=tuple(chosen[:pile_size]),
        to_move=rng.randrange(2),
        rules=rules,
    ).check()
