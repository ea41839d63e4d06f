import pytest

from game.engine import CARDS, Card, CardSet, NotationError, Rank, Suit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TS", "TS"),
        ("10S", "TS"),
        ("10s", "TS"),
        ("ts", "TS"),
        ("ah", "AH"),
        ("7♥", "7H"),
        ("Q♠", "QS"),
        ("♦K", "KD"),
        ("6♣", "6C"),
        (" 9d ", "9D"),
    ],
)
def test_card_parse_accepts_every_spelling_and_prints_two_letters(text, expected):
    assert str(Card.parse(text)) == expected


@pytest.mark.parametrize("text", ["", "S", "1S", "5H", "TX", "TSS", "10", "take", "QS-9D"])
def test_card_parse_rejects_what_is_not_a_card(text):
    with pytest.raises(NotationError, match="is not a card"):
        Card.parse(text)


def test_every_card_round_trips_through_its_name():
    assert [Card.parse(str(c)) for c in CARDS] == list(CARDS)
    assert len({str(c) for c in CARDS}) == 36


def test_card_knows_its_suit_and_rank_and_repr_is_pasteable():
    card = Card.parse("TS")
    assert (card.suit, card.rank) == (Suit.S, Rank.TEN)
    assert Card.of(Rank.ACE, Suit.H) == Card.parse("AH")
    assert eval(repr(card)) == card


def test_card_index_out_of_range_is_refused():
    with pytest.raises(NotationError):
        Card(36)


def test_suit_parse_accepts_letters_and_symbols():
    assert [Suit.parse(t) for t in ("s", "♥", "D", "♣")] == [Suit.S, Suit.H, Suit.D, Suit.C]
    with pytest.raises(NotationError, match="is not a suit"):
        Suit.parse("X")


def test_cardset_behaves_as_a_set():
    hand = CardSet.parse("JC 6S 7D")
    assert len(hand) == 3
    assert Card.parse("6S") in hand and Card.parse("6H") not in hand
    assert [str(c) for c in hand] == ["6S", "7D", "JC"]
    assert hand | CardSet.parse("AH") == CardSet.parse("6S AH 7D JC")
    assert hand & CardSet.parse("7D 8D") == CardSet.parse("7D")
    assert hand - CardSet.parse("JC") == CardSet.parse("6S, 7D")
    assert not CardSet() and hand
    assert eval(repr(hand)) == hand
    assert hash(hand) == hash(CardSet.parse("7D JC 6S"))


def test_cardset_is_immutable_and_rejects_duplicates():
    hand = CardSet.parse("6S")
    with pytest.raises(AttributeError):
        hand.mask = 0  # type: ignore[misc]
    with pytest.raises(NotationError, match="written twice"):
        CardSet.parse("6S 6s")


def test_every_card_is_truthy_even_the_six_of_spades_at_index_0():
    assert Card.parse("6S") == 0
    assert all(bool(card) for card in CARDS)
