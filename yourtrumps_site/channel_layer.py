"""The channel layers: Channels' in-memory one for a single process, channels-redis's for several.

**In memory.** Channels' layer sweeps every channel's queue and every group's members for expired
entries on each send and receive: with the 1,000 sockets of 500 games, three sweeps of thousands
of entries per move, 6% of the server's time at 100 games and growing with the square of the
crowd. :class:`EmbeddedChannelLayer` sweeps at most once a second; an expired message or
membership lives at most that much longer (messages expire after a minute, memberships a day).

**Redis.** channels-redis 4.3 builds each host's pool with ``redis.asyncio.ConnectionPool``,
which redis-py 8 caps at 100 connections and which raises ``MaxConnectionsError`` the moment they
are all in use: a mass disconnect (every socket of a process calling ``group_discard`` at once)
failed that way. A ``BlockingConnectionPool`` of the same size makes the extra callers wait for a
free connection instead; each layer command holds one for a round trip (the blocking read at most
``brpop_timeout``, 5 s), so the wait is short. The host's keyword arguments are passed on as
before: ``max_connections`` and ``timeout`` (the longest wait for a connection) size the pool,
the rest configure its connections.
"""

from __future__ import annotations

import time
from typing import Any

from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


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


class PooledRedisChannelLayer(RedisChannelLayer):  # type: ignore[misc]
    """``RedisChannelLayer`` whose per-host pools wait for a free connection when all are busy."""

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host: dict[str, Any] = dict(self.hosts[index])
        if "address" not in host:
            raise ValueError("PooledRedisChannelLayer needs each host as {'address': url, ...}")
        return BlockingConnectionPool.from_url(host.pop("address"), **host)
