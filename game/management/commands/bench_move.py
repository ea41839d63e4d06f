"""``manage.py bench_move``: what one move costs the server, in-process, part by part.

Plays random games between two players as the table does with its socket open
(the turn through the move service, as the game's socket consumer plays it; or
``--via post``, the table's POST without a socket, through Django's test
client), then renders the tables both players' sockets get, as their consumers do. Prints
the mean time of each part per move. A benchmark: it prints figures
and judges nothing; it leaves its two players (``bench-*``) and games in the
database it runs on.
"""

from __future__ import annotations

import random
import time
from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.test import Client, override_settings
from django.utils.translation import get_language

from game import services
from game.consumers import _render_all
from game.models import Game
from game.selectors import stored_state

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_X_TABLE_LIVE": "1"}


class Command(BaseCommand):
    help = "Time one move's parts (the turn, the players' tables), in-process."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--games", type=int, default=6)
        parser.add_argument("--turns", type=int, default=60, help="at most, per game")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--via", choices=("socket", "post"), default="socket")

    @override_settings(ALLOWED_HOSTS=["testserver"])
    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model().objects
        players = [users.get_or_create(username=f"bench-{name}")[0] for name in "ab"]
        clients = [Client(), Client()]
        for client, player in zip(clients, players, strict=True):
            client.force_login(player)
        viewers = {(seat, get_language()): player for seat, player in enumerate(players)}
        render_all = _render_all.func  # undecorated: in this thread
        rng = random.Random(options["seed"])
        turn = f"turn ({options['via']})"
        spent = {turn: 0.0, "two tables": 0.0}
        moves = 0
        for _ in range(options["games"]):
            seek = services.game_create_seek(user=players[0], trump="S")
            game = services.game_join(game_id=seek.pk, user=players[1], trump="H")
            for _ in range(options["turns"]):
                game = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
                state = stored_state(game)
                if game.status != Game.Status.ACTIVE:
                    break
                client = clients[state.position.to_move]
                move = rng.choice(list(state.legal_moves()))
                started = time.perf_counter()
                if options["via"] == "socket":
                    services.game_play_move(
                        game_id=game.pk,
                        user=players[state.position.to_move],
                        notation=str(move),
                        expected_ply=state.ply,
                    )
                else:
                    answer = client.post(
                        f"/games/{game.pk}/move/", {"ply": state.ply, "move": str(move)}, **HTMX
                    )
                    if answer.status_code != 204:
                        self.stderr.write(f"move {move} answered {answer.status_code}")
                rendered = time.perf_counter()
                # The two players' tables as their sockets get them (``game.consumers``).
                version = Game.objects.values_list("version", flat=True).get(pk=game.pk)
                started += time.perf_counter() - rendered  # not a part of the move
                rendered = time.perf_counter()
                render_all(game.pk, version, viewers)
                done = time.perf_counter()
                spent[turn] += rendered - started
                spent["two tables"] += done - rendered
                moves += 1
        total = sum(spent.values())
        parts = ", ".join(f"{name} {1000 * s / moves:.2f} ms" for name, s in spent.items())
        self.stdout.write(f"{moves} moves: {1000 * total / moves:.2f} ms each ({parts})")
