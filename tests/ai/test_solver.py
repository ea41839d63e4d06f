"""The exact solver agrees with an independent brute-force retrograde analysis."""

import random

import pytest

from game.ai.solver import solve
from game.engine import Game

from .brute import DRAW, WIN, keeps, random_position, values

POSITIONS = [random_position(random.Random(seed), 3 + seed % 5) for seed in range(150)]


@pytest.mark.parametrize("position", POSITIONS, ids=str)
def test_solver_value_and_turns_match_brute_force(position):
    expected = values(position)
    solution = solve(position)
    assert solution is not None
    assert solution.value == expected[position.key]
    assert solution.best
    for move in solution.best:
        assert keeps(solution.value, expected[position.play(move).key]), move


def test_the_solved_winner_wins_without_running_into_a_repetition():
    won = [p for p in POSITIONS if values(p)[p.key] == WIN and len(p.legal_moves()) > 1]
    assert len(won) > 10
    for position in won:
        game = Game(position)
        while game.outcome is None:
            solution = solve(game.position, game.position_counts)
            assert solution is not None
            game.play(solution.best[0])
        assert game.outcome.winner == position.to_move, position


def test_solver_gives_up_past_its_budget():
    position = random_position(random.Random(1), 14)
    assert solve(position, max_positions=1000) is None


def test_a_position_seen_twice_before_is_a_draw_when_reached_again():
    position = next(p for p in POSITIONS if values(p)[p.key] == WIN and p.pile)
    plain = solve(position)
    assert plain is not None
    # Every position after the root has been seen twice already: all of them draw.
    history = {key: 2 for key in values(position) if key != position.key}
    blocked = solve(position, history)
    assert blocked is not None
    assert blocked.value in (DRAW, WIN)
    for move in blocked.best:
        outcome = position.play(move).outcome
        if blocked.value == WIN:
            assert outcome is not None and outcome.winner == position.to_move
