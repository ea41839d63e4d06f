"""The AI's public API on RULES.md JSON positions."""

import random

import pytest

from game import ai, engine
from game.engine import position_to_json

from .brute import keeps, random_position, values

START = position_to_json(engine.deal(11, (engine.Suit.S, engine.Suit.H)))


@pytest.mark.parametrize("level", ai.LEVELS)
def test_every_level_answers_a_legal_turn(level):
    move = ai.choose_move(START, level, seconds=0.2)
    assert move in engine.legal_moves(START)


def test_unknown_level_and_finished_game_are_refused():
    with pytest.raises(ValueError, match="unknown level"):
        ai.choose_move(START, "grandmaster")
    over = {"trumps": ["S", "H"], "hands": [[], ["KH"]], "pile": ["9C"], "to_move": 1}
    with pytest.raises(ValueError, match="over"):
        ai.choose_move(over, "hard")


@pytest.mark.parametrize("seed", range(60))
def test_perfect_keeps_the_proven_value(seed):
    position = random_position(random.Random(5000 + seed), 4 + seed % 4)
    expected = values(position)
    report = ai.analyse(position_to_json(position), seconds=1.0)
    assert report["exact"]
    assert report["value"] == expected[position.key]
    for move in report["best"]:
        assert keeps(report["value"], expected[position.play(move).key]), move
    move = ai.choose_move(position_to_json(position), "perfect", seconds=1.0)
    assert keeps(report["value"], expected[position.play(move).key]), move


def test_analyse_of_an_opening_is_a_scored_estimate():
    report = ai.analyse(START, seconds=0.4)
    assert set(report) >= {"value", "best", "exact"}
    assert report["best"] and all(m in engine.legal_moves(START) for m in report["best"])
    assert not report["exact"] and -1 < report["value"] < 1


def test_a_whole_game_between_levels_ends():
    game = engine.Game(engine.deal(4, (engine.Suit.D, engine.Suit.C)))
    players = ("beginner", "easy")
    while game.outcome is None:
        level = players[game.position.to_move]
        move = ai.choose_move(position_to_json(game.position), level)
        game.play(move)
    assert game.outcome.result in ("win", "draw")


def test_the_proving_benchmark_runs_and_reports_each_method(capsys):
    from game.ai import bench

    bench.main(["--seconds", "0.2", "--positions", "3", "--sizes", "5,12"])
    out = capsys.readouterr().out
    assert "(by the solver / a proof / the search)" in out
    assert "largest size whose median position is proven" in out
