"""``manage.py bench_socket``: what opening one game socket costs the server, in-process.

Opens the sockets of a game's two players and of a spectator one after another through the
site's whole websocket stack (origin check, session and login, language, the consumer), each
until its first message (the table, and the chat for a player), and prints the mean time per
socket. Daphne's own share (the HTTP upgrade) is not in it; the load test measures the whole.
A benchmark: it prints figures and judges nothing; it leaves its players (``bench-*``) and a game
in the database it runs on.
"""

from __future__ import annotations

import asyncio
import time
from argparse import ArgumentParser
from typing import Any

from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.test import Client

from game.services.starting import game_create_seek, game_join


class Command(BaseCommand):
    help = "Time opening a game socket (to its first message), in-process."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--sockets", type=int, default=300)

    def handle(self, *args: Any, **options: Any) -> None:
        from yourtrumps_site.asgi import application

        users = get_user_model().objects
        players = [users.get_or_create(username=f"bench-{name}")[0] for name in "ab"]
        seek = game_create_seek(user=players[0], trump="S")
        game = game_join(game_id=seek.pk, user=players[1], trump="H")
        cookies = []
        for player in players:
            client = Client()
            client.force_login(player)
            cookies.append(f"sessionid={client.cookies['sessionid'].value}".encode())
        cookies.append(b"")  # a spectator, not logged in

        async def open_all(count: int) -> float:
            started = time.perf_counter()
            for n in range(count):
                headers = [(b"origin", b"http://localhost"), (b"cookie", cookies[n % 3])]
                socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers)
                connected, _ = await socket.connect(timeout=10)
                if not connected:
                    raise RuntimeError("the socket was refused")
                await socket.receive_from(timeout=10)
                await socket.disconnect()
            return time.perf_counter() - started

        count = options["sockets"]
        spent = asyncio.run(open_all(count))
        each = 1000 * spent / count
        self.stdout.write(f"{count} sockets: {each:.2f} ms each to the first message")
