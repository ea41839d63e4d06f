"""The external services, when the environment names them (as .ci/run does)."""

import os
import uuid

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.db import connection

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


@needs_redis
async def test_redis_channel_layer_round_trips_a_group_message() -> None:
    config = settings.CHANNEL_LAYERS["default"]
    assert config["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    layer = RedisChannelLayer(**config["CONFIG"], prefix=f"test-{uuid.uuid4().hex}")
    try:
        channel = await layer.new_channel()
        await layer.group_add("table", channel)
        await layer.group_send("table", {"type": "game.changed", "version": 3})

        assert await layer.receive(channel) == {"type": "game.changed", "version": 3}
    finally:
        await layer.flush()
        await layer.close_pools()
