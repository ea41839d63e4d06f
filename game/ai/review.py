"""Reviewing a played game: what each position was worth and what each turn did to it.

A review is made one position at a time (:func:`review_position`, so a caller
can show progress), then each turn that kept a proven result is checked for
being the only one that did (:func:`only_turn`). :func:`annotate` reads the
stored reviews back into notes: a *blunder* threw away a proven win or draw,
an *only move* was the single turn that kept it. Only proven values make
marks; an estimate never calls a turn a blunder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from game.engine import Game, Outcome, Position, position_from_json

from .players import Analysis, deepest

#: The order of proven results, for one player.
_RANK = {"loss": 0, "draw": 1, "win": 2}
_FLIP = {"win": "loss", "draw": "draw", "loss": "win"}

Value = str | float


def as_dict(found: Analysis) -> dict[str, Any]:
    """An analysis in the JSON shape of :func:`game.ai.analyse`."""
    return {
        "value": found.value,
        "best": [str(m) for m in found.best],
        "exact": found.exact,
        "depth": found.depth,
        "method": found.method,
    }


def _game(start: dict[str, Any], turns: Sequence[str]) -> Game:
    return Game.replay(position_from_json(start), turns)


def review_position(start: dict[str, Any], turns: Sequence[str], seconds: float) -> dict[str, Any]:
    """The analysis of the position after ``turns`` from ``start``, the game's repetitions seen."""
    game = _game(start, turns)
    return as_dict(deepest(game.position, game.position_counts, seconds))


def seen_by(player: int, mover: int, value: Value) -> Value:
    """A value for the player to move (``mover``) as ``player`` sees it."""
    if player == mover:
        return value
    return _FLIP[value] if isinstance(value, str) else -value


def _outcome_value(outcome: Outcome, player: int) -> str:
    if outcome.winner is None:
        return "draw"
    return "win" if outcome.winner == player else "loss"


def only_turn(start: dict[str, Any], turns: Sequence[str], ply: int, seconds: float) -> bool | None:
    """Whether ``turns[ply]`` was the only turn keeping its player's proven result.

    ``None`` when some other turn could not be proven either way in ``seconds``.
    The turn itself is assumed to have kept the result (see :func:`annotate`).
    """
    before = _game(start, turns[:ply])
    player = before.position.to_move
    kept = _proven_after(before, turns[ply], player, seconds)
    if kept is None:
        return None
    undecided = False
    for move in before.legal_moves():
        if str(move) == turns[ply]:
            continue
        value = _proven_after(before, str(move), player, seconds)
        if value is None:
            undecided = True
        elif _RANK[value] >= _RANK[kept]:
            return False
    return None if undecided else True


def _proven_after(before: Game, turn: str, player: int, seconds: float) -> str | None:
    """The proven result for ``player`` after ``turn``, or ``None`` if unproven in ``seconds``."""
    game = Game.replay(before.start, [*before.moves, turn])
    if game.outcome is not None:
        return _outcome_value(game.outcome, player)
    found = deepest(game.position, game.position_counts, seconds)
    if not found.exact:
        return None
    value = seen_by(player, game.position.to_move, found.value)
    assert isinstance(value, str)
    return value


@dataclass(frozen=True)
class Note:
    """What one turn did, in its player's eyes."""

    ply: int
    player: int
    turn: str
    #: The value before and after the turn for its player (``None``: not analysed yet).
    before: Value | None
    after: Value | None
    exact_before: bool
    exact_after: bool
    blunder: bool
    only: bool


def annotate(
    game: Game,
    reviews: Sequence[dict[str, Any] | None],
    only: Sequence[bool | None] = (),
) -> list[Note]:
    """One note per turn of ``game`` from the reviews of its positions (index = ply).

    ``only[ply]`` is :func:`only_turn`'s finding for that turn, where made.
    """
    positions = game.positions
    outcome = game.outcome
    notes = []
    for ply, turn in enumerate(game.moves):
        player = positions[ply].to_move
        before, exact_before = _value(reviews, ply, positions, player)
        if ply + 1 == len(positions) - 1 and outcome is not None:
            after: Value | None = _outcome_value(outcome, player)
            exact_after = True
        else:
            after, exact_after = _value(reviews, ply + 1, positions, player)
        proven = exact_before and exact_after and isinstance(before, str)
        blunder = proven and _RANK[str(after)] < _RANK[str(before)]
        found_only = ply < len(only) and only[ply] is True
        notes.append(
            Note(
                ply,
                player,
                str(turn),
                before,
                after,
                exact_before,
                exact_after,
                blunder,
                found_only and proven and not blunder and before != "loss",
            )
        )
    return notes


def _value(
    reviews: Sequence[dict[str, Any] | None], ply: int, positions: Sequence[Position], player: int
) -> tuple[Value | None, bool]:
    review = reviews[ply] if ply < len(reviews) else None
    if review is None:
        return None, False
    return seen_by(player, positions[ply].to_move, review["value"]), bool(review["exact"])


def decided_at(
    game: Game, reviews: Sequence[dict[str, Any] | None], winner: int | None
) -> int | None:
    """The first ply from which the game's result stood proven to its end, if it did.

    ``winner`` is the stored result's (``None`` for a draw): a resignation ends
    a game the proof may not have reached. A position reviewed as proven with
    that result, and every later one, counts.
    """
    positions = game.positions
    seat = 0 if winner is None else winner
    wanted = "draw" if winner is None else "win"
    last = len(positions) - 1
    decided = None
    for ply in range(last, -1, -1):
        if ply == last and game.outcome is not None:
            value: Value | None = _outcome_value(game.outcome, seat)
        else:
            found, exact = _value(reviews, ply, positions, seat)
            value = found if exact else None
        if value != wanted:
            break
        decided = ply
    return decided
