"""Reading an opponent's habit, and searching the replies it foresees (issue 22)."""

import random

import pytest

from game.ai import choose_move
from game.ai.bots import bot_move
from game.ai.habits import MIN_CHOICES, habit_of
from game.ai.players import choose, deepest
from game.ai.search import AlphaBeta
from game.ai.solver import solve
from game.engine import Game, Rules, Suit, deal, position_from_json, position_to_json

# The best replies hold the draw here (the solver says so) and the levels lead QC; a player
# who spends trumps last and beats whenever they can loses to 8H (found by a search).
TRAP = {"trumps": ["S", "H"], "hands": [["8H", "QC", "7S", "7D", "6D"], ["JS", "8D"]], "pile": []}


def bot_game(bot: str, plies: int, seed: int = 3) -> Game:
    """A 24-card game: seat 0 plays at random, seat 1 by ``bot``'s rule."""
    game = Game(deal(seed, (Suit.S, Suit.H), Rules(deck=24)))
    rng = random.Random(seed)
    while game.outcome is None and game.ply < plies:
        position = game.position
        moves = position.legal_moves()
        game.play(bot_move(position, bot) if position.to_move else rng.choice(moves))
    return game


def choices_of(game: Game, seat: int) -> list[int]:
    """The plies at which ``seat`` had more than one legal turn."""
    return [
        ply
        for ply, position in enumerate(game.positions[:-1])
        if position.to_move == seat and len(position.legal_moves()) > 1
    ]


@pytest.mark.parametrize("bot", ["lowest-beat", "lowest", "trumps-last"])
def test_a_player_who_kept_to_a_rule_is_expected_to_keep_to_it(bot):
    game = bot_game(bot, 200)
    enough = choices_of(game, 1)[MIN_CHOICES - 1] + 1
    assert game.ply > enough + 4
    for ply in range(enough + 1, game.ply):
        position = game.positions[ply]
        if position.to_move == 1:
            habit = habit_of(game.positions[: ply + 1], 1)
            assert habit is not None
            assert habit(position) in (bot_move(position, bot), None)


def test_no_habit_is_read_before_enough_turns_with_a_choice():
    game = bot_game("trumps-last", 200)
    too_few = choices_of(game, 1)[MIN_CHOICES - 1]  # the last choice not yet played
    assert habit_of(game.positions[: too_few + 1], 1) is None
    assert habit_of(game.positions[: too_few + 2], 1) is not None


def test_one_turn_off_the_rule_drops_the_habit_for_good():
    kept = bot_game("trumps-last", 200)
    ply = choices_of(kept, 1)[MIN_CHOICES]
    position = kept.positions[ply]
    other = next(m for m in position.legal_moves() if m != bot_move(position, "trumps-last"))
    game = Game.replay(kept.start, [*kept.moves[:ply], other])
    rng = random.Random(1)
    while game.outcome is None and game.ply < ply + 60:
        position = game.position
        if position.to_move == 1:
            assert habit_of(game.positions, 1) is None
        moves = position.legal_moves()
        game.play(bot_move(position, "trumps-last") if position.to_move else rng.choice(moves))


def test_a_player_seen_to_think_is_not_mistaken_for_a_rule():
    # Seat 1 plays as medium does: a search, not one of the fixed rules.
    game = Game(deal(5, (Suit.S, Suit.H), Rules(deck=24)))
    rng = random.Random(5)
    while game.outcome is None and game.ply < 40:
        level = "medium" if game.position.to_move else "beginner"
        game.play(choose(game.position, level, history=game.position_counts, rng=rng).move)
    assert len(choices_of(game, 1)) > MIN_CHOICES
    assert habit_of(game.positions, 1) is None


def test_the_search_follows_the_foreseen_reply_to_the_win_the_best_reply_denies():
    trap = position_from_json({**TRAP, "to_move": 0})
    assert solve(trap, {}).value == "draw"
    result = AlphaBeta(expect=lambda p: bot_move(p, "trumps-last")).search(trap, 1.0)
    assert [str(m) for m in result.best] == ["8H"]
    # Scored against that player only: a win there is not the game's value.
    assert not result.exact and result.value == 1.0
    game = Game(trap)
    while game.outcome is None:
        position = game.position
        if position.to_move:
            game.play(bot_move(position, "trumps-last"))
        else:
            game.play(
                AlphaBeta(expect=lambda p: bot_move(p, "trumps-last")).search(position, 0.5).best[0]
            )
    assert game.outcome.winner == 0


def test_a_habit_is_searched_without_contempt_too():
    trap = position_from_json({**TRAP, "to_move": 0})
    found = deepest(trap, {}, 1.0, habit=lambda p: bot_move(p, "trumps-last"))
    assert [str(m) for m in found.best] == ["8H"]


def rule_keeping_past(bot: str) -> list[dict]:
    """Earlier positions in which seat 1 made enough choices by ``bot``'s rule.

    Only seat 1's turns (a position and the one after it) are read for a habit.
    """
    past = []
    for ply in choices_of(game := bot_game(bot, 200), 1)[:MIN_CHOICES]:
        past += [position_to_json(p) for p in game.positions[ply : ply + 2]]
    return past


@pytest.mark.parametrize("level", ["hard", "perfect"])
def test_the_strong_levels_read_the_habit_from_the_games_history(level):
    trap = {**TRAP, "to_move": 0}
    history = rule_keeping_past("trumps-last")
    assert choose_move(trap, level, 0.5, history=history) == "8H"
    assert choose_move(trap, level, 0.5) != "8H"
