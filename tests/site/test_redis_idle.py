"""A quiet game socket on the Redis channel layer stays open and still gets the next move.

Issue 19: with redis-py 8, every socket whose process received nothing for 5 s died (close 1011,
``TimeoutError: Timeout reading from ...``): redis-py's default socket timeout equals the
channels-redis blocking read. Two players thinking 7 s lost their sockets 7 times in 28 s. This
test keeps a player's and a spectator's socket quiet, through the site's own ASGI application
(origin check, session, routing) and the layer as the settings configure it, its timeouts scaled
down five times so that the quiet spans four socket timeouts and two health checks in 12 s.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from game import engine
from game.models import Game
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join
from yourtrumps_site.asgi import application
from yourtrumps_site.settings import REDIS_SOCKET_TIMEOUT

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("REDIS_URL"),
        reason="REDIS_URL is not set: the site uses the in-memory channel layer",
    ),
    pytest.mark.django_db(transaction=True),
]

#: The settings' socket timeout and health check, each scaled down by this.
SCALE = 5
#: Four socket timeouts (and, as in the settings, two health checks) of the scaled layer.
QUIET_SECONDS = 4 * REDIS_SOCKET_TIMEOUT / SCALE


@pytest.fixture
def redis_layer(settings: Any) -> None:
    """The configured Redis layer on keys of this test's own, its timeouts scaled down."""
    layer = settings.CHANNEL_LAYERS["default"]
    (host,) = layer["CONFIG"]["hosts"]
    scaled = {
        **host,
        "socket_timeout": host["socket_timeout"] / SCALE,
        "health_check_interval": host["health_check_interval"] / SCALE,
    }
    settings.CHANNEL_LAYERS = {
        "default": {
            **layer,
            "CONFIG": {
                **layer["CONFIG"],
                "hosts": [scaled],
                "prefix": f"test-idle-{uuid.uuid4().hex}",
            },
        }
    }


@database_sync_to_async
def started_game() -> tuple[Game, Any, str, str]:
    """A game in play; the player not to move (with their session) and the first turn."""
    users = get_user_model().objects
    alice = users.create_user("alice", password="pw-alice-123")
    bob = users.create_user("bob", password="pw-bob-123")
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    start = engine.deal(game.seed, game.trumps, game.rules)
    mover, waiting = (alice, bob) if start.to_move == 0 else (bob, alice)
    client = Client()
    client.force_login(waiting)
    return game, mover, client.cookies["sessionid"].value, str(start.legal_moves()[0])


async def open_socket(path: str, session: str | None = None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if session:
        headers.append((b"cookie", f"sessionid={session}".encode()))
    socket = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await socket.connect(timeout=10)
    assert connected
    return socket


async def test_a_quiet_socket_outlasts_the_layers_timeouts_and_gets_the_next_move(
    redis_layer: None,
) -> None:
    layer = get_channel_layer()
    assert layer is not None and type(layer).__module__ != "channels.layers"  # Redis, not memory
    game, mover, session, turn = await started_game()
    path = f"/ws/games/{game.pk}/"
    sockets = {"opponent": await open_socket(path, session), "spectator": await open_socket(path)}
    try:
        for socket in sockets.values():
            assert 'data-ply="0"' in await socket.receive_from(timeout=10)

        await asyncio.sleep(QUIET_SECONDS)
        for name, socket in sockets.items():  # its consumer still runs, and nothing arrived
            assert not socket.future.done(), f"the {name}'s socket died while quiet"
            assert await socket.receive_nothing(timeout=0.1), name

        await database_sync_to_async(game_play_move)(
            game_id=game.pk, user=mover, notation=turn, expected_ply=0
        )
        for name, socket in sockets.items():
            assert 'data-ply="1"' in await socket.receive_from(timeout=10), name
    finally:
        try:
            for socket in sockets.values():
                await socket.disconnect()  # re-raises a consumer's crash
        finally:
            await layer.flush()  # this test's subscriptions and connections, also when it failed
