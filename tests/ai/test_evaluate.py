"""The evaluation: what it prefers, all else equal (issue 22)."""

import pytest

from game.ai.evaluate import evaluate
from game.ai.search import AlphaBeta
from game.engine import TAKE, position_from_json


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


#: Ply 167 of game 9 of ``arena/hard-lowest-beat.jsonl`` as kept at commit 9c13348 (deal 4,
#: the bot in seat 0): ``hard``, holding 17 cards to the bot's 18, took this lead and the next
#: 13 in a row, and the game ended in a draw by repetition.
BOT_HAND = "9S JS QS KS AS TH JH QH KH AH TD JD QD AD JC QC KC AC"
HARD_HAND = "6S 8S TS 6H 7H 8H 9H 6D 7D 8D 9D KD 6C 7C 8C 9C TC"
TOOK_EVERY_LEAD = {
    "trumps": ["H", "D"],
    "hands": [BOT_HAND.split(), HARD_HAND.split()],
    "pile": ["7S"],
    "to_move": 1,
}


def test_the_search_beats_the_lead_it_used_to_take():
    # Not proven won (35 cards): the fitted weight's search took here from depth 3 on.
    result = AlphaBeta().search(position_from_json(TOOK_EVERY_LEAD), max_depth=3)
    assert TAKE not in result.best


#: Ply 137 of game 42 of ``arena/hard-trumps-last.jsonl`` (deal 21, hard in seat 0, trumps
#: diamonds against the bot's clubs): hard led the bot's own trump ace onto the empty pile,
#: the bot had to take it back, kept it for its last card and drew the game with it 58 plies
#: later. Hard had done the same at ply 129; games 2 and 73 were lost after the same lead.
HARD_KEEPS = "6S 6H 7H AD AC"
BOT_KEEPS = (
    "7S 8S 9S TS JS QS KS AS 8H 9H TH JH QH KH AH 6D 7D 8D 9D TD JD QD KD 6C 7C 8C 9C TC JC QC KC"
)
HANDED_BACK = {
    "trumps": ["D", "C"],
    "hands": [HARD_KEEPS.split(), BOT_KEEPS.split()],
    "pile": [],
    "to_move": 0,
}


@pytest.mark.xfail(
    strict=True,
    reason="issue 22, open: with the trump ace at +0.1 the two cards the lead gains in the count"
    " outweigh the bot's holding its ace again; +0.3 passes this but lost to medium, +0.2 for"
    " holding the opponent's ace and a weight growing by the smaller hand pass it but did not"
    " change the arena score, and one growing by the holder's hand (the bot's: 32 cards) does"
    " not pass it (README)",
)
@pytest.mark.parametrize("depth", [3, 4])
def test_the_search_keeps_the_opponents_trump_ace_out_of_their_hand(depth):
    result = AlphaBeta().search(position_from_json(HANDED_BACK), max_depth=depth)
    assert "AC" not in [str(move) for move in result.best]
