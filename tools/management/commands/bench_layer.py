"""``manage.py bench_layer``: a burst of group messages through the Redis channel layer.

One layer (a process of ``make serve``) sends ``--messages`` group messages at once, as a crowd's
turns are published, to a group a second layer (the other process) listens to; it prints how
long until Redis had them all and until the other layer received them all, for channels-redis's
pub/sub layer as it comes (one message at a time, each waiting for the one before) and for the
site's (:class:`yourtrumps_site.serving.channel_layer.RedisChannelLayer`: those waiting go
together), in turns. A benchmark: it prints figures and judges nothing; it needs ``REDIS_URL``,
and leaves nothing in Redis.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from argparse import ArgumentParser
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from yourtrumps_site.serving.channel_layer import RedisChannelLayer


async def _burst(layer_class: type[RedisPubSubChannelLayer], count: int) -> tuple[float, float]:
    """Seconds until ``count`` group messages sent at once were all sent, and all received."""
    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    prefix = f"bench-{uuid.uuid4().hex}"
    sender, receiver = layer_class(**config, prefix=prefix), layer_class(**config, prefix=prefix)
    try:
        channel = await receiver.new_channel()
        await receiver.group_add("game", channel)
        await sender.group_send("game", {"type": "game.changed", "version": 0})  # connected
        await receiver.receive(channel)
        started = time.perf_counter()
        await asyncio.gather(
            *(
                sender.group_send("game", {"type": "game.changed", "version": n})
                for n in range(count)
            )
        )
        sent = time.perf_counter() - started
        for _ in range(count):
            await receiver.receive(channel)
        return sent, time.perf_counter() - started
    finally:
        await sender.flush()
        await receiver.flush()


class Command(BaseCommand):
    help = "Time a burst of group messages through the Redis channel layer, before and after."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--messages", type=int, default=1000)
        parser.add_argument("--rounds", type=int, default=3)

    def handle(self, *args: Any, **options: Any) -> None:
        if "hosts" not in settings.CHANNEL_LAYERS["default"].get("CONFIG", {}):
            raise CommandError("set REDIS_URL: the in-memory layer makes no round trips to time")
        count = options["messages"]
        for round_ in range(1, options["rounds"] + 1):
            for name, layer_class in (
                ("channels-redis", RedisPubSubChannelLayer),
                ("the site's", RedisChannelLayer),
            ):
                sent, received = asyncio.run(_burst(layer_class, count))
                self.stdout.write(
                    f"round {round_}, {name} layer: {count} messages sent in "
                    f"{1000 * sent:.1f} ms, all received in {1000 * received:.1f} ms"
                )
