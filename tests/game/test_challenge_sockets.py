"""The user's own socket (``ws/me/``): a challenge reaches the challenged player's every page as
it is made, and the answer reaches the challenger's, in their language; the banned and the
logged-out get no socket, and a table's socket in the same user group is left alone."""

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.utils import translation
from django.utils.translation import gettext

from game import challenges
from game.consumers.sockets import BANNED_CODE, LOGIN_NEEDED_CODE
from game.options import GameOptions
from game.routing import websocket_urlpatterns
from game.services.starting import game_create_seek
from moderation import services as moderation
from yourtrumps_site.socket_language import SocketLanguageMiddleware

pytestmark = pytest.mark.django_db(transaction=True)
application = URLRouter(websocket_urlpatterns)


async def connect(user, path="/ws/me/"):
    communicator = WebsocketCommunicator(application, path)
    communicator.scope["user"] = user
    connected, code = await communicator.connect()
    return communicator, connected, code


@database_sync_to_async
def players(*names):
    return [get_user_model().objects.create_user(n, password=f"pw-{n}-12345") for n in names]


@database_sync_to_async
def challenge(challenger, challenged):
    return challenges.challenge_create(
        challenger=challenger,
        challenged=challenged,
        trump="S",
        options=GameOptions(time_control=(3, 2)),
    )


async def test_a_challenge_and_its_decline_reach_both_players_sockets():
    anna, boris = await players("anna", "boris")
    sockets = {}
    for user in (anna, boris):
        sockets[user.username], connected, _ = await connect(user)
        assert connected
        first = await sockets[user.username].receive_from(timeout=5)  # as things stand: none
        assert first.startswith('<div id="challenges" hx-swap-oob="innerHTML">')
        assert "challenge" not in first.removeprefix('<div id="challenges"')

    made = await challenge(anna, boris)

    to_boris = await sockets["boris"].receive_from(timeout=5)
    assert "anna</bdi> challenges you" in to_boris
    assert f"/challenges/{made.pk}/accept/" in to_boris and 'name="reason"' in to_boris
    to_anna = await sockets["anna"].receive_from(timeout=5)
    assert "Your challenge to <bdi>boris</bdi> waits for an answer" in to_anna

    await database_sync_to_async(challenges.challenge_decline)(
        challenge_id=made.pk, user=boris, reason="too_fast"
    )

    to_anna = await sockets["anna"].receive_from(timeout=5)
    assert "boris</bdi> declined your challenge: “This time control is too fast for me.”" in to_anna
    assert "waits for an answer" not in to_anna
    to_boris = await sockets["boris"].receive_from(timeout=5)
    assert "challenges you" not in to_boris
    for socket in sockets.values():
        await socket.disconnect()


async def test_an_accepted_challenge_sends_the_challenger_to_the_table():
    anna, boris = await players("anna", "boris")
    socket, _, _ = await connect(anna)
    await socket.receive_from(timeout=5)
    made = await challenge(anna, boris)
    await socket.receive_from(timeout=5)

    game = await database_sync_to_async(challenges.challenge_accept)(
        challenge_id=made.pk, user=boris, trump="H"
    )

    answer = await socket.receive_from(timeout=5)
    assert f'data-table="/games/{game.pk}/"' in answer
    assert "boris</bdi> accepted your challenge." in answer
    await socket.disconnect()


async def test_the_socket_speaks_its_pages_language():
    anna, boris = await players("anna", "boris")
    communicator = WebsocketCommunicator(
        SocketLanguageMiddleware(application), "/ws/me/", headers=[(b"accept-language", b"he")]
    )
    communicator.scope["user"] = boris
    assert (await communicator.connect())[0]
    await communicator.receive_from(timeout=5)
    await challenge(anna, boris)
    notice = await communicator.receive_from(timeout=5)
    with translation.override("he"):
        hebrew = gettext("Your trump suit")
    assert hebrew != "Your trump suit" and hebrew in notice
    await communicator.disconnect()


async def test_no_socket_for_the_logged_out_nor_the_banned():
    _, connected, code = await connect(AnonymousUser())
    assert not connected and code == LOGIN_NEEDED_CODE
    mod, villain = await players("mod", "villain")
    await database_sync_to_async(moderation.moderator_grant)(user=mod)
    socket, connected, _ = await connect(villain)
    assert connected
    await socket.receive_from(timeout=5)
    mod = await database_sync_to_async(get_user_model().objects.get)(pk=mod.pk)
    await database_sync_to_async(moderation.moderation_ban)(moderator=mod, user=villain, reason="x")
    assert (await socket.receive_output(timeout=5))["type"] == "websocket.close"
    villain = await database_sync_to_async(get_user_model().objects.get)(pk=villain.pk)
    _, connected, code = await connect(villain)
    assert not connected and code == BANNED_CODE


async def test_a_tables_socket_in_the_same_user_group_ignores_challenges():
    anna, boris = await players("anna", "boris")
    seek = await database_sync_to_async(game_create_seek)(user=anna, trump="S")
    table, connected, _ = await connect(boris, f"/ws/games/{seek.pk}/")
    assert connected
    await table.receive_from(timeout=5)
    await challenge(anna, boris)
    assert await table.receive_nothing(timeout=1)
    await table.disconnect()
