"""The site's ASGI handler runs at most ``HTTP_THREADS`` requests at once (any number for 0),
answers every one in the order it came, and runs them on threads kept from request to request."""

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async
from django.http import HttpResponse
from django.test import override_settings

from yourtrumps_site.asgi import application
from yourtrumps_site.handler import BoundedASGIHandler


async def _ask(handler: BoundedASGIHandler, path: str, admitted: list[str]) -> bytes:
    """One GET through the handler as Daphne would make it: the answer's body. Its path joins
    ``admitted`` when the handler starts on it (reading its body)."""
    scope = {
        "type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
        "query_string": b"", "headers": [], "server": ("127.0.0.1", 8000), "scheme": "http",
        "client": ("127.0.0.1", 50000), "root_path": "", "http_version": "1.1",
    }  # fmt: skip
    request_sent = False
    body = []

    async def receive():
        nonlocal request_sent
        if not request_sent:
            request_sent = True
            admitted.append(path)
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client stays connected

    async def send(message):
        if message["type"] == "http.response.body":
            body.append(message.get("body", b""))

    await handler(scope, receive, send)
    return b"".join(body)


@pytest.mark.parametrize(("bound", "at_once"), [(2, 2), (0, 10)])  # 0: no bound
async def test_a_crowd_of_requests_runs_a_few_at_a_time_on_threads_kept(
    monkeypatch, bound, at_once
):
    running, most, admitted, threads = 0, 0, [], set()

    def view(request):
        threads.add(threading.current_thread())  # kept alive: never the same twice
        return HttpResponse(f"answer {request.path}")

    async def get_response_async(self, request):
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.01)
        response = await sync_to_async(view)(request)  # on the request's thread, as views run
        running -= 1
        return response

    monkeypatch.setattr(BoundedASGIHandler.__mro__[1], "get_response_async", get_response_async)
    with override_settings(HTTP_THREADS=bound):
        handler = BoundedASGIHandler()
    paths = [f"/{n}/" for n in range(10)]
    answers = await asyncio.gather(*(_ask(handler, path, admitted) for path in paths))
    assert most == at_once
    assert admitted == paths  # first come, first served
    assert answers == [f"answer {path}".encode() for path in paths]
    assert len(threads) == at_once  # each ran on a thread kept from an earlier request, if idle
    again = await _ask(handler, "/again/", admitted)
    assert again == b"answer /again/" and len(threads) == at_once


def test_the_site_serves_http_through_the_bounded_handler():
    assert isinstance(application.application_mapping["http"], BoundedASGIHandler)
