"""Positions in and out of the RULES.md JSON format."""

import json

import pytest

from game.engine import NotationError, Rules, position_from_json, position_to_json

EXAMPLE = {
    "rules": {"deck": 36, "must_beat": False, "sixes_to_owner": False},
    "trumps": ["S", "H"],
    "hands": [["6S", "AH", "TD"], ["KC", "7S"]],
    "pile": ["9C", "JC", "8D"],
    "to_move": 0,
}


def test_the_rules_md_example_reads_and_writes_back():
    position = position_from_json(EXAMPLE)
    assert str(position.top_card) == "8D"
    written = position_to_json(position)
    assert written["hands"] == [["6S", "AH", "TD"], ["7S", "KC"]]  # sorted: suit, then rank
    assert {**written, "hands": None} == {**EXAMPLE, "hands": None}
    assert position_from_json(json.loads(json.dumps(written))) == position


def test_input_may_spell_cards_loosely_and_leave_out_the_rules():
    loose = {"trumps": ["♠", "h"], "hands": [["10s", "A♥"], ["kc"]], "pile": [], "to_move": 1}
    position = position_from_json(loose)
    assert position.rules == Rules()
    assert position_to_json(position)["hands"] == [["TS", "AH"], ["KC"]]
    assert position_to_json(position)["trumps"] == ["S", "H"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"trumps": ["S", "S"]}, "must differ"),
        ({"trumps": ["S"]}, "two suits"),
        ({"to_move": 2}, "to_move"),
        ({"to_move": True}, "to_move"),
        ({"hands": [["6S", "6S"], ["KC"]]}, "twice"),
        ({"hands": [["6S"], ["KC"]], "pile": ["6S"]}, "held twice"),
        ({"hands": [["6S", "XX"], ["KC"]]}, "not a card"),
        ({"hands": [[], []]}, "both hands are empty"),
        ({"rules": {"deck": 24}}, "not in the 24-card pack"),
        ({"rules": {"deck": 40}}, "deck must be"),
        ({"rules": {"deck": 36, "trumps": 1}}, "unknown rule"),
        ({"colour": "red"}, "unknown key"),
        ({"pile": "9C"}, "list of cards"),
    ],
)
def test_bad_positions_are_refused_with_a_reason(change, reason):
    with pytest.raises(NotationError, match=reason):
        position_from_json({**EXAMPLE, **change})


def test_missing_keys_are_named():
    data = dict(EXAMPLE)
    del data["to_move"]
    with pytest.raises(NotationError, match="to_move"):
        position_from_json(data)
    with pytest.raises(NotationError, match="JSON object"):
        position_from_json([1, 2])
