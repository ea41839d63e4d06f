"""A level of another checkout of this project, to measure today's levels against an older one's.

``ai_match --a hard --b medium --b-from ../old`` seats the ``medium`` of the
checkout at ``../old`` as B: whether a change made ``hard`` stronger or only
made ``medium`` weaker is told by meeting the opponent as it was (issue 22's
"no worse than today against medium"). That checkout runs in a process of its
own, on its own engine and levels; it is told the game's positions as they
come (a JSON line a turn) and answers with its turn in RULES.md notation.
Only the engine's JSON form and ``choose(position, level, seconds, history,
rng)`` are assumed of it, which every version of the project has.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from game.engine import Game, Move, position_to_json

#: What the other checkout runs (from its own directory, so its own ``game`` is imported):
#: it counts the positions it is told, for repetition, and answers each question with a turn.
LOOP = """
import json, random, sys
from collections import Counter
from game.ai.players import choose
from game.engine import position_from_json
seen, rng = Counter(), random.Random(sys.argv[1])
for line in sys.stdin:
    ask = json.loads(line)
    for told in ask["positions"]:
        position = position_from_json(told)
        seen[position.key] += 1
    print(choose(position, ask["level"], ask["seconds"], seen, rng).move, flush=True)
"""


class ElsewhereError(RuntimeError):
    """The other checkout's process failed or gave no turn."""


class Elsewhere:
    """One game's opponent from the checkout at ``checkout``, seeded by ``seed``."""

    def __init__(self, checkout: Path, seed: str) -> None:
        if not (checkout / "game" / "ai" / "players.py").is_file():
            raise ElsewhereError(f"{checkout} is not a checkout of this project")
        self._process = subprocess.Popen(
            [sys.executable, "-c", LOOP, seed],
            cwd=checkout,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._told = 0

    def turn(self, game: Game, level: str, seconds: float | None) -> Move:
        """``level``'s turn in ``game``, told the positions it has not seen yet."""
        new = [position_to_json(p) for p in game.positions[self._told :]]
        self._told = game.ply + 1
        ask = {"positions": new, "level": level, "seconds": seconds}
        assert self._process.stdin is not None and self._process.stdout is not None
        try:
            self._process.stdin.write(json.dumps(ask) + "\n")
            self._process.stdin.flush()
        except BrokenPipeError:
            raise ElsewhereError("the other checkout's process has ended") from None
        answer = self._process.stdout.readline().strip()
        if not answer:
            raise ElsewhereError(f"the other checkout gave no turn (exit {self._process.poll()})")
        return Move.parse(answer)

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()
