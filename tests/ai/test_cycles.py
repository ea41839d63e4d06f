"""Repetition cycles from arena games: where they start, and how the playing search sees them."""

import json
from pathlib import Path

import pytest

from game.ai import players
from game.ai.arena import GameRecord, arena_game, play_game
from game.ai.cycles import (
    LAST_TURNS,
    CyclePosition,
    before_last_card,
    cycle,
    rules_of,
    value_of,
    verdict,
)
from game.ai.players import CONTEMPT, playing_search
from game.engine import Game, Rules, legal_moves, position_from_json

DATA = json.loads((Path(__file__).parent / "data" / "cycle-game.json").read_text())
RULES = rules_of(DATA["match"])
RECORD = GameRecord(**DATA["game"])


def replayed() -> Game:
    return Game.replay(arena_game(RECORD.index, RULES).start, RECORD.moves)


def test_the_recorded_game_ends_in_a_draw_by_repetition():
    game = replayed()
    assert game.outcome.winner is None and game.outcome.termination.value == "repetition"
    assert game.ply == RECORD.plies


def test_a_cycle_starts_at_the_first_arising_of_the_repeated_position_with_a_to_move():
    game = replayed()
    found = list(cycle(RECORD, RULES))
    first = next(i for i, p in enumerate(game.positions) if p.key == game.position.key)
    assert found[0][0] >= first
    assert all(position.to_move == RECORD.a_seat for _, position, _ in found)
    assert len({position.key for _, position, _ in found}) == len(found)
    assert all(RECORD.moves[ply] == played for ply, _, played in found)


def test_a_verdict_needs_a_proven_win_to_call_a_draw_chosen():
    def at(value):
        return CyclePosition(0, 0, {}, "take", value, [])

    assert verdict([at("draw"), at("win")]) == "chosen"
    assert verdict([at("draw"), at("loss")]) == "forced"
    assert verdict([at("draw"), at(None)]) == "unproven"


def returns_in_the_game():
    """Plies where A's turn brought back a position the game had already seen."""
    game = replayed()
    seen = set()
    for ply, position in enumerate(game.positions[:-1]):
        seen.add(position.key)
        after = game.positions[ply + 1]
        if position.to_move == RECORD.a_seat and after.key in seen:
            yield ply, game


@pytest.mark.parametrize("returns_draw", [True, False])
def test_the_playing_search_scores_a_return_to_a_seen_position_as_a_draw(returns_draw, monkeypatch):
    monkeypatch.setattr(players, "RETURNS_DRAW", returns_draw)
    ply, game = next(returns_in_the_game())
    history = Game.replay(game.start, game.moves[:ply])
    position = history.position
    move = game.moves[ply]
    if len(position.legal_moves()) == 1:
        pytest.skip("a forced turn")
    scores = playing_search(history.position_counts).search(position, None, 2).scores
    # Counting returns as draws, the turn back scores the draw (minus contempt) at once;
    # waiting for a third arising, the same turn scores what the evaluation says.
    assert (scores[move] == -CONTEMPT) is returns_draw


@pytest.mark.parametrize("returns_draw", [True, False])
def test_on_a_recorded_cycle_the_search_returns_only_when_nothing_scores_above_a_draw(
    returns_draw, monkeypatch
):
    monkeypatch.setattr(players, "RETURNS_DRAW", returns_draw)
    # Every position of the cycle with A to move, the game's history kept: the turn the
    # search picks brings back a position the game has seen only if no turn scored better than
    # the draw (minus contempt) that the return counts as.
    game = replayed()
    returned_above_a_draw = []
    for ply, _, _ in cycle(RECORD, RULES):
        before = Game.replay(game.start, game.moves[:ply])
        position = before.position
        result = playing_search(before.position_counts).search(position, None, 2)
        best = result.best[0]
        if position.play(best).key in before.position_counts and result.score > -CONTEMPT:
            returned_above_a_draw.append(ply)
    # Waiting for the third arising, the search walked back into the cycle from 3 of them.
    assert (returned_above_a_draw == []) is returns_draw


def test_a_draw_by_the_last_card_is_judged_on_as_last_turns_before_it():
    # Two bots on 24 cards: game 0 of lowest-beat against lowest ends with a last-card beat.
    rules = Rules(deck=24)
    drawn = play_game("lowest-beat", "lowest", 0, None, rules)
    assert drawn.ending == "last_card"
    turns = list(before_last_card(drawn, rules))
    assert 0 < len(turns) <= LAST_TURNS
    assert all(position.to_move == drawn.a_seat for _, position, _ in turns)
    assert [ply for ply, _, _ in turns] == sorted(ply for ply, _, _ in turns)
    assert turns[-1][0] >= drawn.plies - 2


DRAWS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "draws.jsonl").read_text().splitlines()
]


def test_the_draws_data_holds_each_examined_position_with_its_verdict():
    # 37 draws against the bots (repetitions and last-card beats), 2 positions each: 30 from
    # the ladder's first games, 7 from hard's 200 games against lowest with the holder's growing
    # ace. None of the positions is a proven win for the computer's side: no win was walked past.
    assert len(DRAWS) == 74
    assert {row["value"] for row in DRAWS} == {None, "loss"}
    for row in DRAWS:
        assert row["played"] in legal_moves(row["position"])


@pytest.mark.parametrize(
    "row", [row for row in DRAWS if row["value"]], ids=lambda row: f"{row['source']}:{row['ply']}"
)
def test_the_positions_proven_lost_are_proven_lost_again(row):
    value, _ = value_of(position_from_json(row["position"]), seconds=5)
    assert value == "loss"
