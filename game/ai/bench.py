"""How large a position ``perfect`` proves: ``python -m game.ai.bench [--seconds 1]``.

For each size (cards in both hands and the pile together), random study
positions from a random pack and rule set: each is given to the deepest
thinking (:func:`.players.deepest`) with the time budget, and the share proven
exact (win, draw or loss) and the median time are printed. The figure quoted
is the largest size at which the median position is proven in time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from game.engine import Position, Rules, Suit
from game.engine.cards import cards_of

from .players import deepest


def random_position(rng: random.Random, cards: int) -> Position:
    """``cards`` random cards of a random pack, split between two hands and a pile."""
    rules = Rules(deck=rng.choice([36, 32, 24]), must_beat=rng.random() < 0.4)
    trumps = rng.sample(list(Suit), 2)
    chosen = rng.sample(cards_of(rules.pack), min(cards, rules.deck))
    pile_size = rng.randrange(0, len(chosen) - 1)
    rest = chosen[pile_size:]
    split = rng.randrange(1, len(rest))
    return Position(
        trumps=(trumps[0], trumps[1]),
        hands=(sum(1 << c for c in rest[:split]), sum(1 << c for c in rest[split:])),
        pile=tuple(chosen[:pile_size]),
        to_move=rng.randrange(2),
        rules=rules,
    ).check()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="budget per position")
    parser.add_argument("--positions", type=int, default=30, help="positions per size")
    parser.add_argument("--sizes", default="6,8,10,12,14,16,18,20,24")
    args = parser.parse_args(argv)
    largest = 0
    print(f"{'cards':>5} {'proven':>7} {'median s':>9}  (by the solver / a proof / the search)")
    for size in (int(s) for s in args.sizes.split(",")):
        rng = random.Random(size)
        times, by = [], {"solver": 0, "proof": 0, "search": 0}
        for _ in range(args.positions):
            position = random_position(rng, size)
            start = time.perf_counter()
            found = deepest(position, {}, args.seconds)
            elapsed = time.perf_counter() - start
            if found.exact:
                by[found.method] += 1
                times.append(elapsed)
            else:
                times.append(float("inf"))
        proven = sum(by.values())
        median = statistics.median(times)
        if median != float("inf"):
            largest = size
        shown = f"{median:.3f}" if median != float("inf") else "unproven"
        print(
            f"{size:>5} {proven / args.positions:>7.0%} {shown:>9}  "
            f"({by['solver']} / {by['proof']} / {by['search']})",
            flush=True,
        )
    print(f"largest size whose median position is proven within {args.seconds} s: {largest}")


if __name__ == "__main__":
    main()
