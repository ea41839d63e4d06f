"""The evaluation: what it prefers, all else equal (issue 22)."""

import pytest

from game.ai.evaluate import evaluate
from game.engine import position_from_json


def _position(mine, theirs, pile=(), trumps=("D", "H")):
    return position_from_json(
        {
            "trumps": list(trumps),
            "hands": [list(mine), list(theirs)],
            "pile": list(pile),
            "to_move": 0,
        }
    )


@pytest.mark.parametrize("pile", [(), ("9S",)], ids=["to lead", "to beat"])
def test_ones_own_trump_ace_is_worth_more_than_a_lower_trump_in_its_place(pile):
    # The fitted weight once made it worth less: the search then took lead after lead
    # rather than beat, and lost to a bot that always beats (issue 22).
    others = ["7S", "JS", "8C", "QC"]
    theirs = ["6S", "TS", "7H", "9H", "6C", "KC"]
    with_ace = evaluate(_position([*others, "AD", "7D"], theirs, pile))
    with_a_ten = evaluate(_position([*others, "TD", "7D"], theirs, pile))
    assert with_ace > with_a_ten


def test_the_opponents_holding_their_trump_ace_is_no_gain():
    mine = ["7S", "JS", "8C", "QC", "9D", "7D"]
    others = ["6S", "TS", "6C", "KC", "7H"]
    theirs_with_ace = evaluate(_position(mine, [*others, "AH"]))
    theirs_with_a_ten = evaluate(_position(mine, [*others, "TH"]))
    assert theirs_with_ace < theirs_with_a_ten
