"""The game socket's chat and bans: lines arrive live and per viewer, a muted user's lines are
refused and never reach anyone, a ban ends a live game on both players' sockets and closes the
banned player's, and the sockets check the origin."""

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.utils import translation

from chat import services as chat_services
from chat.models import ChatMessage
from chat.services import ChatError
from chat.sockets import log_html
from game.consumers.sockets import BANNED_CODE
from game.routing import websocket_urlpatterns
from game.selectors import chat_room, game_with_players
from game.services.chat import game_chat_post
from game.services.starting import game_create_seek, game_join
from moderation import services


def log_of(game, user):
    """The chat log a socket arriving at ``game`` sends ``user``."""
    return log_html(chat_room(game), user)


pytestmark = pytest.mark.django_db(transaction=True)
application = URLRouter(websocket_urlpatterns)


@database_sync_to_async
def make_world():
    users = get_user_model().objects
    alice, bob, carol = (users.create_user(name) for name in ("alice", "bob", "carol"))
    root = users.create_superuser("root", password=None)
    mod = users.create_user("mod")
    services.moderator_grant(user=mod)
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    return game, {"alice": alice, "bob": bob, "carol": carol, "mod": mod, "root": root}


async def connect(game, user):
    socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
    socket.scope["user"] = user
    connected, _ = await socket.connect()
    assert connected
    first = await socket.receive_from(timeout=5)  # the table and the chat, as they are now
    assert 'id="table"' in first and 'id="chat-log"' in first
    return socket


async def say(socket, text):
    """What htmx's ws-send sends for the chat form; returns the answer for the sender."""
    await socket.send_to(text_data=json.dumps({"chat": text, "HEADERS": {"HX-Request": "true"}}))
    answer = await socket.receive_from(timeout=5)
    assert 'id="chat-form" hx-swap-oob="outerHTML"' in answer
    return answer


async def test_a_line_reaches_the_opponent_and_spectators_live(settings):
    game, users = await make_world()
    alice, bob, spectator = (
        await connect(game, users["alice"]),
        await connect(game, users["bob"]),
        await connect(game, AnonymousUser()),
    )
    answer = await say(alice, "good luck")
    assert 'value=""' in answer and "field__error" not in answer  # the form comes back empty
    for socket in (alice, bob, spectator):
        pushed = await socket.receive_from(timeout=5)
        assert 'id="chat-log" hx-swap-oob="outerHTML"' in pushed
        assert '<b class="chat__author"><bdi>alice</bdi></b>' in pushed and "good luck" in pushed
    # A spectator's page has no form to write with.
    assert 'id="chat-form"' not in pushed
    for socket in (alice, bob, spectator):
        await socket.disconnect()


ROLES = ("anonymous", "player", "opponent", "other", "muted", "moderator", "superuser")


async def test_a_banned_player_cannot_write_in_the_chat():
    """The matrix's banned user: a player of the game, refused at the socket and by the service."""
    game, users = await make_world()
    await database_sync_to_async(services.moderation_ban)(
        moderator=users["mod"], user=users["bob"], reason="abuse"
    )
    socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
    socket.scope["user"] = users["bob"]
    connected, code = await socket.connect()
    assert not connected and code == BANNED_CODE
    await socket.disconnect()  # the consumer ends now, not when the test's loop is torn down
    with pytest.raises(ChatError, match="banned"):
        await database_sync_to_async(game_chat_post)(
            game_id=game.pk, user=users["bob"], text="let me in"
        )
    assert not await database_sync_to_async(ChatMessage.objects.exists)()


@pytest.mark.parametrize("role", ROLES)
async def test_who_may_write_in_a_games_chat(role):
    game, users = await make_world()
    actor = {
        "anonymous": AnonymousUser(),
        "player": users["alice"],
        "opponent": users["bob"],
        "other": users["carol"],
        "muted": users["alice"],
        "moderator": users["mod"],
        "superuser": users["root"],
    }[role]
    if role == "muted":
        await database_sync_to_async(services.moderation_mute)(
            moderator=users["mod"], user=users["alice"], reason="spam", duration=timedelta(days=1)
        )
    socket = await connect(game, actor)
    answer = await say(socket, "hello")
    stored = await database_sync_to_async(ChatMessage.objects.count)()
    if role in ("player", "opponent"):
        assert stored == 1 and "field__error" not in answer
    else:
        assert stored == 0 and 'class="field__error" role="alert"' in answer
        assert 'value="hello"' in answer  # the text is kept, with why it was refused
        expected = "muted you in chat" if role == "muted" else "spectators read it"
        assert expected in answer
    await socket.disconnect()


async def test_a_muted_players_line_never_reaches_anyone():
    game, users = await make_world()
    await database_sync_to_async(services.moderation_mute)(
        moderator=users["mod"], user=users["bob"], reason="insults", duration=timedelta(hours=1)
    )
    alice, bob, spectator = (
        await connect(game, users["alice"]),
        await connect(game, users["bob"]),
        await connect(game, AnonymousUser()),
    )
    answer = await say(bob, "you are terrible")
    assert answer.count("muted you in chat") == 1  # the refusal is the mute: said once
    assert await bob.receive_nothing(timeout=0.3)
    assert await alice.receive_nothing(timeout=0.1)
    assert await spectator.receive_nothing(timeout=0.1)
    for socket in (alice, bob, spectator):
        await socket.disconnect()


