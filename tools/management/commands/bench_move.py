"""``manage.py bench_move``: what one move costs the server, in-process, part by part.

Plays random games between two players as the table does with its socket open
(the turn through the move service, as the game's socket consumer plays it; or
``--via post``, the table's POST without a socket, handed to the site's ASGI application as
Daphne hands it, less Daphne's own HTTP work), then renders the tables both players' sockets
get, as their consumers do. Prints
the mean time of each part per move. A benchmark: it prints figures
and judges nothing; it leaves its two players (``bench-*``) and games in the
database it runs on.
"""

from __future__ import annotations

import asyncio
import random
import time
from argparse import ArgumentParser
from typing import Any
from urllib.parse import urlencode

from channels.testing import HttpCommunicator
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH
from django.test import Client, override_settings
from django.utils.crypto import get_random_string
from django.utils.translation import get_language

from game.consumers.table import _read_and_render
from game.live import Moved
from game.models import Game
from game.selectors import stored_state
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join


async def post(application: Any, path: str, data: dict[str, object], cookie: str) -> int:
    """POST ``data`` as the table's htmx does with its socket open, through the site's ASGI
    ``application``; the answer's status."""
    body = urlencode(data).encode()
    headers = {
        "host": "testserver",  # allowed while the command runs
        "hx-request": "true",
        "x-table-live": "1",
        "content-type": "application/x-www-form-urlencoded",
        "content-length": str(len(body)),
        "cookie": cookie,
    }
    request = HttpCommunicator(
        application,
        "POST",
        path,
        body=body,
        headers=[(name.encode(), value.encode()) for name, value in headers.items()],
    )
    answer = await request.get_response(timeout=30)
    await request.wait()
    return int(answer["status"])


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
        from yourtrumps_site.asgi import application  # the server's own, once Django is set up

        # The cookie's secret, sent again as the form's token.
        csrf = get_random_string(CSRF_SECRET_LENGTH, allowed_chars=CSRF_ALLOWED_CHARS)
        cookies = []
        for player in players:
            client = Client()
            client.force_login(player)
            cookies.append(f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}")
        loop = asyncio.new_event_loop()
        viewers = {(seat, get_language()): player for seat, player in enumerate(players)}
        render_all = _read_and_render.func  # undecorated: in this thread
        rng = random.Random(options["seed"])
        turn = f"turn ({options['via']})"
        spent = {turn: 0.0, "two updates": 0.0}
        moves = 0
        for _ in range(options["games"]):
            seek = game_create_seek(user=players[0], trump="S")
            game = game_join(game_id=seek.pk, user=players[1], trump="H")
            for _ in range(options["turns"]):
                game = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
                state = stored_state(game)
                if game.status != Game.Status.ACTIVE:
                    break
                move = rng.choice(list(state.legal_moves()))
                started = time.perf_counter()
                if options["via"] == "socket":
                    game_play_move(
                        game_id=game.pk,
                        user=players[state.position.to_move],
                        notation=str(move),
                        expected_ply=state.ply,
                    )
                else:
                    form = {"csrfmiddlewaretoken": csrf, "ply": state.ply, "move": str(move)}
                    path = f"/games/{game.pk}/move/"
                    answer = post(application, path, form, cookies[state.position.to_move])
                    status = loop.run_until_complete(answer)
                    if status != 204:
                        self.stderr.write(f"move {move} answered {status}")
                rendered = time.perf_counter()
                # The two players' updates as their sockets get them (``game.consumers``).
                version = Game.objects.values_list("version", flat=True).get(pk=game.pk)
                started += time.perf_counter() - rendered  # not a part of the move
                rendered = time.perf_counter()
                render_all(
                    game.pk, version, viewers, Moved(state.ply, state.position.to_move, str(move))
                )
                done = time.perf_counter()
                spent[turn] += rendered - started
                spent["two updates"] += done - rendered
                moves += 1
        loop.close()
        total = sum(spent.values())
        parts = ", ".join(f"{name} {1000 * s / moves:.2f} ms" for name, s in spent.items())
        self.stdout.write(f"{moves} moves: {1000 * total / moves:.2f} ms each ({parts})")
