"""The external services, when the environment names them (as .ci/run does)."""

import asyncio
import os
import threading
import uuid

import pytest
from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.db import connection, connections
from django.utils.module_loading import import_string
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from yourtrumps_site.settings import channel_layers_config

needs_postgres = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL"),
    reason="DATABASE_URL is not set: the tests use the embedded SQLite database",
)
needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="REDIS_URL is not set: the site uses the in-memory channel layer",
)


@needs_postgres
@pytest.mark.django_db
def test_default_database_is_postgresql_and_answers_a_query() -> None:
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 + 1")
        assert cursor.fetchone() == (2,)


@needs_postgres
@pytest.mark.django_db
def test_postgresql_connections_are_pooled_so_threads_cannot_exhaust_the_server() -> None:
    """Three times as many threads as the pool holds, each querying at once: all are answered,
    on no more connections than the pool's size (without a pool, each opened its own)."""
    size = connection.settings_dict["OPTIONS"]["pool"]["max_size"]
    backends: set[int] = set()
    failures: list[BaseException] = []
    start = threading.Barrier(3 * size)

    def query() -> None:
        try:
            start.wait(timeout=10)
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid() FROM pg_sleep(0.05)")
                backends.add(cursor.fetchone()[0])
        except BaseException as error:  # reported below, in the test's thread
            failures.append(error)
        finally:
            connections["default"].close()  # back to the pool

    threads = [threading.Thread(target=query) for _ in range(3 * size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert 1 <= len(backends) <= size


def redis_layer(prefix: str | None = None) -> RedisPubSubChannelLayer:
    """The configured channel layer, on channels of its own (``prefix``); two layers with the
    same prefix are two processes of one site."""
    config = settings.CHANNEL_LAYERS["default"]
    layer_class = import_string(config["BACKEND"])
    assert issubclass(layer_class, RedisPubSubChannelLayer)
    return layer_class(**config["CONFIG"], prefix=prefix or f"test-{uuid.uuid4().hex}")


@needs_redis
async def test_redis_channel_layer_round_trips_a_group_message() -> None:
    layer = redis_layer()
    try:
        channel = await layer.new_channel()
        await layer.group_add("table", channel)
        await layer.group_send("table", {"type": "game.changed", "version": 3})

        assert await layer.receive(channel) == {"type": "game.changed", "version": 3}
    finally:
        await layer.flush()


@needs_redis
async def test_a_group_message_reaches_every_socket_of_every_process_in_order() -> None:
    """Two processes (two layers on one site's channels), sockets of a game on both: each gets
    every message published by either, in the order published."""
    prefix = f"test-{uuid.uuid4().hex}"
    here, there = redis_layer(prefix), redis_layer(prefix)
    try:
        sockets = [
            (layer, await layer.new_channel()) for layer in (here, there, there) for _ in (0, 1)
        ]
        for layer, channel in sockets:
            await layer.group_add("game-1", channel)
        for version in range(1, 21):
            sender = here if version % 2 else there
            await sender.group_send("game-1", {"type": "game.changed", "version": version})
        for layer, channel in sockets:
            got = [(await layer.receive(channel))["version"] for _ in range(20)]
            assert got == list(range(1, 21))
    finally:
        await here.flush()
        await there.flush()


@needs_redis
async def test_a_mass_disconnect_leaves_no_subscription_behind() -> None:
    """A thousand sockets of one process join one game's group and leave it at once (a Daphne
    process restarting): every call gets through on the process's one subscribing connection,
    and Redis then counts no subscriber for the group."""
    layer = redis_layer()
    try:
        channels = [await layer.new_channel() for _ in range(1000)]
        await asyncio.gather(*(layer.group_add("game-1", channel) for channel in channels))
        await asyncio.gather(*(layer.group_discard("game-1", channel) for channel in channels))

        group = layer._get_layer()._get_group_channel_name("game-1")
        redis = Redis.from_url(os.environ["REDIS_URL"])
        try:
            assert await redis.pubsub_numsub(group) == [(group.encode(), 0)]
        finally:
            await redis.aclose()
    finally:
        await layer.flush()


@needs_redis
async def test_messages_sent_at_once_arrive_once_each_in_the_order_given() -> None:
    """A crowd's turns published together by one process: another process's socket gets every
    one, once, in the order sent."""
    prefix = f"test-{uuid.uuid4().hex}"
    here, there = redis_layer(prefix), redis_layer(prefix)
    try:
        channel = await there.new_channel()
        await there.group_add("game-1", channel)
        await asyncio.gather(
            *(
                here.group_send("game-1", {"type": "game.changed", "version": version})
                for version in range(300)
            )
        )
        got = [(await there.receive(channel))["version"] for _ in range(300)]
        assert got == list(range(300))
        with pytest.raises(asyncio.TimeoutError):  # and nothing twice
            await asyncio.wait_for(there.receive(channel), timeout=0.2)
    finally:
        await here.flush()
        await there.flush()


async def test_a_sender_hears_when_redis_cannot_take_its_message() -> None:
    """With Redis unreachable, each of the messages sent at once fails to its own sender,
    instead of waiting for ever."""
    config = channel_layers_config("redis://127.0.0.1:9/0")["default"]  # nothing listens on 9
    layer = import_string(config["BACKEND"])(**config["CONFIG"])
    try:
        results = await asyncio.wait_for(
            asyncio.gather(
                *(layer.group_send("game-1", {"type": "game.changed"}) for _ in range(3)),
                return_exceptions=True,
            ),
            timeout=10,
        )
        assert [type(result) for result in results] == [RedisConnectionError] * 3
    finally:
        await layer.flush()
