"""Daphne's and autobahn's code, patched where a measured figure asked for it (README of this
package). Imported by :mod:`yourtrumps_site.asgi`, before Daphne serves anything."""

import pprint
import random
import time
from functools import partialmethod

import autobahn.websocket.protocol
import daphne.http_protocol
import daphne.ws_protocol


class _Formatted:
    """A value whose ``pprint`` text is made only when it is written out."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __str__(self) -> str:
        return pprint.pformat(self.value)


# Autobahn pretty-prints its forty settings for a debug line on every socket's connection,
# written out or not: a twentieth of a socket's arrival in the server (py-spy, 1,000 sockets
# opening at once). The text is now made only if that line is written; the module's one other
# use of ``pformat``, a ``Timings``' text (tracked only on request), is made at once as before.
autobahn.websocket.protocol.pformat = _Formatted
autobahn.websocket.protocol.Timings.__str__ = lambda timings: pprint.pformat(
    {key: timings[key] for key in timings}
)

# Twisted parses every POSTed form into its request's ``args``, the Content-Type through the
# email package, for nobody: Daphne hands Django the raw body, which Django parses again. That
# was 3% of the embedded server's time with 500 games' turns sent as the table's POSTs (py-spy).
daphne.http_protocol.WebRequest.__init__ = partialmethod(  # type: ignore[method-assign]
    daphne.http_protocol.WebRequest.__init__, parsePOSTFormSubmission=False
)


_open = daphne.ws_protocol.WebSocketProtocol.onOpen


def _open_with_its_own_ping_time(protocol: daphne.ws_protocol.WebSocketProtocol) -> None:
    """Daphne's ``onOpen``, the socket's first ping due somewhere in the ping interval rather than
    one interval after it opened.

    Daphne pings each socket quiet for ``ping_interval`` (20 s) in a sweep over all of them every
    2 s, so the sockets that opened together (a crowd sitting down, every page reconnecting after
    a restart) were pinged together for as long as they stayed quiet: with 1,000 sockets, the
    pings and their pongs stopped the event loop 60-80 ms every 20 s, and the turns relayed
    meanwhile were the slowest of a run."""
    _open(protocol)
    protocol.last_ping = time.time() - random.uniform(0, protocol.server.ping_interval)


daphne.ws_protocol.WebSocketProtocol.onOpen = _open_with_its_own_ping_time  # type: ignore[method-assign]
