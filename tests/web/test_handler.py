"""The site's ASGI handler runs at most ``HTTP_THREADS`` views at once (any number for 0), and
every request is still answered, in the order it came."""

import asyncio
from types import SimpleNamespace

import pytest
from django.test import override_settings

from yourtrumps_site.asgi import application
from yourtrumps_site.handler import BoundedASGIHandler


@pytest.mark.parametrize(("bound", "at_once"), [(2, 2), (0, 10)])  # 0: no bound
async def test_a_crowd_of_requests_runs_a_few_views_at_a_time(monkeypatch, bound, at_once):
    running, most, started = 0, 0, []

    async def view(self, request):
        nonlocal running, most
        started.append(request)
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.01)
        running -= 1
        return SimpleNamespace(text=f"answer {request}")

    monkeypatch.setattr(BoundedASGIHandler.__mro__[1], "get_response_async", view)
    with override_settings(HTTP_THREADS=bound):
        handler = BoundedASGIHandler()
    answers = await asyncio.gather(*(handler.run_get_response(n) for n in range(10)))
    assert most == at_once
    assert started == list(range(10))  # first come, first served
    assert [answer.text for answer in answers] == [f"answer {n}" for n in range(10)]


def test_the_site_serves_http_through_the_bounded_handler():
    assert isinstance(application.application_mapping["http"], BoundedASGIHandler)
