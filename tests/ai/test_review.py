"""Reviewing a game: blunders and only moves are marked from proven values only."""

from game.ai.review import annotate, decided_at, only_turn, review_position, seen_by
from game.engine import Game, position_from_json

# Player 0 wins at once with AS-7C (beating with the last-but-one card, then the last);
# taking instead lets player 1 hold a draw.
START = {"trumps": ["S", "H"], "hands": [["AS", "7C"], ["KH", "9H"]], "pile": ["KD"], "to_move": 0}


def reviews(turns, seconds=1.0):
    game = Game.replay(position_from_json(START), turns)
    reviewed = len(turns) + (game.outcome is None)
    return game, [review_position(START, turns[:ply], seconds) for ply in range(reviewed)]


def test_a_turn_that_throws_away_a_proven_win_is_a_blunder():
    game, found = reviews(["take"])
    assert found[0]["value"] == "win" and found[0]["exact"]
    assert found[1]["value"] == "draw" and found[1]["exact"]
    (note,) = annotate(game, found)
    assert note.blunder and not note.only
    assert (note.before, note.after) == ("win", "draw")


def test_the_single_winning_turn_is_an_only_move():
    game, found = reviews(["AS-7C"])
    assert only_turn(START, ["AS-7C"], 0, 1.0) is True
    (note,) = annotate(game, found, [True])
    assert note.only and not note.blunder
    assert note.after == "win"  # read off the game's end
    assert decided_at(game, found, winner=0) == 0


def test_a_blunder_is_not_an_only_move_and_estimates_mark_nothing():
    game, found = reviews(["take"])
    estimated = [{**r, "exact": False, "value": 0.4} for r in found]
    (note,) = annotate(game, estimated, [True])
    assert not note.blunder and not note.only


def test_the_game_is_decided_where_the_result_stays_proven():
    game, found = reviews(["take"])
    # Drawn from the take on: not decided for a win by player 0, decided at once for a draw.
    assert decided_at(game, found, winner=0) is None
    assert decided_at(game, found, winner=None) == 1


def test_values_are_seen_from_either_side():
    assert seen_by(0, 1, "win") == "loss"
    assert seen_by(1, 1, "win") == "win"
    assert seen_by(0, 1, 0.25) == -0.25
    assert seen_by(0, 1, "draw") == "draw"
