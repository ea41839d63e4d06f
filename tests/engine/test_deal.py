"""The seeded deal."""

import pytest

from game.engine import Card, CardSet, NotationError, Rank, Rules, Suit, deal

TRUMPS = (Suit.S, Suit.H)


def test_same_seed_same_deal_different_seed_different_deal():
    assert deal(42, TRUMPS) == deal(42, TRUMPS)
    assert deal(42, TRUMPS).hands != deal(43, TRUMPS).hands


def test_the_deal_is_the_same_on_every_machine():
    # Fixed by the SHA-256 stream: a change here would change every stored game.
    position = deal(2026, TRUMPS)
    assert str(position.hand(0)) == "TS KS 6H 7H 8H QH KH 6D 7D 8D 9D TD KD AD 8C 9C JC QC"
    assert str(position.hand(1)) == "6S 7S 8S 9S JS QS AS 9H TH JH AH JD QD 6C 7C TC KC AC"
    assert position.to_move == 0


@pytest.mark.parametrize("deck", [36, 32, 24])
def test_the_pack_is_dealt_out_completely_half_each(deck):
    position = deal(5, TRUMPS, Rules(deck=deck))
    assert len(position.hand(0)) == len(position.hand(1)) == deck // 2
    assert (position.hand(0) | position.hand(1)).mask == Rules(deck=deck).pack
    assert position.pile == ()


def test_either_player_may_start_and_first_overrides_the_draw():
    starters = {deal(seed, TRUMPS).to_move for seed in range(40)}
    assert starters == {0, 1}
    assert deal(3, TRUMPS, first=1).to_move == 1
    assert deal(3, TRUMPS, first=0).hands == deal(3, TRUMPS, first=1).hands


def test_sixes_to_owner_gives_each_player_the_six_of_their_trump():
    for seed in range(30):
        position = deal(seed, TRUMPS, Rules(sixes_to_owner=True))
        plain = deal(seed, TRUMPS)
        assert Card.of(Rank.SIX, Suit.S) in position.hand(0)
        assert Card.of(Rank.SIX, Suit.H) in position.hand(1)
        # Only those two sixes ever change hands.
        moved = (position.hand(0) - plain.hand(0)) | (plain.hand(0) - position.hand(0))
        assert moved - CardSet.parse("6S 6H") == CardSet()


def test_sixes_to_owner_changes_nothing_in_a_smaller_pack():
    rules = Rules(deck=32, sixes_to_owner=True)
    assert deal(9, TRUMPS, rules).hands == deal(9, TRUMPS, Rules(deck=32)).hands


def test_trumps_must_differ():
    with pytest.raises(NotationError, match="must differ"):
        deal(1, (Suit.S, Suit.S))
