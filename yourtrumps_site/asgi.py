"""The ASGI application that Daphne serves: Django for HTTP, Channels for websockets.

HTTP requests run their views a few at a time (:mod:`yourtrumps_site.serving.handler`).
Websockets pass the origin check (``ALLOWED_HOSTS``) and get the session's user and their
language (:mod:`yourtrumps_site.socket_language`) before reaching the consumers in
``game.routing``; a socket on any other path is refused cleanly
(:class:`yourtrumps_site.sockets.UnknownPathConsumer`). On Redis, a socket that would hear nothing
is closed for its page to reconnect (:mod:`yourtrumps_site.serving.layer_watch`); on PostgreSQL, a
restart empties the pool of its dead connections (:mod:`yourtrumps_site.serving.pool_watch`).
The collector is then set for a crowd's long-lived objects
(:mod:`yourtrumps_site.serving.collector`).
"""

import os

from yourtrumps_site.serving.handler import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yourtrumps_site.settings")

# Set up Django before importing anything that may import models (consumers, routing).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.layers import InMemoryChannelLayer, get_channel_layer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import re_path  # noqa: E402

from game.routing import websocket_urlpatterns  # noqa: E402
from yourtrumps_site.serving import collector  # noqa: E402
from yourtrumps_site.serving.layer_watch import LayerWatch  # noqa: E402
from yourtrumps_site.serving.pool_watch import watch_pool  # noqa: E402
from yourtrumps_site.socket_language import SocketLanguageMiddleware  # noqa: E402
from yourtrumps_site.sockets import ForgetQueries, UnknownPathConsumer  # noqa: E402

#: The game's routes, then a catch-all that refuses every other path.
websocket_routes = [*websocket_urlpatterns, re_path(r"", UnknownPathConsumer.as_asgi())]

# The channel layer is made now rather than by the first request or socket that publishes: its
# module's imports took 116 ms, on the event loop, so the first visitor after a start waited that
# long (its Server-Timing's ``publish``) and every socket stood still meanwhile.
layer = get_channel_layer()

sockets = AuthMiddlewareStack(SocketLanguageMiddleware(URLRouter(websocket_routes)))
if settings.DEBUG:
    sockets = ForgetQueries(sockets)
sockets = AllowedHostsOriginValidator(sockets)
if not isinstance(layer, InMemoryChannelLayer):  # one process's own layer loses nothing
    sockets = LayerWatch(sockets)  # outermost: a refusal costs no session read

application = ProtocolTypeRouter({"http": django_asgi_app, "websocket": sockets})

watch_pool()  # on PostgreSQL: after a restart, no dead connection is handed out

collector.tune()  # last: what start-up made is frozen out of the collector's reach
