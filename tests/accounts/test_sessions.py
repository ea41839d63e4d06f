"""Sessions (Django's database sessions): what a logged-in player relies on, on a page and on a
game's socket."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from game.services.starting import game_create_seek, game_join
from yourtrumps_site.asgi import application

pytestmark = pytest.mark.django_db


def _page_user(client):
    return client.get(reverse("game:lobby")).context["user"]


def test_a_logged_in_player_stays_logged_in_from_page_to_page(client, alice):
    client.force_login(alice)
    assert _page_user(client) == alice
    assert _page_user(client) == alice


def test_an_expired_session_is_a_visitor(client, alice):
    client.force_login(alice)
    key = client.cookies["sessionid"].value
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(1))
    assert not _page_user(client).is_authenticated


def test_a_logged_out_session_is_a_visitor(client, alice):
    client.force_login(alice)
    client.post(reverse("accounts:logout"))
    assert not _page_user(client).is_authenticated


@pytest.mark.django_db(transaction=True)
async def test_a_socket_knows_its_player_by_the_session_and_not_once_it_expires(alice, bob):
    def setup():
        seek = game_create_seek(user=alice, trump="S")
        game = game_join(game_id=seek.pk, user=bob, trump="H")
        client = Client()
        client.force_login(alice)
        return game, client.cookies["sessionid"].value

    game, key = await sync_to_async(setup)()

    async def seat_shown() -> str:
        headers = [(b"origin", b"http://localhost"), (b"cookie", f"sessionid={key}".encode())]
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers)
        connected, _ = await socket.connect(timeout=10)
        assert connected
        html = await socket.receive_from(timeout=10)
        await socket.disconnect()
        return html

    assert "Offer a draw" in await seat_shown()  # a player's actions: alice is seated
    expired = timezone.now() - timedelta(1)
    await Session.objects.filter(session_key=key).aupdate(expire_date=expired)
    assert "Offer a draw" not in await seat_shown()  # a visitor watching
