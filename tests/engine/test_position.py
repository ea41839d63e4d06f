"""The position: legal turns, playing them, and how games end (RULES.md)."""

import pytest

from game.engine import Card, CardSet, IllegalMoveError, Move, Termination

from .helpers import make_position, moves_of

# -- RULES.md's worked examples (player 0: trumps S, player 1: trumps H; player 0 to move) --


def test_example_top_9c_beaten_by_a_higher_club_or_an_own_trump():
    position = make_position("JC 6S 7D", "KH", "9C")
    assert sorted(moves_of(position)) == sorted(["take", "JC-6S", "JC-7D", "6S-JC", "6S-7D"])


def test_example_top_9h_is_a_plain_heart_for_player_0():
    position = make_position("TH 8H 6S 7D", "KC", "9H")
    assert position.beaters() == CardSet.parse("TH 6S")


def test_example_top_9s_is_beaten_only_by_higher_spades_and_a_take_picks_up_five():
    position = make_position("TS JS QS KS AS 8S 6H AD", "KC", "6C 7C 8C 9C TC JC 9S")
    assert position.beaters() == CardSet.parse("TS JS QS KS AS")
    assert position.take_count() == 5
    after = position.play("take")
    assert after.pile == tuple(Card.parse(c) for c in ("6C", "7C"))


def test_example_ace_of_own_trump_on_top_beats_nothing_and_a_take_picks_up_the_pile():
    position = make_position("KS QS 9C", "KC", "6D 7D 8D 9D TD JD AS")
    assert not position.beaters()
    assert moves_of(position) == ["take"]
    assert position.take_count() == 7
    after = position.play("take")
    assert after.pile == ()
    assert len(after.hand(0)) == 10


def test_example_pile_take_of_three_leaves_player_1_facing_8d():
    position = make_position("6S", "KH", "6D 7D 8D 9D KC QC")
    after = position.play("take")
    assert after.hand(0) == CardSet.parse("6S QC KC 9D")
    assert [str(c) for c in after.pile] == ["6D", "7D", "8D"]
    assert after.to_move == 1
    assert str(after.top_card) == "8D"


def test_example_last_card_ace_beat_draws():
    position = make_position("AS", "KC 7H", "KD")
    assert moves_of(position) == ["take", "AS"]
    after = position.play("AS")
    assert after.outcome is not None
    assert after.outcome.termination is Termination.LAST_CARD
    assert after.outcome.result == "draw" and after.outcome.winner is None
    assert len(after.legal_moves()) == 0


def test_example_ace_then_second_card_empties_the_hand_and_wins():
    after = make_position("AS 7C", "KC 7H", "KD").play("AS-7C")
    assert after.outcome is not None
    assert (after.outcome.result, after.outcome.winner) == ("win", 0)
    assert after.outcome.termination is Termination.EMPTY_HAND


# -- takes ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pile", "taken"),
    [
        ("9C", 1),
        ("6D 9C", 2),
        ("6D 7D 9C", 3),
        ("6D 7D 8D 9C", 3),
        ("6D 7D 8D TD JD 9C", 3),
        ("9H", 1),  # the opponent's trump is no trump of player 0's: three
        ("6D 7D 8D 9D 9H", 3),
        ("9S", 1),
        ("6D 7D 8D 9S", 4),
        ("6D 7D 8D JD 9S", 5),
        ("6D 7D 8D 9D TD JD 9S", 5),
        ("AS", 1),
        ("6D 7D 8D 9D TD JD QD KD AS", 9),
    ],
)
def test_take_picks_up_three_five_or_the_whole_pile_from_the_top(pile, taken):
    position = make_position("6H", "KH", pile)
    assert position.take_count() == taken
    after = position.play("take")
    cards = pile.split()
    assert [str(c) for c in after.pile] == cards[: len(cards) - taken]
    assert after.hand(0) == CardSet.parse(" ".join(["6H", *cards[len(cards) - taken :]]))
    assert after.to_move == 1


