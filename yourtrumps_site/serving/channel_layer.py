"""The channel layers: Channels' in-memory one for a single process, channels-redis's for several.

**In memory.** Channels' layer sweeps every channel's queue and every group's members for expired
entries on each send and receive: with the 1,000 sockets of 500 games, three sweeps of thousands
of entries per move, 6% of the server's time at 100 games and growing with the square of the
crowd. :class:`EmbeddedChannelLayer` sweeps at most once a second; an expired message or
membership lives at most that much longer (messages expire after a minute, memberships a day).

**Redis.** channels-redis's pub/sub layer (see ``settings.channel_layers_config``), publishing
differently: it sends a process's messages one at a time under the lock of the connection, each
waiting for Redis's answer before the next may go, so that under a crowd they queue behind one
another, a turn for each round trip and each wake of a busy event loop (on ``make serve`` at 500
games, every turn a POST: sending what a POST published took 1.1 ms at the median and 116 to
285 ms at the 99th percentile, the largest part of the POST's tail, and seconds once the host
slowed). :class:`RedisChannelLayer` sends all the messages waiting in one pipeline, in the order
they were given, on the same single connection: one round trip for however many, and each sender
resumes once Redis has taken its message, as before (``manage.py bench_layer``: a burst of 1,000
from one process, on an idle loop, 0.29-0.44 s before, 0.07-0.14 s after).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close, decode_hosts


class EmbeddedChannelLayer(InMemoryChannelLayer):  # type: ignore[misc]
    """``InMemoryChannelLayer`` sweeping expired messages and memberships once a second."""

    #: Seconds between two sweeps.
    sweep_every = 1.0
    _swept_at = float("-inf")

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept_at >= self.sweep_every:
            self._swept_at = now
            super()._clean_expired()


class _Outbox(RedisSingleShardConnection):  # type: ignore[misc]
    """One Redis server's connections (see the module's docstring), its messages sent together:
    those given while a pipeline is out wait for it, then all go in the next one. A single task
    sends, so they reach Redis in the order given, on one connection."""

    def __init__(self, host: dict[str, Any], channel_layer: RedisPubSubLoopLayer) -> None:
        super().__init__(host, channel_layer)
        self._waiting: list[tuple[str, bytes, asyncio.Future[None]]] = []
        self._sender: asyncio.Task[None] | None = None

    async def publish(self, channel: str, message: bytes) -> None:
        taken = asyncio.get_running_loop().create_future()
        self._waiting.append((channel, message, taken))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.ensure_future(self._send_waiting())
        await taken

    async def _send_waiting(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
            error: Exception | None = None
            try:
                self._ensure_redis()  # again after a flush, as a publish does
                async with self._redis.pipeline(transaction=False) as pipe:
                    for channel, message, _taken in batch:
                        pipe.publish(channel, message)
                    await pipe.execute()
            except Exception as failure:  # every sender of the batch hears of it
                error = failure
            for _channel, _message, taken in batch:
                if taken.done():  # its sender was cancelled; the message went all the same
                    continue
                if error is None:
                    taken.set_result(None)
                else:
                    taken.set_exception(error)


class _LoopLayer(RedisPubSubLoopLayer):  # type: ignore[misc]
    """The layer of one event loop, publishing through :class:`_Outbox` connections."""

    def __init__(self, *args: Any, hosts: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, hosts=hosts, **kwargs)
        self._shards = [_Outbox(host, self) for host in decode_hosts(hosts)]


class RedisChannelLayer(RedisPubSubChannelLayer):  # type: ignore[misc]
    """channels-redis's pub/sub layer, each process's messages sent to Redis together."""

    def _get_layer(self) -> _LoopLayer:
        loop = asyncio.get_running_loop()
        layer: _LoopLayer | None = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)  # flushed when its loop closes, as channels-redis does
        return layer
