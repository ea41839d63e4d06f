import pytest

from game.engine import CardSet, NotationError, Rules


@pytest.mark.parametrize(("deck", "lowest"), [(36, "6"), (32, "7"), (24, "9")])
def test_pack_holds_the_ranks_of_its_size(deck, lowest):
    pack = CardSet(Rules(deck=deck).pack)
    assert len(pack) == deck
    assert min(c.rank for c in pack).letter == lowest
    assert {c.suit for c in pack} == {0, 1, 2, 3}


def test_defaults_are_the_traditional_game():
    assert Rules() == Rules(deck=36, must_beat=False, sixes_to_owner=False)


@pytest.mark.parametrize("bad", [{"deck": 52}, {"deck": "36"}, {"must_beat": "yes"}, {"decks": 36}])
def test_bad_rules_are_refused_with_a_reason(bad):
    with pytest.raises(NotationError):
        Rules.from_json(bad)


def test_rules_round_trip_through_json():
    rules = Rules(deck=24, must_beat=True, sixes_to_owner=True)
    assert Rules.from_json(rules.to_json()) == rules
