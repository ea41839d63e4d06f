"""Fit the evaluation's weights to game results: ``python -m game.ai.tune``.

1. Play games from seeded deals between two searchers (depth-limited alpha-beta
   with the current evaluation, choosing at random among near-best turns so
   that the games vary), and keep positions from them. With ``--bots F``, a
   share ``F`` of the games seats one of the deterministic bots of :mod:`.bots`
   against the searcher instead: positions a searcher meets against a player
   who always beats (issue 22).
2. Label each position with the game's result for its player to move
   (1 win, 0.5 draw, 0 loss).
3. Fit logistic regression (Newton's method) of the label on the features of
   :mod:`.evaluate`, on four fifths of the games; report the log-loss and the
   accuracy on the other fifth, for the fitted and for the current weights.

Paste the printed weights into ``evaluate.WEIGHTS`` when they do better, in the
arena against the deterministic bots as well as in log-loss: a fit on self-play
once gave holding one's own trump ace a negative weight, and the search that
used it lost to the bots (issue 22); that weight is now set by hand.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from game.engine import Game, Rules, Suit, deal

from .bots import BOTS, bot_move
from .evaluate import FEATURES, WEIGHTS, features
from .search import AlphaBeta

Sample = tuple[tuple[float, ...], float]


def play_game(seed: int, depth: int = 2, max_plies: int = 600, bots: float = 0.0) -> list[Sample]:
    """One game's sampled positions, labelled with the result for their mover.

    Self-play, or with chance ``bots`` a searcher against a deterministic bot.
    """
    rng = random.Random(seed)
    trumps = rng.sample(list(Suit), 2)
    rules = Rules(deck=rng.choice([36, 36, 32, 24]), must_beat=rng.random() < 0.25)
    game = Game(deal(seed, (trumps[0], trumps[1]), rules))
    bot = rng.choice(BOTS) if rng.random() < bots else None
    bot_seat = rng.randrange(2)
    kept = []
    while game.outcome is None and game.ply < max_plies:
        position = game.position
        if rng.random() < 0.3:
            kept.append((features(position), position.to_move))
        moves = position.legal_moves()
        if len(moves) == 1:
            game.play(moves[0])
            continue
        if bot is not None and position.to_move == bot_seat:
            game.play(bot_move(position, bot))
            continue
        result = AlphaBeta(game.position_counts).search(position, max_depth=depth)
        # Vary the games: now and then a random near-best turn instead of the best.
        ranked = sorted(result.scores, key=lambda m: -result.scores[m])
        game.play(ranked[0] if rng.random() < 0.8 else rng.choice(ranked[:4]))
    outcome = game.outcome
    winner = outcome.winner if outcome is not None else None
    return [(f, 0.5 if winner is None else float(winner == mover)) for f, mover in kept]


def fit(samples: Sequence[Sample], iterations: int = 25, ridge: float = 1e-3) -> list[float]:
    """Logistic regression by Newton's method, with a little ridge for stability."""
    k = len(FEATURES)
    w = [0.0] * k
    for _ in range(iterations):
        gradient = [0.0] * k
        hessian = [[ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in samples:
            p = _sigmoid(sum(wi * xi for wi, xi in zip(w, x, strict=True)))
            for i in range(k):
                gradient[i] += (p - y) * x[i]
                for j in range(i, k):
                    hessian[i][j] += p * (1 - p) * x[i] * x[j]
        for i in range(k):
            gradient[i] += ridge * w[i]
            for j in range(i):
                hessian[i][j] = hessian[j][i]
        step = _solve(hessian, gradient)
        w = [wi - si for wi, si in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return w


def log_loss(samples: Sequence[Sample], weights: Sequence[float]) -> tuple[float, float]:
    """Mean log-loss, and the share of decided games whose winner the model favours."""
    loss = 0.0
    right = decided = 0
    for x, y in samples:
        p = min(1 - 1e-9, max(1e-9, _sigmoid(sum(w * f for w, f in zip(weights, x, strict=True)))))
        loss -= y * math.log(p) + (1 - y) * math.log(1 - p)
        if y != 0.5:
            decided += 1
            right += (p > 0.5) == (y == 1.0)
    return loss / len(samples), right / max(1, decided)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the system is small)."""
    n = len(vector)
    rows = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[col][col]:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] if rows[i][i] else 0.0 for i in range(n)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit the evaluation weights to self-play.")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--bots", type=float, default=0.0, help="share of games a searcher plays against a bot"
    )
    args = parser.parse_args(argv)

    start = time.perf_counter()
    games: list[list[Sample]] = []
    seeds = range(args.seed, args.seed + args.games)
    with ProcessPoolExecutor(args.workers) as pool:
        played = pool.map(
            play_game,
            seeds,
            [args.depth] * args.games,
            [600] * args.games,
            [args.bots] * args.games,
        )
        for done, samples in enumerate(played, 1):
            games.append(samples)
            if done % 20 == 0 or done == args.games:
                elapsed = time.perf_counter() - start
                print(f"  {done}/{args.games} games, {elapsed:.0f} s", flush=True)
    train = [s for i, g in enumerate(games) if i % 5 for s in g]
    test = [s for i, g in enumerate(games) if not i % 5 for s in g]
    print(f"{len(train)} training positions, {len(test)} held out")
    fitted = fit(train)
    for name, weights in (("current", WEIGHTS), ("fitted", fitted)):
        loss, accuracy = log_loss(test, weights)
        print(f"{name:8} log-loss {loss:.4f}  winner favoured {accuracy:.1%}")
    print("WEIGHTS = (" + ", ".join(f"{w:.4f}" for w in fitted) + ")")
    print("  # " + ", ".join(FEATURES))


if __name__ == "__main__":
    main()
