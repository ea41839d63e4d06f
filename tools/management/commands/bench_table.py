"""``manage.py bench_table``: what rendering a game's tables costs, in-process.

Deals a 36-card game between two players from a fixed seed and plays seeded random turns; at
each ply of ``--plies`` it renders, for the game's three viewers (the two seats and a spectator),
what their sockets get, in English, ``--repeat`` times, each time from tables built afresh, as
each version's are: the whole table (``render_table``, on connecting) and a turn's update
(``render_turn``, every other version). Only the rendering is timed, in the thread's CPU time: on
a machine shared with other work, wall-clock time measures the others too. Prints the time each
takes for a turn's three viewers and their sizes.
A benchmark: it prints figures and judges nothing; it leaves its players (``bench-*``) and a game
in the database it runs on.
"""

from __future__ import annotations

import random
import time
from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.management.base import BaseCommand
from django.utils import translation

from game.models import Game
from game.selectors import history_of
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join
from game.table_markup import render_table, render_turn
from game.tables import tables_for

#: The deal: the same cards on every run.
SEED = 20261130


class Command(BaseCommand):
    help = "Time rendering a game's tables for its three viewers, in-process."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--plies", default="0,1,12,30", help="comma-separated, ascending")
        parser.add_argument("--repeat", type=int, default=500)
        parser.add_argument("--seed", type=int, default=1, help="of the turns played")

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model().objects
        players = [users.get_or_create(username=f"bench-{name}")[0] for name in "ab"]
        viewers = [(0, players[0]), (1, players[1]), (None, AnonymousUser())]
        seek = game_create_seek(user=players[0], trump="S")
        Game.objects.filter(pk=seek.pk).update(seed=SEED)
        game = game_join(game_id=seek.pk, user=players[1], trump="H")
        rng = random.Random(options["seed"])
        repeat = options["repeat"]
        totals: dict[str, list[float]] = {"table": [], "turn": []}
        for ply in sorted(int(p) for p in options["plies"].split(",")):
            history = history_of(game)
            while history.ply < ply and game.status == Game.Status.ACTIVE:
                moves = [m for m in history.legal_moves() if not m.is_take]
                game_play_move(
                    game_id=game.pk,
                    user=players[history.position.to_move],
                    notation=str(rng.choice(moves or list(history.legal_moves()))),
                    expected_ply=history.ply,
                )
                game = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
                history = history_of(game)
            notations = tuple(game.moves.order_by("ply").values_list("notation", flat=True))
            mover = "seat 0" if history.position.to_move == 0 else "seat 1"
            line = [f"ply {history.ply:3d} ({mover} to move):"]
            for kind, moves in (("table", notations), ("turn", notations[-1:])):
                if not moves and kind == "turn":
                    continue
                spent, sizes = _timed(game, viewers, moves, kind, repeat)
                totals[kind].append(spent)
                line.append(
                    f"{kind} {spent:.3f} ms ({' / '.join(f'{s / 1000:.1f}' for s in sizes)} KB)"
                )
            self.stdout.write(" ".join(line))
        for kind, spent in totals.items():
            mean = sum(spent) / len(spent)
            self.stdout.write(
                f"{kind}: {mean:.3f} ms for a version's 3 viewers, mean over {len(spent)} plies, "
                f"{repeat} renders each"
            )


def _timed(
    game: Game,
    viewers: list[tuple[int | None, Any]],
    moves: tuple[str, ...],
    kind: str,
    repeat: int,
) -> tuple[float, list[int]]:
    """The CPU milliseconds that rendering ``kind`` for all ``viewers`` takes, and the sizes."""
    spent = 0.0
    sizes = [0] * len(viewers)
    with translation.override("en"):
        for _ in range(repeat):
            tables = tables_for(game, [seat for seat, _ in viewers], moves)
            for n, (table, (_, user)) in enumerate(zip(tables, viewers, strict=True)):
                started = time.thread_time()
                html = render_table(table, user=user) if kind == "table" else render_turn(table)
                spent += time.thread_time() - started
                sizes[n] = len(html.encode())
    return 1000 * spent / repeat, sizes
