"""The engine agrees with an independent implementation on 500 positions (data/README.md)."""

import json
from pathlib import Path

import pytest

from game.engine import Move, legal_moves, position_from_json, position_to_json

ROWS = [json.loads(line) for line in (Path(__file__).parent / "data" / "conformance.jsonl").open()]


def test_the_data_is_all_there():
    assert len(ROWS) == 500


@pytest.mark.parametrize("row", ROWS, ids=lambda row: "-".join(row["tags"][:3]))
def test_legal_turns_results_and_outcomes_agree(row):
    assert sorted(legal_moves(row["pos"])) == row["legal"]
    position = position_from_json(row["pos"])
    for move, expected in row["after"].items():
        after = position.play(Move.parse(move))
        assert position_to_json(after) == expected, move
        outcome = after.outcome
        assert (outcome.to_json() if outcome else None) == row["outcome"][move], move
