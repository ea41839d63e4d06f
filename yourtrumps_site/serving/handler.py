"""Django's ASGI handler, with a bound on how many requests run at once, on threads kept for reuse.

Under ASGI, Django runs each request's middleware and view in a thread of that request's own
(asgiref gives every request context a one-thread executor), so a crowd of a thousand requests
is a thousand threads fighting for one GIL. The request that holds SQLite's write lock then waits
its turn at the GIL behind all of them at every statement, and every writer behind it waits
longer still: at 500 games starting at once, writers waited past SQLite's 20 s limit and the
seeks and joins failed with HTTP 500. Here at most ``HTTP_THREADS`` requests run at a time; the
others wait on the event loop, which costs nothing, in the order they came. (Only on SQLite by
default: on PostgreSQL a request mostly waits on the database and Redis, and a bound only queues
it; see the settings.)

A request is served in one trip to its thread (the request-started signal, the middleware and
view, the closing of its answer), as a WSGI server would run them. Django's own ASGI chain runs
async-capable middleware on the event loop and crosses to the thread and back around the sync
parts: with this site's chain, seven crossings per request against one here, each one waiting its
turn on a busy loop.

What the request publishes for the live pages (a turn's new version, a chat line) is kept
until it has its response and sent from the loop then, as a socket's turn is: sending from the
thread held it while it crossed to the loop and back. The site names the two functions that do
it in ``settings.SERVING_HELD_MESSAGES`` (``game.live.held_messages`` and ``send_held``), loaded
by name as Django loads middleware: this package imports no app.

With ``SERVER_TIMING`` on (the default with ``DEBUG``), every answer says in a ``Server-Timing``
header where its time went in here: waiting for a free slot (``queue``), reading its body and
waiting for its thread to take it up (``thread``), in the middleware and view (``view``), and
sending what it published (``publish``). Whatever a client waited beyond their sum was spent
outside this handler: in the server's own HTTP work, on the way, or in the client. ``manage.py
loadtest`` reads them.

The request's thread is also kept for the next one. asgiref starts it for each request, and a
second thread to join it when the request ends; the event loop waits in each ``Thread.start``
until the new thread holds the GIL, which under a crowd is behind every busy thread: with 500
games moving through the table's POSTs, the loop spent a quarter of its time there.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.urls import set_script_prefix
from django.utils.module_loading import import_string

#: A message a request published, held until it has its answer: (group, message).
Message = tuple[str, dict[str, Any]]

#: Idle request threads kept when there is no bound (with one, as many as it allows).
KEEP_UNBOUNDED = 64


class Timing:
    """When a request reached each step in here (``time.perf_counter`` seconds), for its
    ``Server-Timing`` header."""

    __slots__ = ("admitted", "arrived", "published", "served", "started")

    #: Each part of the header: its name, and the steps it lies between.
    PARTS = (
        ("queue", "arrived", "admitted"),
        ("thread", "admitted", "started"),
        ("view", "started", "served"),
        ("publish", "served", "published"),
    )

    def __init__(self) -> None:
        self.arrived = self.admitted = time.perf_counter()
        self.started = self.served = self.published = self.arrived

    def header(self) -> str:
        """``queue;dur=0.1, thread;dur=0.4, view;dur=2.3, publish;dur=0.2``, in milliseconds."""
        return ", ".join(
            f"{name};dur={1000 * (getattr(self, end) - getattr(self, start)):.1f}"
            for name, start, end in self.PARTS
        )


class RequestThreads:
    """One-thread executors lent to requests, one at a time each, and kept for the next request
    up to ``keep`` idle ones. Used on the event loop only, so it needs no lock."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._idle: list[ThreadPoolExecutor] = []

    def lend(self) -> ThreadPoolExecutor:
        if self._idle:
            return self._idle.pop()
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="http")

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        if len(self._idle) < self.keep:
            self._idle.append(executor)
        else:
            executor.shutdown(wait=False)  # its thread ends after its work; nobody waits for it


class BoundedASGIHandler(ASGIHandler):
    """:class:`ASGIHandler` running at most ``settings.HTTP_THREADS`` requests at a time (any
    number when it is 0), each on a thread kept from an earlier request where one is idle, its
    middleware and view in one trip to that thread."""

    def __init__(self) -> None:
        super().__init__()
        self._timed = settings.SERVER_TIMING
        bound = settings.HTTP_THREADS
        self._requests = asyncio.Semaphore(bound) if bound > 0 else contextlib.nullcontext()
        self._threads = RequestThreads(bound if bound > 0 else KEEP_UNBOUNDED)
        hold, send = settings.SERVING_HELD_MESSAGES
        self._hold_messages = import_string(hold)
        self._send_held = import_string(send)

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)  # the whole chain runs in the request's thread

    async def handle(
        self, scope: dict[str, Any], receive: Any, send: Any, timing: Timing | None = None
    ) -> None:
        """Serve one request in one trip to its thread: the request-started signal, the
        middleware and view and, for an answer already whole, its closing (Django crosses three
        times and runs two tasks, one to hear of a disconnect that could not stop a view in a
        thread anyway). What the request published is sent before its answer."""
        timing = timing or Timing()
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        messages: list[Message] = []
        try:
            response = await sync_to_async(self._serve, thread_sensitive=True)(
                scope, body_file, messages, timing
            )
        finally:  # what the request published on commit, sent from here
            await self._send_held(messages)
        if self._timed:
            timing.published = time.perf_counter()
            response.headers["Server-Timing"] = timing.header()
        try:
            await self.send_response(response, send)
        finally:
            if response.streaming:  # closed once its iterator is spent, in the thread again
                await sync_to_async(response.close, thread_sensitive=True)()
            body_file.close()

    def _serve(
        self, scope: dict[str, Any], body_file: Any, messages: list[Message], timing: Timing
    ) -> Any:
        timing.started = time.perf_counter()
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            with self._hold_messages(messages):
                response = self.get_response(request)
            # The request's messages storage, lazy user, htmx details and upload handlers point
            # back at it: some 60 objects a request that only the cycle collector would free,
            # which under a crowd of POSTs stopped the process 30-120 ms every 2 s. Emptied once
            # the response is closed (Django closes the request first), they go by reference
            # counting.
            response._resource_closers.append(request.__dict__.clear)
        if not response.streaming:  # its bytes are all there: what closing frees is done with
            response.close()
        timing.served = time.perf_counter()
        return response

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)  # refuses it
            return
        timing = Timing()
        async with self._requests:
            timing.admitted = time.perf_counter()
            executor = self._threads.lend()
            try:
                async with ThreadSensitiveContext(executor=executor):
                    await self.handle(scope, receive, send, timing)
            finally:
                self._threads.give_back(executor)


def get_asgi_application() -> BoundedASGIHandler:
    """:func:`django.core.asgi.get_asgi_application`, with the bounded handler."""
    import django

    django.setup(set_prefix=False)
    return BoundedASGIHandler()
