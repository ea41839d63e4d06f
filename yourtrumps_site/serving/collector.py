"""Python's garbage collector, set for a crowd's long-lived objects (sockets, their consumers,
the games a process keeps), once the server has started (``yourtrumps_site.asgi``).

With the default thresholds a full collection every 5 s stopped every socket for 50 to 400 ms.
So what start-up made is frozen out of the collector's reach, and young objects are collected
fourteen times less often than by default. Full collections are not made rarer still: a closed
socket's Twisted and Daphne objects hold each other in cycles and live as long as their game,
and only a full one frees them (about 40 KB a game ended were never freed). A full collection
may follow every tenth young one (Python makes one only once the objects promoted since the
last are a quarter of those it kept): under 200 games of 20 plies, one every 30 s or so, of 80
to 140 ms (``docs/load.md``).
"""

from __future__ import annotations

import gc

#: ``gc.set_threshold``'s three: young objects made before a collection of them, then how many
#: of those before one of the middle generation, and of those before a full one (0: as Python
#: decides, by the share of objects promoted).
THRESHOLDS = (10_000, 10, 0)


def tune() -> None:
    """Freeze what this process has made so far and set :data:`THRESHOLDS`."""
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
