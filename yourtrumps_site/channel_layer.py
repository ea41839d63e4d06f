"""channels-redis's layer on a bounded connection pool that waits instead of failing.

channels-redis 4.3 builds each host's pool with ``redis.asyncio.ConnectionPool``, which redis-py 8
caps at 100 connections and which raises ``MaxConnectionsError`` the moment they are all in use:
a mass disconnect (every socket of a process calling ``group_discard`` at once) failed that way.
A ``BlockingConnectionPool`` of the same size makes the extra callers wait for a free connection
instead; each layer command holds one for a round trip (the blocking read at most
``brpop_timeout``, 5 s), so the wait is short. The host's keyword arguments are passed on as
before: ``max_connections`` and ``timeout`` (the longest wait for a connection) size the pool, the
rest configure its connections.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class PooledRedisChannelLayer(RedisChannelLayer):  # type: ignore[misc]
    """``RedisChannelLayer`` whose per-host pools wait for a free connection when all are busy."""

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host: dict[str, Any] = dict(self.hosts[index])
        if "address" not in host:
            raise ValueError("PooledRedisChannelLayer needs each host as {'address': url, ...}")
        return BlockingConnectionPool.from_url(host.pop("address"), **host)
