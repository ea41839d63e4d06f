"""The fair deal's seed: the three parts make it, each of them counts, and it is the
documented hash (checked against :mod:`hashlib` directly, as anyone checking would)."""

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game.engine import NotationError, Rules, Suit, deal
from game.engine.fairness import DealParts, commitment, is_part, seed_of

TRUMPS = (Suit.S, Suit.H)
parts = st.text(alphabet="0123456789abcdef", min_size=32, max_size=64)


def test_the_seed_is_sha256_of_the_three_parts_joined_by_colons_modulo_2_to_62():
    secret, part0, part1 = "a" * 64, "b" * 64, "c" * 32
    hashed = hashlib.sha256(f"{secret}:{part0}:{part1}".encode()).hexdigest()
    assert seed_of(secret, part0, part1) == int(hashed, 16) % 2**62
    assert commitment(secret) == hashlib.sha256(secret.encode()).hexdigest()
    # Fixed by SHA-256: a change here would change how every fair game was dealt.
    assert seed_of(secret, part0, part1) == 2342770478517896270


@given(parts, parts, parts)
def test_the_same_parts_give_the_same_deal(secret, part0, part1):
    first, again = DealParts(secret, part0, part1), DealParts(secret, part0, part1)
    assert first.deal(TRUMPS) == again.deal(TRUMPS)
    assert first.deal(TRUMPS, Rules(deck=24)) == deal(first.seed, TRUMPS, Rules(deck=24))


@given(parts, parts, parts, st.integers(0, 2), parts)
def test_changing_any_one_part_changes_the_deal(secret, part0, part1, which, other):
    before = [secret, part0, part1]
    after = list(before)
    after[which] = other
    if after == before:
        return
    # 36 cards split 18/18 in 9 075 135 300 ways: two seeds dealing alike is out of reach.
    assert DealParts(*before).deal(TRUMPS).hands != DealParts(*after).deal(TRUMPS).hands


@given(parts, parts)
def test_a_part_moved_to_another_place_changes_the_deal(a, b):
    if a == b:
        return
    assert seed_of(a, a, b) != seed_of(a, b, a)


@pytest.mark.parametrize("bad", ["", "12345", "G" * 32, "AB" * 16, "a" * 65, " " + "a" * 32])
def test_a_part_that_is_not_lowercase_hex_of_32_to_64_digits_is_refused(bad):
    assert not is_part(bad)
    with pytest.raises(NotationError, match="part1 must be 32 to 64 lowercase hexadecimal"):
        DealParts("a" * 64, "b" * 32, bad)
