"""The ASGI application that Daphne serves: Django for HTTP, Channels for websockets.

HTTP requests run their views a few at a time (:mod:`yourtrumps_site.handler`).
Websockets pass the origin check (``ALLOWED_HOSTS``) and get the session's user and their
language (:mod:`yourtrumps_site.socket_language`) before reaching the consumers in
``game.routing`` (in threads of their own, :mod:`yourtrumps_site.socket_threads`); a socket on
any other path is refused cleanly (:class:`yourtrumps_site.sockets.UnknownPathConsumer`).
"""

import gc
import os
import pprint
import random
import time
from functools import partialmethod

from yourtrumps_site.handler import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yourtrumps_site.settings")

# Set up Django before importing anything that may import models (consumers, routing).
django_asgi_app = get_asgi_application()

import autobahn.websocket.protocol  # noqa: E402
import daphne.http_protocol  # noqa: E402
import daphne.ws_protocol  # noqa: E402
from channels.layers import get_channel_layer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from game.routing import websocket_urlpatterns  # noqa: E402
from yourtrumps_site.socket_language import SocketLanguageMiddleware  # noqa: E402
from yourtrumps_site.socket_threads import AuthMiddlewareStack  # noqa: E402
from yourtrumps_site.sockets import UnknownPathConsumer  # noqa: E402

#: The game's routes, then a catch-all that refuses every other path.
websocket_routes = [*websocket_urlpatterns, re_path(r"", UnknownPathConsumer.as_asgi())]

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(SocketLanguageMiddleware(URLRouter(websocket_routes)))
        ),
    }
)

# The channel layer is made now rather than by the first request or socket that publishes: its
# module's imports took 116 ms, on the event loop, so the first visitor after a start waited that
# long (its Server-Timing's ``publish``) and every socket stood still meanwhile.
get_channel_layer()

# A crowd's objects live long (sockets, their consumers, the games kept here) and Python's cycle
# collector scanned them all every few seconds: with 500 games, a full collection every 5 s
# stopped every socket for 50 to 400 ms. What start-up made is frozen out of its reach, and young
# objects are collected seventy times less often, most of them freed meanwhile when their turn's
# work is done (500 games for 60 s: no full collection after start-up, 1.0 s of collections in
# all instead of 3.2 to 4.2 s, 25 MB more memory).
gc.freeze()
gc.set_threshold(50_000, 20, 100)


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
