"""The arena's deterministic bots: each turn checked by hand on concrete positions."""

import random

import pytest

from game.ai.bots import BOTS, bot_move
from game.ai.players import choose
from game.engine import (
    Game,
    Position,
    Rules,
    Suit,
    deal,
    legal_moves,
    position_from_json,
    position_to_json,
)


def at(hand0, hand1, pile=(), to_move=0, trumps=("S", "H")) -> Position:
    return position_from_json(
        {"trumps": list(trumps), "hands": [hand0, hand1], "pile": list(pile), "to_move": to_move}
    )


def test_lowest_beat_beats_with_its_lowest_beating_card_and_lays_its_lowest():
    # 6S is a trump, but by rank it is the lowest card that beats 9C.
    position = at(["KC", "6S", "7D", "AD", "8H"], ["KH"], ["9C"])
    assert str(bot_move(position, "lowest-beat")) == "6S-7D"


def test_trumps_last_beats_with_the_suit_and_lays_a_plain_card_before_a_trump():
    position = at(["KC", "6S", "7S", "AD", "8S"], ["KH"], ["9C"])
    assert str(bot_move(position, "trumps-last")) == "KC-AD"


def test_lowest_takes_cards_in_the_engines_order_suit_then_rank():
    # Spades first, then hearts: 6S beats, and 8H is the next card in that order, not 7D.
    position = at(["KC", "6S", "7D", "8H"], ["KH"], ["9C"])
    assert str(bot_move(position, "lowest")) == "6S-8H"
    assert str(bot_move(position, "lowest-beat")) == "6S-7D"


@pytest.mark.parametrize("name", BOTS)
def test_every_bot_takes_only_when_nothing_beats(name):
    assert str(bot_move(at(["7C", "AD"], ["KH"], ["9C"], trumps=("H", "S")), name)) == "take"
    assert str(bot_move(at(["TC", "AD"], ["KH"], ["9C"], trumps=("H", "S")), name)) == "TC-AD"


def test_the_bots_lead_their_lowest_card():
    position = at(["KC", "6S", "7D", "AD"], ["KH"])
    assert str(bot_move(position, "lowest-beat")) == "6S"
    assert str(bot_move(position, "lowest")) == "6S"
    assert str(bot_move(position, "trumps-last")) == "7D"


@pytest.mark.parametrize("name", BOTS)
def test_a_bot_with_one_card_that_beats_plays_it(name):
    # The last card beating alone draws the game; the bots beat whenever they can.
    assert str(bot_move(at(["AD"], ["KH", "6C"], ["9D"]), name)) == "AD"


@pytest.mark.parametrize("name", BOTS)
def test_a_bot_is_a_pure_function_of_the_position_and_plays_legal_turns(name):
    game = Game(deal(3, (Suit.S, Suit.H), Rules(deck=24)))
    while game.outcome is None and game.ply < 200:
        position = game.position
        move = choose(position, name, rng=random.Random(game.ply))
        assert move.move == choose(position, name, rng=random.Random(-1)).move
        assert str(move.move) in legal_moves(position_to_json(position))
        game.play(move.move)


def test_the_docstring_example_runs_as_written():
    import doctest

    import game.ai.bots

    assert doctest.testmod(game.ai.bots).failed == 0
