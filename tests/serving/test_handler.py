"""The site's ASGI handler runs at most ``HTTP_THREADS`` requests at once (any number for 0),
answers every one in the order it came, and runs them on threads kept from request to request."""

import asyncio
import gc
import threading
import time

import pytest
from asgiref.sync import AsyncToSync, SyncToAsync
from channels.layers import get_channel_layer
from django.contrib import messages
from django.core.signals import request_finished, request_started
from django.db import transaction
from django.http import HttpResponse, StreamingHttpResponse
from django.test import override_settings
from django.urls import path

from game.live import send_after_commit
from tools.loadtest.figures import server_timing
from yourtrumps_site.asgi import application
from yourtrumps_site.serving.handler import BoundedASGIHandler


async def _ask(
    handler: BoundedASGIHandler,
    path: str,
    admitted: list[str],
    headers: dict[bytes, bytes] | None = None,
) -> bytes:
    """One GET through the handler as Daphne would make it: the answer's body (and its
    ``headers``, when given a dict to fill). Its path joins ``admitted`` when the handler starts
    on it (reading its body). As Daphne does, the client is reported gone as soon as its answer
    is finished."""
    scope = {
        "type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
        "query_string": b"", "headers": [], "server": ("127.0.0.1", 8000), "scheme": "http",
        "client": ("127.0.0.1", 50000), "root_path": "", "http_version": "1.1",
    }  # fmt: skip
    request_sent = False
    body = []
    finished = asyncio.Event()

    async def receive():
        nonlocal request_sent
        if not request_sent:
            request_sent = True
            admitted.append(path)
            return {"type": "http.request", "body": b"", "more_body": False}
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start" and headers is not None:
            headers.update(message["headers"])
        if message["type"] == "http.response.body":
            body.append(message.get("body", b""))
            if not message.get("more_body", False):
                finished.set()

    await handler(scope, receive, send)
    return b"".join(body)


@pytest.mark.parametrize(("bound", "at_once"), [(2, 2), (0, 10)])  # 0: no bound
async def test_a_crowd_of_requests_runs_a_few_at_a_time_on_threads_kept(bound, at_once):
    running, most, admitted, threads = 0, 0, [], set()
    lock = threading.Lock()
    # Each request waits for the others the bound lets run beside it (a sleep raced the threads'
    # start on a busy machine); one more running at once than the bound would show in ``most``.
    together = threading.Barrier(at_once)

    def get_response(request):  # the middleware and the view, on the request's thread
        nonlocal running, most
        threads.add(threading.current_thread())  # kept alive: never the same twice
        with lock:
            running += 1
            most = max(most, running)
        if together is not None:
            together.wait(timeout=10)
        with lock:
            running -= 1
        return HttpResponse(f"answer {request.path}")

    with override_settings(HTTP_THREADS=bound):
        handler = BoundedASGIHandler()
    handler.get_response = get_response
    paths = [f"/{n}/" for n in range(10)]
    answers = await asyncio.gather(*(_ask(handler, path, admitted) for path in paths))
    assert most == at_once
    assert admitted == paths  # first come, first served
    assert answers == [f"answer {path}".encode() for path in paths]
    assert len(threads) == at_once  # each ran on a thread kept from an earlier request, if idle
    together = None
    again = await _ask(handler, "/again/", admitted)
    assert again == b"answer /again/" and len(threads) == at_once


def _page(request):
    request.session["seen"] = True  # the session and user middleware have work to do
    with transaction.atomic():  # as a service publishes a change for the live pages
        send_after_commit("viewers", {"type": "page.viewed", "path": request.path})
    return HttpResponse(f"page for {request.user}")


def _message_page(request):
    messages.info(request, "seen")  # the request's messages storage points back at it
    return HttpResponse(f"page for {request.user} by {request.htmx.target}")


async def _parts():
    yield b"part one, "
    yield b"part two"


def _streamed_page(request):
    return StreamingHttpResponse(_parts())


SLOW_VIEW_SECONDS = 0.02


def _slow_page(request):
    time.sleep(SLOW_VIEW_SECONDS)
    return HttpResponse("slow")


