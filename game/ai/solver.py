"""The exact solver: retrograde analysis over every position reachable from the root.

The game graph has cycles (a take can bring back an earlier position) and
endless play is a draw, so the value is found as chess tablebases are built:
collect the reachable positions, then work backwards from the finished ones.
A position is won if some turn reaches a position lost for the opponent, lost
if every turn reaches one won for the opponent, and drawn otherwise.

Working backwards in order of distance gives the shortest win and the longest
loss, so a solved player makes progress and never lets a won game run into a
draw by repetition. The graph grows fast with the cards in play (the order of
the pile matters), so the solver gives up past its budget and returns ``None``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from game.engine import Move, Position

from .search import Key

WIN, DRAW, LOSS = 1, 0, -1
_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}


@dataclass
class Solution:
    """The proven value for the player to move, and the turns that keep it."""

    value: str
    #: Turns that keep the value: the quickest wins, the longest losses, or drawing turns.
    best: list[Move]
    #: Plies to the end with best play (for a win or a loss; 0 for a draw).
    distance: int
    positions: int


def solve(
    position: Position,
    history: Mapping[Key, int] | None = None,
    seconds: float | None = None,
    max_positions: int = 1_000_000,
) -> Solution | None:
    """Solve ``position`` exactly, or return ``None`` past ``seconds`` or ``max_positions``.

    ``history`` counts the positions already seen in the game: one seen twice
    before ends the game in a draw if reached again.
    """
    if position.outcome is not None:
        raise ValueError("the game is over: there is nothing to solve")
    deadline = time.perf_counter() + seconds if seconds is not None else float("inf")
    history = history or {}
    root = position
    index: dict[Key, int] = {root.key: 0}
    nodes = [root]
    children: list[list[int]] = []
    moves_at_root: list[Move] = []
    while len(children) < len(nodes):
        node = nodes[len(children)]
        kids: list[int] = []
        if node.outcome is None and (node is root or history.get(node.key, 0) < 2):
            for move in node.legal_moves():
                child = node.play_unchecked(move)
                key = child.key
                at = index.get(key)
                if at is None:
                    at = index[key] = len(nodes)
                    nodes.append(child)
                kids.append(at)
                if node is root:
                    moves_at_root.append(move)
        children.append(kids)
        if len(nodes) > max_positions:
            return None
        if not len(children) & 255 and time.perf_counter() > deadline:
            return None

    values, distances = _retrograde(nodes, children)
    value = values[0]
    kids = children[0]
    if value == WIN:
        shortest = min(distances[k] for k in kids if values[k] == LOSS)
        best = [
            m
            for m, k in zip(moves_at_root, kids, strict=True)
            if values[k] == LOSS and distances[k] == shortest
        ]
    elif value == LOSS:
        longest = max(distances[k] for k in kids)
        best = [m for m, k in zip(moves_at_root, kids, strict=True) if distances[k] == longest]
    else:
        best = [m for m, k in zip(moves_at_root, kids, strict=True) if values[k] != WIN]
    return Solution(_NAMES[value], best, distances[0], len(nodes))


def _retrograde(nodes: list[Position], children: list[list[int]]) -> tuple[list[int], list[int]]:
    """Values (for the player to move) and distances to the end of every node."""
    count = len(nodes)
    values = [DRAW] * count
    distances = [0] * count
    resolved = [False] * count
    parents: list[list[int]] = [[] for _ in range(count)]
    unresolved_children = [len(kids) for kids in children]
    queue: deque[int] = deque()
    for at, kids in enumerate(children):
        for kid in kids:
            parents[kid].append(at)
        outcome = nodes[at].outcome
        if outcome is not None:
            resolved[at] = True
            if outcome.winner is not None:
                values[at] = WIN if outcome.winner == nodes[at].to_move else LOSS
                queue.append(at)
        elif not kids:
            resolved[at] = True  # a third repetition: drawn, and no turn leads on
    while queue:
        at = queue.popleft()
        for parent in parents[at]:
            if resolved[parent]:
                continue
            if values[at] == LOSS:
                values[parent] = WIN
            else:
                unresolved_children[parent] -= 1
                if unresolved_children[parent]:
                    continue
                values[parent] = LOSS
            resolved[parent] = True
            distances[parent] = distances[at] + 1
            queue.append(parent)
    return values, distances
