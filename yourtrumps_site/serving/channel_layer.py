"""The in-memory channel layer of a single process, sweeping less often (several processes use
channels-redis's pub/sub layer as shipped: ``settings.channel_layers_config``).

Channels' layer sweeps every channel's queue and every group's members for expired
entries on each send and receive: with the 1,000 sockets of 500 games, three sweeps of thousands
of entries per move, 6% of the server's time at 100 games and growing with the square of the
crowd. :class:`EmbeddedChannelLayer` sweeps at most once a second; an expired message or
membership lives at most that much longer (messages expire after a minute, memberships a day).
"""

from __future__ import annotations

import time

from channels.layers import InMemoryChannelLayer


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
