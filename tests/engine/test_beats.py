"""Exhaustive "what beats what" (RULES.md), for every top card, every card played on it and
every trump suit of the player to move: the top card is then of the mover's trump or not,
and when not, possibly of the opponent's."""

import itertools

import pytest

from game.engine import CARDS, Card, IllegalMoveError, Position, Suit


def beats_by_the_rules(card: Card, top: Card, trump: Suit) -> bool:
    """RULES.md word for word: a higher card of the same suit, or one's own trump on a non-trump."""
    return (card.suit == top.suit and card.rank > top.rank) or (
        card.suit == trump and top.suit != trump
    )


def _position(card: Card, top: Card, trump: Suit) -> Position:
    other = next(c for c in CARDS if c not in (card, top))
    opponent_trump = Suit((trump + 1) % 4)
    return Position(
        trumps=(trump, opponent_trump),
        hands=(1 << card | 1 << other, 1 << next(c for c in CARDS if c not in (card, top, other))),
        pile=(top,),
    ).check()


@pytest.mark.parametrize("trump", list(Suit))
def test_beats_agrees_with_the_rules_for_every_pair(trump):
    for card, top in itertools.permutations(CARDS, 2):
        position = _position(card, top, trump)
        expected = beats_by_the_rules(card, top, trump)
        assert (card in position.beaters()) == expected, (card, top, trump)
        beat_moves = {m for m in position.legal_moves() if m.card == card}
        assert bool(beat_moves) == expected, (card, top, trump)
        if not expected:
            with pytest.raises(IllegalMoveError, match=f"{card} does not beat {top}"):
                position.play(f"{card}-{other_card(position, card)}")


def test_whose_trump_the_top_card_was_for_its_player_does_not_matter():
    # 9H is the opponent's trump; for player 0 (trump S) it is a plain heart.
    position = _position(Card.parse("TH"), Card.parse("9H"), Suit.S)
    assert position.trumps[1] == Suit.H
    assert Card.parse("TH") in position.beaters()


def other_card(position: Position, card: Card) -> Card:
    return next(c for c in position.hand(0) if c != card)
