"""Draws in arena records: were they forced, or was a win there?

An arena game drawn by repetition keeps its turns (see :mod:`.arena`). Its
cycle runs from the first arising of the position that arose a third time to
the end; every position of the cycle where level A was to move is proven
afresh (no history: the value of the position itself). A draw is *chosen*
when one of them is a proven win for A (A walked past it), *forced* when all
are proven draws or losses, and *unproven* when the prover ran out of time.
A draw by a beat with the last card is judged the same way on A's last turns before it.

The prover reaches some 14 cards in the hands; a 36-card cycle holds 16 to 35.
Against a deterministic opponent a win can also be shown by playing it: with
``--playout LEVEL``, the game is taken up again at the cycle's first position
(its history kept) by ``LEVEL`` against B, and a win there is a win that was
available against that opponent (not a proof against every defence).

    .venv/bin/python -m game.ai.cycles RECORD --seconds 20 --out F [--playout perfect]

writes one JSON line per cycle position (RULES.md notation) and prints the split.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from game.engine import Game, Position, Rules, position_to_json

from .arena import GameRecord, arena_game
from .players import choose_in_game
from .search import prove
from .solver import solve

#: Up to this many cards in play, the exact solver answers before the prover is asked.
SOLVE_CARDS = 9


@dataclass
class CyclePosition:
    """A position of a repetition cycle with A to move, and what the prover says of it."""

    index: int  # the arena game
    ply: int
    position: dict[str, Any]
    played: str  # what A played there
    value: str | None  # for A, the player to move; None when unproven
    best: list[str]


def cycle(record: GameRecord, rules: Rules) -> Iterator[tuple[int, Position, str]]:
    """``(ply, position, turn played)`` of each distinct cycle position with A to move."""
    game = Game.replay(arena_game(record.index, rules).start, record.moves)
    positions = game.positions
    repeated = positions[-1].key
    first = next(i for i, p in enumerate(positions) if p.key == repeated)
    seen = set()
    for ply in range(first, len(record.moves)):
        position = positions[ply]
        if position.to_move == record.a_seat and position.key not in seen:
            seen.add(position.key)
            yield ply, position, record.moves[ply]


#: A draw by a beat with the last card is judged on A's last few turns before it.
LAST_TURNS = 4


def before_last_card(record: GameRecord, rules: Rules) -> Iterator[tuple[int, Position, str]]:
    """``(ply, position, turn played)`` of A's last :data:`LAST_TURNS` turns before the end."""
    game = Game.replay(arena_game(record.index, rules).start, record.moves)
    plies = [i for i, p in enumerate(game.positions[:-1]) if p.to_move == record.a_seat]
    for ply in plies[-LAST_TURNS:]:
        yield ply, game.positions[ply], record.moves[ply]


#: Which positions of a drawn game are proven, by how it was drawn.
DRAWN_POSITIONS = {"repetition": cycle, "last_card": before_last_card}


def value_of(position: Position, seconds: float) -> tuple[str | None, list[str]]:
    """The proven value for the player to move and its best turns, or ``None`` past ``seconds``."""
    cards = position.hands[0].bit_count() + position.hands[1].bit_count() + len(position.pile)
    if cards <= SOLVE_CARDS:
        solved = solve(position, seconds=seconds)
        if solved is not None:
            return solved.value, [str(m) for m in solved.best]
    proof = prove(position, seconds=seconds)
    if proof is None:
        return None, []
    return proof.value, [str(m) for m in proof.best]


def rules_of(header: dict[str, Any]) -> Rules:
    """The rules of a match record's header (which also lists the derived ``pack``)."""
    rules = header["rules"]
    return Rules(rules["deck"], rules["must_beat"], rules["sixes_to_owner"])


def verdict(positions: list[CyclePosition]) -> str:
    """``chosen``, ``forced`` or ``unproven`` for one game's cycle."""
    values = [p.value for p in positions]
    if "win" in values:
        return "chosen"
    return "unproven" if None in values else "forced"


def classify(
    path: Path, seconds: float, most: int | None = None
) -> Iterator[tuple[GameRecord, list[CyclePosition]]]:
    """Each draw of the record at ``path``, with its proven positions.

    A repetition's cycle (:func:`cycle`), or A's last turns before a beat with the last
    card (:func:`before_last_card`). With ``most``, only that many positions per game are
    proven: those with the fewest cards in the hands, where a proof is likeliest.
    """
    lines = path.read_text().splitlines()
    rules = rules_of(json.loads(lines[0]))
    for line in lines[1:]:
        record = GameRecord(**json.loads(line))
        if record.ending not in DRAWN_POSITIONS or not record.moves:
            continue
        found = []
        chosen = sorted(
            DRAWN_POSITIONS[record.ending](record, rules),
            key=lambda c: c[1].hands[0].bit_count() + c[1].hands[1].bit_count(),
        )[:most]
        for ply, position, played in sorted(chosen, key=lambda c: c[0]):
            value, best = value_of(position, seconds)
            json_position = position_to_json(position)
            found.append(CyclePosition(record.index, ply, json_position, played, value, best))
        yield record, found


def playout(
    record: GameRecord, opponent: str, rules: Rules, level: str, seconds: float, max_plies: int
) -> tuple[str, int]:
    """Take up the game at its cycle's first position with ``level`` for A: the result for A.

    Returns ``("win" | "draw" | "loss" | "unfinished", plies played)``.
    """
    game = Game.replay(arena_game(record.index, rules).start, record.moves)
    repeated = game.position.key
    first = next(i for i, p in enumerate(game.positions) if p.key == repeated)
    again = Game.replay(arena_game(record.index, rules).start, record.moves[:first])
    rng = random.Random(f"playout-{record.index}")
    start = again.ply
    while again.outcome is None and again.ply - start < max_plies:
        mover = again.position.to_move
        who = level if mover == record.a_seat else opponent
        again.play(choose_in_game(again, who, seconds, rng).move)
    if again.outcome is None:
        return "unfinished", again.ply - start
    winner = again.outcome.winner
    result = "draw" if winner is None else "win" if winner == record.a_seat else "loss"
    return result, again.ply - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path, nargs="+")
    parser.add_argument("--seconds", type=float, default=20.0, help="proof time per position")
    parser.add_argument("--out", type=Path, help="append each proven position here (JSON lines)")
    parser.add_argument("--most", type=int, help="prove only this many positions per cycle")
    parser.add_argument("--playout", help="a level to take up each cycle with, against B")
    parser.add_argument("--playout-seconds", type=float, default=None)
    parser.add_argument("--max-plies", type=int, default=600)
    options = parser.parse_args()
    split: Counter[str] = Counter()
    for path in options.records:
        for record, positions in classify(path, options.seconds, options.most):
            split[verdict(positions)] += 1
            values = Counter(p.value for p in positions)
            print(
                f"{path.name} game {record.index} (deal {record.deal_seed}, seat {record.a_seat},"
                f" {record.plies} plies, {record.ending}): {verdict(positions)};"
                f" cycle positions {dict(values)}",
                flush=True,
            )
            if options.playout and record.ending == "repetition":
                header = json.loads(path.read_text().splitlines()[0])
                result, plies = playout(
                    record,
                    header["b"],
                    rules_of(header),
                    options.playout,
                    options.playout_seconds,
                    options.max_plies,
                )
                print(f"  taken up by {options.playout}: {result} in {plies} plies", flush=True)
            if options.out is not None:
                with options.out.open("a") as file:
                    for found in positions:
                        row = {"source": path.name, **asdict(found)}
                        file.write(json.dumps(row) + "\n")
    print("split:", dict(split))


if __name__ == "__main__":
    main()
