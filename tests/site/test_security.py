"""Bad input gets a clear answer, never a 500; the headers that keep pages to their own scripts.

An unknown id is a 404, a NUL byte anywhere a 400 page that says why, a malformed socket frame an
error to its sender alone, an unknown socket path a clean refusal. Every page carries a
Content-Security-Policy without inline script, and a Permissions-Policy.
"""

import json
import os
import re
import subprocess
import sys

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from archive.models import ImportedGame
from chat.models import ChatMessage
from game.models import Move
from game.services.endings import game_resign
from game.services.starting import game_create_seek, game_join
from yourtrumps_site.asgi import websocket_routes
from yourtrumps_site.sockets import UNKNOWN_PATH_CODE

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def game(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    return game_join(game_id=seek.pk, user=bob, trump="H")


# --- Unknown ids ------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/games/999999/move/",
        "/games/999999/resign/",
        "/games/999999/offer-draw/",
        "/games/999999/join/",
        "/games/999999/rematch/",
        "/games/999999/claim-timeout/",
        "/games/999999/chat/mute/",
        "/games/99999999999999999999999/move/",
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_an_unknown_game_on_any_post_is_not_found(client, alice, path, htmx):
    client.force_login(alice)
    data = {"move": "take", "ply": "0", "trump": "H"}
    response = client.post(path, data, **(HTMX if htmx else {}))
    assert response.status_code == 404


# --- NUL bytes --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_move_the_busy_database_cannot_fit_in_is_a_503_not_a_500(
    client, alice, game, monkeypatch
):
    from django.db import OperationalError

    def locked(**kwargs: object) -> None:
        raise OperationalError("database is locked (waited for this process)")

    monkeypatch.setattr("game.views.game_play_move", locked)
    client.force_login(alice)
    response = client.post(reverse("game:move", args=[game.pk]), {"move": "take", "ply": 0})
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert "try again" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    ["/accounts/players/%00/", "/invite/%00/", "/games/?player=%00", "/moderation/users/a%00/"],
)
def test_a_nul_in_an_address_is_refused_with_a_message(client, path):
    response = client.get(path)
    assert response.status_code == 400
    assert "NUL character" in response.content.decode()


@pytest.mark.django_db
def test_a_nul_in_a_form_field_is_refused_and_changes_nothing(client, alice, game):
    client.force_login(alice)
    users = get_user_model().objects.count()
    response = client.post(
        reverse("accounts:signup"),
        {"username": "eve\x00", "password1": "a-long-pass-42", "password2": "a-long-pass-42"},
    )
    assert response.status_code == 400 and "NUL character" in response.content.decode()
    assert get_user_model().objects.count() == users
    response = client.post(reverse("game:move", args=[game.pk]), {"move": "take\x00", "ply": "0"})
    assert response.status_code == 400
    game.refresh_from_db()
    assert game.version == 1 and not Move.objects.exists()


@pytest.mark.django_db
def test_an_uploaded_record_holding_a_nul_is_refused_with_a_message(client, alice, game):
    game_resign(game_id=game.pk, user=alice)
    record = client.get(reverse("archive:record", args=[game.pk])).content
    upload = SimpleUploadedFile("game.txt", record.replace(b"\n\n", b"\n\n\x00", 1))
    response = client.post(reverse("archive:import"), {"file": upload})
    assert response.status_code == 200
    assert "NUL character" in response.content.decode()
    assert not ImportedGame.objects.exists()
    fine = client.post(reverse("archive:import"), {"file": SimpleUploadedFile("game.txt", record)})
    assert fine.status_code == 302 and ImportedGame.objects.count() == 1  # the check can pass


# --- The game's socket ------------------------------------------------------------------------

application = URLRouter(websocket_routes)


async def _socket(path, user):
    socket = WebsocketCommunicator(application, path)
    socket.scope["user"] = user
    return socket, await socket.connect(timeout=10)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/ws/nothing/", "/", "/ws/games/abc/", "/ws/games/1/more/"])
async def test_an_unknown_socket_path_is_closed_cleanly_with_a_code(path, caplog):
    socket, (connected, code) = await _socket(path, None)
    assert (connected, code) == (False, UNKNOWN_PATH_CODE)
    await socket.disconnect()
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("frame", "error"),
    [
        ("[" * 100_000 + "]" * 100_000, "at most 200 characters"),
        ('{"chat": ' + "[" * 1000 + "]" * 1000 + "}", "could not be read"),
        ('{"chat": "hello\\u0000there"}', "NUL character"),
        ('{"chat": 42}', "could not be read"),
        ("not json", "could not be read"),
    ],
)
async def test_a_malformed_chat_frame_gets_an_error_back_and_the_socket_lives(frame, error):
    @database_sync_to_async
    def make():
        users = get_user_model().objects
        alice, bob = users.create_user("alice"), users.create_user("bob")
        seek = game_create_seek(user=alice, trump="S")
        return game_join(game_id=seek.pk, user=bob, trump="H"), alice

    game, alice = await make()
    sender, (connected, _) = await _socket(f"/ws/games/{game.pk}/", alice)
    assert connected
    await sender.receive_from(timeout=10)  # the table
    await sender.send_to(text_data=frame)
    answer = await sender.receive_from(timeout=10)
    assert 'id="chat-form"' in answer and error in answer
    assert await database_sync_to_async(ChatMessage.objects.count)() == 0
    # Still alive: a good line lands.
    await sender.send_to(text_data=json.dumps({"chat": "good game"}))
    answer = await sender.receive_from(timeout=10)
    assert 'role="alert"' not in answer
    assert await database_sync_to_async(ChatMessage.objects.count)() == 1
    await sender.disconnect()


# --- Headers ----------------------------------------------------------------------------------


def _directives(policy):
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


@pytest.mark.django_db
def test_every_page_has_a_policy_that_allows_only_the_sites_own_scripts(client, alice, game):
    client.force_login(alice)
    for url in ("/", "/play/", reverse("game:table", args=[game.pk]), "/games/", "/admin/"):
        response = client.get(url, follow=True)
        policy = _directives(response.headers["Content-Security-Policy"])
        assert policy["script-src"] == ["'self'"] and policy["default-src"] == ["'self'"]
        assert "'unsafe-inline'" not in policy.get("style-src", [])
        assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]
        html = response.content.decode()
        # No inline script for the policy to block: every script comes from a file.
        assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", html)), url
        assert not re.search(r"<[^>]+\son[a-z]+\s*=", html), url  # no inline handlers either
        assert "Permissions-Policy" in response.headers
        assert "camera=()" in response.headers["Permissions-Policy"]
    # htmx is told not to eval and not to add inline styles, which the policy would block.
    home = client.get("/").content.decode()
    assert '"allowEval": false' in home and '"includeIndicatorStyles": false' in home


@pytest.mark.django_db
def test_refusals_carry_the_headers_too(client):
    response = client.get("/invite/%00/")
    assert "Content-Security-Policy" in response and "Permissions-Policy" in response


@pytest.mark.django_db
def test_hsts_is_sent_on_https_when_configured(client, settings):
    settings.SECURE_HSTS_SECONDS = 31_536_000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    response = client.get("/", secure=True)
    assert response.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    assert "Strict-Transport-Security" not in client.get("/")  # never on plain http


def test_hsts_settings_come_from_the_environment():
    environment = {
        **os.environ,
        "SECURE_HSTS_SECONDS": "3600",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
        "SECURE_HSTS_PRELOAD": "yes",
    }
    code = (
        "from yourtrumps_site import settings as s; "
        "print(s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["3600", "True", "True"]
