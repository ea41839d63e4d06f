"""Invariants over random games (hypothesis): whatever the deal and the turns chosen."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.engine import (
    CARDS,
    Game,
    IllegalMoveError,
    Move,
    Position,
    Rules,
    Suit,
    deal,
    position_from_json,
    position_to_json,
)
from game.engine.moves import BEATS, SINGLES

rules_strategy = st.builds(
    Rules,
    deck=st.sampled_from([36, 32, 24]),
    must_beat=st.booleans(),
    sixes_to_owner=st.booleans(),
)
trumps_strategy = st.permutations(list(Suit)).map(lambda suits: (suits[0], suits[1]))


@st.composite
def random_walks(draw, max_plies=300):
    """A deal and the positions of up to ``max_plies`` random legal turns from it."""
    start = deal(draw(st.integers(0, 2**32)), draw(trumps_strategy), draw(rules_strategy))
    rng: random.Random = draw(st.randoms(use_true_random=False))
    positions, moves = [start], []
    while len(moves) < max_plies and positions[-1].outcome is None:
        legal = positions[-1].legal_moves()
        moves.append(legal[rng.randrange(len(legal))])
        positions.append(positions[-1].play(moves[-1]))
    return positions, moves


@given(random_walks())
def test_cards_are_always_exactly_the_pack(walk):
    positions, _ = walk
    pack = positions[0].rules.pack
    for position in positions:
        h0, h1 = position.hands
        pile = 0
        for card in position.pile:
            pile |= 1 << card
        assert h0 & h1 == 0 and (h0 | h1) & pile == 0
        assert len(set(position.pile)) == len(position.pile)
        assert h0 | h1 | pile == pack


@given(random_walks())
def test_a_take_removes_at_most_the_pile_and_only_from_its_top(walk):
    positions, moves = walk
    for before, move, after in zip(positions, moves, positions[1:], strict=False):
        if move.is_take:
            taken = len(before.pile) - len(after.pile)
            assert 1 <= taken <= min(before.take_count(), len(before.pile))
            assert taken in (3, 5, len(before.pile))
            assert before.pile[: len(after.pile)] == after.pile
            if not after.pile:
                assert after.to_move != before.to_move
                assert all(m.second is None and not m.is_take for m in after.legal_moves())


@given(random_walks())
def test_every_legal_turn_plays_and_is_listed_once(walk):
    positions, _ = walk
    for position in positions[:: max(1, len(positions) // 20)]:
        legal = position.legal_moves()
        listed = list(legal)
        assert len(listed) == len(legal) == len(set(listed))
        assert [legal[i] for i in range(len(legal))] == listed
        for move in listed:
            assert position.play(move).check()


@given(random_walks(max_plies=60))
def test_json_round_trips(walk):
    positions, _ = walk
    for position in positions:
        data = position_to_json(position)
        again = position_from_json(data)
        assert position_to_json(again) == data
        if not position.drawn_by_last_card:
            assert again == position


@given(random_walks(max_plies=60))
def test_notation_round_trips(walk):
    _, moves = walk
    for move in moves:
        assert Move.parse(str(move)) is move
        assert Move.parse(str(move).lower()) is move


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    trumps=trumps_strategy,
    rules=rules_strategy,
    rng=st.randoms(use_true_random=False),
)
def test_every_game_from_a_deal_ends(seed, trumps, rules, rng):
    game = Game(deal(seed, trumps, rules))
    # Not a cap that could pass by itself: the game must reach an outcome.
    for _ in range(1_000_000):
        if game.outcome is not None:
            break
        legal = game.legal_moves()
        game.play(legal[rng.randrange(len(legal))])
    assert game.outcome is not None
    assert game.outcome.result in ("win", "draw")


@given(random_walks(max_plies=40))
def test_positions_are_values(walk):
    positions, _ = walk
    for position in positions:
        assert isinstance(hash(position), int)
        fields = {f: getattr(position, f) for f in Position.__dataclass_fields__}
        assert Position(**fields) == position


#: Every turn that can be written over the full pack: take, each card alone (a lead, or a beat
#: with one's last card) and each beating card with each other card as the second.
ALL_NOTATIONS = ["take", *(str(m) for m in SINGLES), *(str(m) for m in BEATS if m.card != m.second)]


@st.composite
def any_positions(draw):
    """A position the rules can hold, not only one that play reaches: the pack split at random
    between the hands and the pile (in any order), either trumps, either player to move."""
    rules = draw(rules_strategy)
    cards = [c for c in CARDS if rules.pack >> c & 1]
    places = draw(st.lists(st.sampled_from([0, 1, 2]), min_size=len(cards), max_size=len(cards)))
    hands = [0, 0]
    pile = []
    for card, place in zip(cards, places, strict=True):
        if place == 2:
            pile.append(card)
        else:
            hands[place] |= 1 << card
    if not (hands[0] or hands[1]):
        hands[0] = 1 << pile.pop()
    over = not (hands[0] and hands[1])
    return Position(
        trumps=draw(trumps_strategy),
        hands=(hands[0], hands[1]),
        pile=tuple(draw(st.permutations(pile))),
        to_move=draw(st.sampled_from([0, 1])),
        rules=rules,
        drawn_by_last_card=over and draw(st.booleans()),
    ).check()


def assert_listed_exactly_when_legal(position):
    """`legal_moves` (LegalMoves) and `play` (Position._illegal_reason) are two statements of the
    rules: every listed turn must play, every other writable turn must be refused."""
    listed = {str(move) for move in position.legal_moves()}
    assert listed <= set(ALL_NOTATIONS)
    for notation in ALL_NOTATIONS:
        if notation in listed:
            assert position.play(notation).check(), notation
        else:
            with pytest.raises(IllegalMoveError):
                position.play(notation)
        assert position.is_legal(Move.parse(notation)) == (notation in listed), notation
    # Nor may a card be played on itself (a value the constructor can build, not a notation).
    for card in CARDS:
        with pytest.raises(IllegalMoveError):
            position.play(Move(card, card))


@settings(max_examples=150, deadline=None)
@given(any_positions())
def test_a_turn_plays_exactly_when_it_is_listed(position):
    assert_listed_exactly_when_legal(position)


@settings(max_examples=40, deadline=None)
@given(random_walks(max_plies=120))
def test_a_turn_plays_exactly_when_it_is_listed_in_games_as_played(walk):
    positions, _ = walk
    for position in positions[:: max(1, len(positions) // 6)]:
        assert_listed_exactly_when_legal(position)