async def test_a_player_who_muted_the_opponent_is_not_sent_their_lines():
    game, users = await make_world()
    await database_sync_to_async(chat_services.chat_mute_set)(
        user=users["alice"], other=users["bob"], muted=True
    )
    alice, bob = await connect(game, users["alice"]), await connect(game, users["bob"])
    await say(bob, "hidden from alice")
    to_bob = await bob.receive_from(timeout=5)
    to_alice = await alice.receive_from(timeout=5)
    assert "hidden from alice" in to_bob and "hidden from alice" not in to_alice
    for socket in (alice, bob):
        await socket.disconnect()


async def test_a_ban_ends_the_live_game_for_both_and_closes_the_banned_players_socket():
    game, users = await make_world()
    alice, bob = await connect(game, users["alice"]), await connect(game, users["bob"])
    lobby = WebsocketCommunicator(application, "/ws/lobby/")
    lobby.scope["user"] = users["alice"]
    assert (await lobby.connect())[0]
    assert 'id="seeks"' in await lobby.receive_from(timeout=5)  # the seeks as they stand
    await database_sync_to_async(services.moderation_ban)(
        moderator=users["mod"], user=users["alice"], reason="cheating"
    )
    for socket in (alice, bob):
        pushed = await socket.receive_from(timeout=5)
        assert 'data-status="finished"' in pushed
        assert "<bdi>bob</bdi> wins" in pushed and "A moderator&#x27;s decision" in pushed
    assert await alice.receive_output(timeout=5) == {"type": "websocket.close", "code": BANNED_CODE}
    assert await lobby.receive_output(timeout=5) == {"type": "websocket.close", "code": BANNED_CODE}
    assert await bob.receive_nothing(timeout=0.2)  # the opponent stays connected
    for socket in (alice, lobby, bob):
        await socket.disconnect()


async def test_a_banned_users_sockets_are_refused():
    game, users = await make_world()
    await database_sync_to_async(services.moderation_ban)(
        moderator=users["mod"], user=users["alice"], reason="cheating"
    )
    for path in (f"/ws/games/{game.pk}/", "/ws/lobby/"):
        socket = WebsocketCommunicator(application, path)
        socket.scope["user"] = users["alice"]  # as read before the ban
        connected, code = await socket.connect()
        assert not connected and code == BANNED_CODE
        await socket.disconnect()


async def test_the_sockets_check_the_origin():
    from yourtrumps_site.asgi import application as site

    game, _ = await make_world()
    for origin, allowed in ((b"http://evil.example", False), (b"http://localhost", True)):
        socket = WebsocketCommunicator(site, f"/ws/games/{game.pk}/", [(b"origin", origin)])
        connected, _ = await socket.connect()
        assert connected is allowed, origin
        await socket.disconnect()


def test_a_table_without_a_chat_sends_no_log_and_reads_none(django_assert_num_queries):
    alice, bob = (get_user_model().objects.create_user(name) for name in ("alice", "bob"))
    seek = game_create_seek(user=alice, trump="S")  # one player: no chat yet
    with django_assert_num_queries(0):
        assert log_of(seek, alice) == ""
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    assert 'id="chat-log" hx-swap-oob="outerHTML"' in log_of(game, alice)


def test_a_chat_never_written_in_is_shown_without_reading_it(django_assert_num_queries):
    alice, bob = (get_user_model().objects.create_user(name) for name in ("alice", "bob"))
    seek = game_create_seek(user=alice, trump="S")
    game_join(game_id=seek.pk, user=bob, trump="H")
    game = game_with_players(seek.pk)  # as a socket has it
    with django_assert_num_queries(0):
        assert "No messages yet." in log_of(game, alice)
        with translation.override("gl"):  # rendered once per language, each in its own
            assert "Aínda non hai mensaxes." in log_of(game, alice)
        assert "No messages yet." in log_of(game, alice)
    game_chat_post(game_id=game.pk, user=bob, text="hi")
    game = game_with_players(seek.pk)
    assert game.chat_started
    with django_assert_num_queries(1):  # the lines, with the muted ones left out in the query
        assert "hi" in log_of(game, alice)
    chat_services.chat_mute_set(user=alice, other=bob, muted=True)
    with django_assert_num_queries(1):
        assert "No messages yet." in log_of(game, alice)
    assert "hi" in log_of(game, AnonymousUser())


async def test_a_socket_arriving_after_the_first_line_sees_it_where_the_game_was_kept():
    """A chat line does not change the game's version, so a process keeping the game at that
    version still has it as before the line: the arrival reads whether the chat started."""
    game, users = await make_world()
    alice = await connect(game, users["alice"])  # this process now keeps the game
    await database_sync_to_async(game_chat_post)(
        game_id=game.pk, user=users["bob"], text="first words"
    )
    await alice.receive_from(timeout=5)  # the line, pushed
    spectator = WebsocketCommunicator(application, f"/ws/games/{game.pk}/")
    spectator.scope["user"] = AnonymousUser()
    assert (await spectator.connect())[0]
    assert "first words" in await spectator.receive_from(timeout=5)
    for socket in (alice, spectator):
        await socket.disconnect()
