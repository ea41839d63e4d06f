import pytest

from game.engine import CARDS, TAKE, Move, NotationError
from game.engine.moves import BEATS, SINGLES


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("take", "take"),
        ("TAKE", "take"),
        ("7h", "7H"),
        ("10S", "TS"),
        ("qs-9d", "QS-9D"),
        ("Q♠-10♦", "QS-TD"),
    ],
)
def test_move_parse_normalises_to_rules_notation(text, expected):
    assert str(Move.parse(text)) == expected


def test_every_turn_round_trips_through_its_notation():
    for move in (TAKE, *SINGLES, *(m for m in BEATS if m.card != m.second)):
        assert Move.parse(str(move)) is move


def test_parsed_turns_are_the_shared_values():
    assert Move.parse("take") is TAKE
    assert Move.parse("QS-9D") == Move(CARDS[6], CARDS[21])
    assert eval(repr(Move.parse("QS-9D"))) is Move.parse("QS-9D")


@pytest.mark.parametrize("text", ["", "pass", "QS-", "-9D", "QS-QS", "QS-9D-8D", "XX"])
def test_bad_turns_are_refused(text):
    with pytest.raises(NotationError):
        Move.parse(text)


def test_every_turn_has_its_own_small_code():
    turns = [TAKE, *SINGLES, *(m for m in BEATS if m.card != m.second)]
    codes = [m.code for m in turns]
    assert len(set(codes)) == len(turns) == 1 + 36 + 36 * 35
    assert all(0 <= c <= 36 * 36 for c in codes)
    assert all(hash(m) == m.code for m in turns)
    assert Move(CARDS[6], CARDS[21]) == Move.parse("QS-9D")
    assert hash(Move(CARDS[6], CARDS[21])) == hash(Move.parse("QS-9D"))
