"""On the Redis channel layer, sockets are closed for their pages to reconnect when Redis goes,
refused while it is away, and accepted again once it is back, hearing their groups through the
layer made like new (``yourtrumps_site.serving.layer_watch``). Over a redis-server of the test's
own, stopped and started again."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from redis.exceptions import ConnectionError

from tests.private_services import PrivateRedis, redis_missing
from yourtrumps_site.serving.layer_watch import RESTART_CODE, Heartbeat, LayerWatch
from yourtrumps_site.settings import channel_layers_config

pytestmark = [
    pytest.mark.skipif(redis_missing() is not None, reason=str(redis_missing())),
    # Channels' consumers close stale database connections before each message they handle.
    pytest.mark.django_db(transaction=True),
]

GROUP = "table"
#: Longest a lost heartbeat takes to be noticed: the pause before it, and its wait.
NOTICED = Heartbeat.every + Heartbeat.wait + 1


class Spectator(AsyncWebsocketConsumer):
    """A socket that hears its group, as a table's does."""

    async def connect(self) -> None:
        await self.channel_layer.group_add(GROUP, self.channel_name)
        await self.accept()

    async def told(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["text"])


@pytest.fixture
def redis(settings: Any) -> Iterator[PrivateRedis]:
    """The site's Redis layer, on a redis-server of this test's own."""
    with PrivateRedis() as redis:
        settings.CHANNEL_LAYERS = channel_layers_config(redis.url)
        yield redis


async def _accepted(watch: LayerWatch, timeout: float) -> WebsocketCommunicator:
    """A socket through ``watch``, tried until it is accepted (a refused one is told at once)."""
    deadline = time.monotonic() + timeout
    while True:
        socket = WebsocketCommunicator(watch, "/ws/")
        connected, code = await socket.connect(timeout=2)
        if connected:
            return socket
        assert code == RESTART_CODE, "refused for another reason"
        assert time.monotonic() < deadline, "not accepted again"


async def test_sockets_close_for_a_reconnect_when_redis_goes_and_open_again_once_it_is_back(
    redis: PrivateRedis,
) -> None:
    watch = LayerWatch(Spectator.as_asgi())
    before = await _accepted(watch, timeout=5)
    layer = get_channel_layer()
    await layer.group_send(GROUP, {"type": "told", "text": "before"})
    assert await before.receive_from(timeout=5) == "before"

    redis.stop()
    closed = await before.receive_output(timeout=NOTICED)
    assert closed == {"type": "websocket.close", "code": RESTART_CODE}
    await before.disconnect(code=RESTART_CODE)
    started = time.monotonic()
    assert await WebsocketCommunicator(watch, "/ws/").connect(timeout=1) == (False, RESTART_CODE)
    assert time.monotonic() - started < 0.5, "a socket must be refused at once, not hang"

    redis.start()
    after = await _accepted(watch, timeout=NOTICED)
    await layer.group_send(GROUP, {"type": "told", "text": "after"})
    assert await after.receive_from(timeout=5) == "after"
    await after.disconnect()


async def test_after_a_quick_restart_a_socket_hears_its_group_or_is_closed_never_deaf(
    redis: PrivateRedis,
) -> None:
    """Redis back within milliseconds. Either redis-py reconnected the layer after Redis was
    back and subscribed it again: the heartbeat comes back, and the socket stays open and hears
    its group. Or it tried while Redis was away and the layer lost its subscriptions: the
    heartbeat does not come back, and the socket is closed for its page to reconnect."""
    watch = LayerWatch(Spectator.as_asgi())
    socket = await _accepted(watch, timeout=5)
    redis.stop()
    redis.start()
    layer = get_channel_layer()
    deadline = time.monotonic() + NOTICED
    while time.monotonic() < deadline:
        with contextlib.suppress(ConnectionError):  # a link of the publishing side's pool
            await layer.group_send(GROUP, {"type": "told", "text": "after"})
        if not await socket.receive_nothing(timeout=0.2):
            break
    heard = await socket.receive_output()
    if heard["type"] == "websocket.close":
        assert heard["code"] == RESTART_CODE
        await socket.disconnect(code=RESTART_CODE)
        return
    assert heard == {"type": "websocket.send", "text": "after"}
    await asyncio.sleep(NOTICED)
    while not await socket.receive_nothing(timeout=0.1):  # late copies of "after", no close
        assert (await socket.receive_output())["type"] == "websocket.send"
    await socket.disconnect()
