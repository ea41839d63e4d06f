"""Reads that several views, consumers and services share."""

from __future__ import annotations

from game import engine
from game.models import Game


def start_position(game: Game) -> engine.Position:
    """The deal of ``game``: its seed, trumps and rules, and the stored starting seat."""
    first = game.first_player
    return engine.deal(game.seed, game.trumps, game.rules, first=first)


def replay(game: Game) -> engine.Game:
    """The engine's game: the deal replayed through the stored move log, in ply order."""
    notations = game.moves.order_by("ply").values_list("notation", flat=True)
    return engine.Game.replay(start_position(game), notations)