def test_after_a_take_that_empties_the_pile_the_opponent_leads():
    after = make_position("6H", "KH 7C", "9C 8D").play("take")
    assert after.pile == () and after.to_move == 1
    assert sorted(moves_of(after)) == ["7C", "KH"]


# -- leads and beats ------------------------------------------------------------


def test_on_an_empty_pile_every_card_may_lead_and_nothing_else():
    position = make_position("6S AH TD", "KC")
    assert moves_of(position) == ["6S", "AH", "TD"]
    after = position.play("AH")
    assert [str(c) for c in after.pile] == ["AH"] and after.to_move == 1


def test_beat_puts_the_beating_card_then_the_second_card_on_top():
    after = make_position("JC 6S 7D", "KH", "9C").play("JC-7D")
    assert [str(c) for c in after.pile] == ["9C", "JC", "7D"]
    assert after.hand(0) == CardSet.parse("6S")
    assert after.to_move == 1
    assert after.outcome is None


def test_a_lead_with_the_last_card_wins():
    after = make_position("7C", "KH 8H").play("7C")
    assert after.outcome is not None and after.outcome.winner == 0


def test_no_turns_once_a_hand_is_empty():
    assert moves_of(make_position("", "KH", "9C", to_move=1)) == []
    assert make_position("", "KH", "9C", to_move=1).outcome.winner == 0


def test_a_single_card_that_cannot_beat_may_only_take():
    assert moves_of(make_position("7D", "KH", "9C")) == ["take"]


# -- must_beat ----------------------------------------------------------------


def test_must_beat_forbids_taking_while_a_card_beats():
    position = make_position("JC 6S 7D", "KH", "9C", must_beat=True)
    assert "take" not in moves_of(position)
    with pytest.raises(IllegalMoveError, match="must_beat"):
        position.play("take")


def test_must_beat_allows_taking_when_nothing_beats():
    assert moves_of(make_position("7D 8D", "KH", "9C", must_beat=True)) == ["take"]


def test_must_beat_forces_the_last_card_draw():
    assert moves_of(make_position("AS", "KH", "KD", must_beat=True)) == ["AS"]


# -- illegal turns say why ------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "pile", "move", "reason"),
    [
        ("JC 6S", "9C", "AH-6S", "AH is not in player 0's hand"),
        ("JC 6S", "9C", "JC-AH", "AH is not in player 0's hand"),
        ("JC 7D", "9C", "7D-JC", "7D does not beat 9C"),
        ("KS 7D", "AS", "KS-7D", "nothing beats it"),
        ("JC 6S", "9C", "JC", "a beat needs a second card"),
        ("JC 6S", "", "take", "the pile is empty"),
        ("JC 6S", "", "JC-6S", "lead a single card"),
    ],
)
def test_illegal_turns_are_refused_with_a_reason(hand, pile, move, reason):
    position = make_position(hand, "KH", pile)
    with pytest.raises(IllegalMoveError, match=reason):
        position.play(move)
    assert not position.is_legal(Move.parse(move))


def test_no_turn_after_the_game_is_over():
    with pytest.raises(IllegalMoveError, match="game is over"):
        make_position("", "KH", "9C", to_move=1).play("take")


# -- values ------------------------------------------------------------------------


def test_positions_are_immutable_hashable_values():
    a = make_position("JC 6S 7D", "KH", "9C")
    b = make_position("7D JC 6S", "KH", "9C")
    assert a == b and hash(a) == hash(b)
    after = a.play("take")
    assert a == b  # playing did not change the original
    with pytest.raises(AttributeError):
        a.to_move = 1  # type: ignore[misc]
    assert after != a


def test_legal_moves_index_like_the_list_they_iterate():
    moves = make_position("JC 6S 7D 8H AH", "KH", "9C").legal_moves()
    listed = list(moves)
    assert [moves[i] for i in range(len(moves))] == listed
    assert moves[-1] == listed[-1] and moves[1:3] == listed[1:3]
    assert Move.parse("JC-AH") in moves and Move.parse("AH-JC") not in moves
    with pytest.raises(IndexError):
        moves[len(moves)]