urlpatterns = [
    path("page/", _page),
    path("slow/", _slow_page),
    path("message/", _message_page),
    path("streamed/", _streamed_page),
]


@pytest.mark.django_db(transaction=True)
@override_settings(ROOT_URLCONF=__name__)
async def test_a_request_crosses_from_loop_to_thread_once_not_per_middleware(
    monkeypatch,
):
    layer = get_channel_layer()
    viewer = await layer.new_channel()
    await layer.group_add("viewers", viewer)
    crossings = []
    for bridge in (SyncToAsync, AsyncToSync):
        cross = bridge.__call__

        def counted(self, *args, _cross=cross, **kwargs):
            crossings.append(self)
            return _cross(self, *args, **kwargs)

        monkeypatch.setattr(bridge, "__call__", counted)
    handler = BoundedASGIHandler()
    assert await _ask(handler, "/page/", []) == b"page for AnonymousUser"
    # The request_started signal, the middleware and view, closing the response, all in one
    # trip: with Django's own ASGI chain of the site's middleware, 7, and one more for what the
    # view published.
    assert len(crossings) == 1
    heard = await asyncio.wait_for(layer.receive(viewer), 1)
    assert heard == {"type": "page.viewed", "path": "/page/"}


def test_the_site_serves_http_through_the_bounded_handler():
    assert isinstance(application.application_mapping["http"], BoundedASGIHandler)


@pytest.mark.django_db(transaction=True)
@override_settings(ROOT_URLCONF=__name__)
async def test_an_answered_request_is_freed_without_the_cycle_collector():
    handler = BoundedASGIHandler()
    await _ask(handler, "/message/", [])  # imports and caches warmed up
    gc.collect()
    gc.disable()
    try:
        answer = await _ask(handler, "/message/", [])
        gc.set_debug(gc.DEBUG_SAVEALL)  # what only the collector could free stays in gc.garbage
        gc.collect()
        left = {type(thing).__name__ for thing in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert answer == b"page for AnonymousUser by None"
    # Neither the request and what hangs on it, nor the disconnect Daphne reports once the
    # answer is finished (as an exception, its traceback held the request's frames).
    assert not left & {"ASGIRequest", "FallbackStorage", "RequestAborted", "traceback"}


@pytest.mark.django_db(transaction=True)
@override_settings(ROOT_URLCONF=__name__)
@pytest.mark.parametrize(
    ("path", "answer"),
    [("/page/", b"page for AnonymousUser"), ("/streamed/", b"part one, part two")],
)
async def test_each_request_starts_and_finishes_once_in_its_thread(path, answer):
    """Django's signals around a request (connections are closed when stale on both) come once
    each, in the request's thread; a streamed answer finishes only once it is all sent."""
    heard = []

    def started(**kwargs):
        heard.append(("started", threading.current_thread()))

    def finished(**kwargs):
        heard.append(("finished", threading.current_thread()))

    request_started.connect(started)
    request_finished.connect(finished)
    try:
        assert await _ask(BoundedASGIHandler(), path, []) == answer
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)
    assert [what for what, _thread in heard] == ["started", "finished"]
    assert heard[0][1] is heard[1][1] is not threading.main_thread()


@pytest.mark.django_db(transaction=True)
@override_settings(ROOT_URLCONF=__name__)
async def test_an_answer_says_where_its_time_went_in_the_handler():
    """The ``Server-Timing`` header's parts follow each other, so the view's share is at least
    the time the view itself took."""
    with override_settings(SERVER_TIMING=True):
        handler = BoundedASGIHandler()
    headers = {}
    assert await _ask(handler, "/slow/", [], headers) == b"slow"
    parts = server_timing(headers[b"Server-Timing"].decode())
    assert list(parts) == ["queue", "thread", "view", "publish"]
    assert all(seconds >= 0 for seconds in parts.values())
    assert parts["view"] >= SLOW_VIEW_SECONDS


@pytest.mark.django_db(transaction=True)
@override_settings(ROOT_URLCONF=__name__, SERVER_TIMING=False)
async def test_without_server_timing_an_answer_says_nothing_of_the_server():
    headers = {}
    assert await _ask(BoundedASGIHandler(), "/slow/", [], headers) == b"slow"
    assert b"Server-Timing" not in headers
