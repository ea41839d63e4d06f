"""The external services, when the environment names them (as .ci/run does)."""

import asyncio
import os
import threading
import uuid

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.db import connection, connections
from django.utils.module_loading import import_string

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


def redis_layer() -> RedisChannelLayer:
    """The configured channel layer, on keys of its own."""
    config = settings.CHANNEL_LAYERS["default"]
    layer_class = import_string(config["BACKEND"])
    assert issubclass(layer_class, RedisChannelLayer)
    return layer_class(**config["CONFIG"], prefix=f"test-{uuid.uuid4().hex}")


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
        await layer.close_pools()


@needs_redis
async def test_a_mass_disconnect_does_not_run_out_of_redis_connections() -> None:
    """Ten times as many sockets as the pool has connections leave their game's group at once
    (a Daphne process restarting): every one gets through, and the group is then empty."""
    layer = redis_layer()
    sockets = 10 * settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["max_connections"]
    try:
        channels = [await layer.new_channel() for _ in range(sockets)]
        await asyncio.gather(*(layer.group_add("game-1", channel) for channel in channels))
        await asyncio.gather(*(layer.group_discard("game-1", channel) for channel in channels))

        redis = layer.connection(0)
        assert await redis.zcard(layer._group_key("game-1")) == 0
    finally:
        await layer.flush()
        await layer.close_pools()
