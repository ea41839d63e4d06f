"""Engine speed: ``python -m game.engine.bench [--seconds S] [--runs N]``.

Prints, as the median of several runs on one core:

- random-game plies per second: whole games from seeded deals, each ply
  generating the legal turns, picking one at random, playing it and counting
  the position for repetition, as a random playout in a search does;
- legal-move generations per second: building the full list of legal turns
  of positions sampled from such games, as a search's move loop does.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from itertools import cycle

from .cards import Suit
from .deal import deal
from .game import REPETITION_LIMIT
from .position import Position
from .rules import Rules

TRUMPS = (Suit.S, Suit.H)


def random_game_plies(seconds: float, seed: int) -> tuple[float, int]:
    """Plies per second over whole random games for ``seconds``; also the games played."""
    rng = random.Random(seed)
    random_float = rng.random
    plies = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        position = deal(seed + games, TRUMPS)
        seen = {position.key: 1}
        while True:
            moves = position.legal_moves()
            count = len(moves)
            if not count:
                break
            position = position.play_unchecked(moves[int(random_float() * count)])
            plies += 1
            key = position.key
            count = seen[key] = seen.get(key, 0) + 1
            if count >= REPETITION_LIMIT:
                break
        games += 1
    return plies / (time.perf_counter() - start), games


def sample_positions(count: int, seed: int) -> list[Position]:
    """Positions met in random games, over every pack size, to generate moves for."""
    rng = random.Random(seed)
    sample: list[Position] = []
    for game in range(count):
        position = deal(seed + game, TRUMPS, Rules(deck=(36, 32, 24)[game % 3]))
        for _ in range(rng.randrange(200)):
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play_unchecked(rng.choice(moves))
        sample.append(position)
    return sample


def generations(seconds: float, positions: list[Position]) -> tuple[float, float]:
    """Full legal-move lists built per second; also the mean list length."""
    done = moves = 0
    start = time.perf_counter()
    for position in cycle(positions):
        moves += len(list(position.legal_moves()))
        done += 1
        if done % 256 == 0 and time.perf_counter() - start >= seconds:
            break
    return done / (time.perf_counter() - start), moves / done


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median shown)")
    args = parser.parse_args(argv)

    ply_rates = []
    for run in range(args.runs):
        rate, games = random_game_plies(args.seconds, seed=1000 * run)
        ply_rates.append(rate)
        print(f"  run {run + 1}/{args.runs}: {rate:,.0f} plies/s ({games} games)", flush=True)
    positions = sample_positions(300, seed=7)
    gen_rates = []
    for run in range(args.runs):
        rate, mean_moves = generations(args.seconds, positions)
        gen_rates.append(rate)
        print(
            f"  run {run + 1}/{args.runs}: {rate:,.0f} generations/s ({mean_moves:.1f} turns each)",
            flush=True,
        )
    print(f"random-game plies per second:     {statistics.median(ply_rates):,.0f}")
    print(f"legal-move generations per second: {statistics.median(gen_rates):,.0f}")


if __name__ == "__main__":
    main()
