"""Django's ASGI handler, with a bound on how many requests run their views at once.

Under ASGI, Django runs each request's middleware and view in a thread of that request's own
(asgiref gives every request context a one-thread executor), so a crowd of a thousand requests
is a thousand threads fighting for one GIL. The request that holds SQLite's write lock then waits
its turn at the GIL behind all of them at every statement, and every writer behind it waits
longer still: at 500 games starting at once, writers waited past SQLite's 20 s limit and the
seeks and joins failed with HTTP 500. Here at most ``HTTP_THREADS`` requests run their view at a
time; the others wait on the event loop, which costs nothing, in the order they came. (Only on
SQLite by default: on PostgreSQL a request mostly waits on the database and Redis, and a bound
only queues it; see the settings.)
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIHandler


class BoundedASGIHandler(ASGIHandler):
    """:class:`ASGIHandler` running at most ``settings.HTTP_THREADS`` views at a time (any
    number when it is 0)."""

    def __init__(self) -> None:
        super().__init__()
        bound = settings.HTTP_THREADS
        self._views = asyncio.Semaphore(bound) if bound > 0 else contextlib.nullcontext()

    async def run_get_response(self, request: Any) -> Any:
        async with self._views:
            return await super().run_get_response(request)


def get_asgi_application() -> BoundedASGIHandler:
    """:func:`django.core.asgi.get_asgi_application`, with the bounded handler."""
    import django

    django.setup(set_prefix=False)
    return BoundedASGIHandler()
