"""The pool's socket (``game.consumers.lobby.PoolConsumer``): two players choosing the same time
control are both sent the new table; the range widens as one waits; closing the socket leaves the
pool."""

import json

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from accounts.models import Rating
from accounts.ratings import Speed
from game import pool
from game.consumers.sockets import BANNED_CODE, LOGIN_NEEDED_CODE
from game.models import Game, PoolEntry
from game.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)
application = URLRouter(websocket_urlpatterns)


@database_sync_to_async
def player(name, rating=None, active=True):
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-123", is_active=active)
    if rating is not None:
        Rating.objects.create(
            user=user, speed=Speed.BLITZ, rating=rating, deviation=60, rated_at=timezone.now()
        )
    return user


async def pool_socket(user):
    communicator = WebsocketCommunicator(application, "/ws/pool/")
    communicator.scope["user"] = user
    connected, code = await communicator.connect()
    return communicator, connected, code


async def entered(user, clock="3+2", rated=True):
    socket, connected, _ = await pool_socket(user)
    assert connected
    await socket.send_to(text_data=json.dumps({"clock": clock, "rated": rated}))
    return socket


async def answer(socket, timeout=5):
    return json.loads(await socket.receive_from(timeout=timeout))


entries = database_sync_to_async(lambda: list(PoolEntry.objects.values_list("user_id", flat=True)))


async def test_two_players_choosing_the_same_time_control_are_both_sent_the_new_table():
    alice, bob = await player("alice"), await player("bob")
    first = await entered(alice)
    assert await answer(first) == {"status": "Looking for an opponent rated 1400 to 1600…"}
    second = await entered(bob)
    url = (await answer(second))["url"]
    assert await answer(first) == {"url": url}
    game = await database_sync_to_async(Game.objects.get)()
    assert url == game.get_absolute_url()
    assert (game.seat0_id, game.seat1_id, game.status) == (alice.pk, bob.pk, "active")
    assert (game.clock_initial, game.clock_increment, game.rated) == (180, 2, True)
    assert await entries() == []
    for socket in (first, second):
        await socket.disconnect()


async def test_a_casual_choice_makes_a_casual_game():
    alice, bob = await player("alice"), await player("bob")
    first = await entered(alice, "1+1", rated=False)
    await answer(first)
    second = await entered(bob, "1+1", rated=False)
    await answer(second)
    game = await database_sync_to_async(Game.objects.get)()
    assert (game.clock_initial, game.rated) == (60, False)
    for socket in (first, second):
        await socket.disconnect()


async def test_the_range_shown_widens_each_second_until_the_two_are_paired(monkeypatch):
    monkeypatch.setattr(pool, "RANGE_GROWTH", 100)  # 300 apart: paired after 2 s or 3
    low, high = await player("low", 1500), await player("high", 1800)
    first, second = await entered(low), await entered(high)
    assert await answer(first) == {"status": "Looking for an opponent rated 1400 to 1600…"}
    assert await answer(second) == {"status": "Looking for an opponent rated 1700 to 1900…"}
    heard = [await answer(first)]
    while "url" not in heard[-1]:
        heard.append(await answer(first))
    assert {"status": "Looking for an opponent rated 1300 to 1700…"} in heard  # after a second
    assert len(heard) <= 7  # asked again every half second to a second, paired after 2 to 3 s
    url = heard[-1]["url"]
    while "url" not in (last := await answer(second)):
        pass
    assert last == {"url": url}
    for socket in (first, second):
        await socket.disconnect()


async def test_closing_the_socket_leaves_the_pool():
    alice = await player("alice")
    socket = await entered(alice)
    await answer(socket)
    assert await entries() == [alice.pk]
    await socket.disconnect()
    assert await entries() == []


async def test_a_second_page_takes_the_first_ones_place_and_the_first_is_told():
    alice = await player("alice")
    first = await entered(alice)
    await answer(first)
    second = await entered(alice, "5+3")
    await answer(second)
    assert await answer(first) == {"error": "You are looking for an opponent on another page."}
    assert (await first.receive_output(timeout=5))["type"] == "websocket.close"
    assert await entries() == [alice.pk]
    await second.disconnect()


async def test_a_frame_without_a_time_control_offered_is_refused_and_the_socket_closed():
    alice = await player("alice")
    for frame in ("hello", json.dumps({"clock": "15+10"})):
        socket, _, _ = await pool_socket(alice)
        await socket.send_to(text_data=frame)
        assert "error" in await answer(socket)
        assert (await socket.receive_output(timeout=5))["type"] == "websocket.close"
    assert await entries() == []


async def test_a_visitor_must_log_in_and_a_banned_player_is_refused():
    _, connected, code = await pool_socket(AnonymousUser())
    assert (connected, code) == (False, LOGIN_NEEDED_CODE)
    _, connected, code = await pool_socket(await player("banned", active=False))
    assert (connected, code) == (False, BANNED_CODE)
