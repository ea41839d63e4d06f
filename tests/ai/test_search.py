"""Alpha-beta: whatever it reports as exact agrees with brute-force retrograde analysis."""

import functools
import random

import pytest

from game.ai.search import AlphaBeta, Proof, SearchResult, is_proven, prove
from game.ai.solver import solve
from game.engine import Card, CardSet, Position, Suit

from .brute import DRAW, keeps, random_position, values

POSITIONS = [random_position(random.Random(1000 + seed), 4 + seed % 4) for seed in range(120)]


@functools.cache
def searched(position: Position) -> SearchResult:
    return AlphaBeta().search(position, seconds=0.3)


@pytest.mark.parametrize("position", POSITIONS, ids=str)
def test_exact_results_are_the_true_value_with_value_keeping_turns(position):
    expected = values(position)
    result = searched(position)
    if not result.exact:
        return
    assert result.value == expected[position.key]
    for move in result.best:
        assert keeps(result.value, expected[position.play(move).key]), move


def test_the_search_proves_wins_and_losses_but_not_every_draw():
    proven = [p for p in POSITIONS if searched(p).exact]
    assert len(proven) >= len(POSITIONS) // 2
    decided = [p for p in POSITIONS if values(p)[p.key] != DRAW]
    assert sum(searched(p).exact for p in decided) >= 0.9 * len(decided)


def test_a_win_in_one_is_found_and_scored_as_proven():
    position = Position(
        trumps=(Suit.S, Suit.H),
        hands=(CardSet.parse("AS 7C").mask, CardSet.parse("KH 9H 8D").mask),
        pile=(Card.parse("KD"),),
    )
    result = AlphaBeta().search(position, seconds=1.0)
    assert [str(m) for m in result.best] == ["AS-7C"]
    assert result.exact and result.value == "win" and is_proven(result.score)


def test_the_search_stops_in_time_and_returns_a_legal_turn():
    from game.engine import deal

    position = deal(3, (Suit.S, Suit.H))
    result = AlphaBeta().search(position, seconds=0.3)
    assert result.seconds < 0.6
    assert all(position.is_legal(m) for m in result.best)
    assert result.depth >= 1


def test_a_position_seen_twice_scores_as_a_draw():
    # Player 0 can only take; the position after the take was seen twice before.
    position = Position(
        trumps=(Suit.S, Suit.H),
        hands=(CardSet.parse("7D").mask, CardSet.parse("KH").mask),
        pile=(Card.parse("9C"),),
    )
    after = position.play("take")
    result = AlphaBeta({after.key: 2}).search(position, seconds=1.0)
    assert result.score == 0 and not result.exact


@functools.cache
def proved(position: Position) -> Proof | None:
    return prove(position, seconds=0.5)


@pytest.mark.parametrize("position", POSITIONS[:60], ids=str)
def test_proofs_by_search_are_the_true_value_with_value_keeping_turns(position):
    expected = values(position)
    proof = proved(position)
    if proof is None:
        return
    assert proof.value == expected[position.key]
    for move in proof.best:
        assert keeps(proof.value, expected[position.play(move).key]), move


def test_proof_by_search_settles_draws_too():
    proofs = [proved(p) for p in POSITIONS[:60]]
    assert sum(p is not None for p in proofs) >= 50
    assert any(p is not None and p.value == DRAW for p in proofs)


@pytest.mark.parametrize("seed", range(40))
def test_proofs_respect_the_games_history(seed):
    """Positions the game has seen twice are drawn when reached; once seen, they play on."""
    rng = random.Random(seed)
    position = random_position(rng, 5 + seed % 3)
    reachable = [position.play(m) for m in position.legal_moves()]
    reachable += [p.play(m) for p in reachable if p.outcome is None for m in p.legal_moves()]
    history = {p.key: rng.choice((1, 2)) for p in rng.sample(reachable, min(4, len(reachable)))}
    history[position.key] = 1
    proof = prove(position, history, seconds=0.5)
    solution = solve(position, history)
    assert solution is not None
    if proof is not None:
        assert proof.value == solution.value
        if proof.value != "loss":  # (every turn keeps a loss)
            assert set(proof.best) <= set(solution.best)
